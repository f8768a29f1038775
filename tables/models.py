from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from rounds.engine.sidebets import DEFAULT_PAYTABLES

CODE_PATTERN = r"^[A-Z0-9]{2,8}$"
MAX_SEATS = 7


class Profile(models.TextChoices):
    FREE_BET = "free_bet", "Free Bet Blackjack (common draw)"
    FREE_BET_SEATED = "free_bet_seated", "Live Free Bet Blackjack (seven seats)"
    CLASSIC = "classic", "Live Blackjack (classic)"


class Dealing(models.TextChoices):
    # The free bet games always deal a hole card and peek only under an ace; classic tables choose.
    ACE_PEEK = "ace_peek", "Hole card, peek under an ace only"
    EU = "eu", "European: no hole card"
    US_PEEK_BEFORE = "us_peek_before", "Hole card, peek under an ace or a ten before the action"
    US_PEEK_AFTER = "us_peek_after", "Hole card, checked after the action"


CLASSIC_DEALINGS = (Dealing.EU, Dealing.US_PEEK_BEFORE, Dealing.US_PEEK_AFTER)


class TimeoutRule(models.TextChoices):
    HIT_11_OR_LESS = "hit_11_or_less", "Hit on 11 or less, otherwise stand"
    STAND = "stand", "Stand"


class DisconnectPolicy(models.TextChoices):
    VOID_WHILE_BETTING = "void_while_betting", "Bets placed while betting is open are returned"
    BETS_STAND = "bets_stand", "Every bet stands, betting time included"
    NON_LIVE = "non_live", "Returned while betting is open; later the player finishes off the live round"


class TableState(models.TextChoices):
    OPEN = "open", "Open"
    PAUSED = "paused", "Paused"
    CLOSED = "closed", "Closed"


class SideBet(models.TextChoices):
    ANY_PAIR = "any_pair", "Any Pair"
    TWENTY_ONE_PLUS_THREE = "21+3", "21+3"
    HOT3 = "hot3", "Hot 3"
    PERFECT_PAIRS = "perfect_pairs", "Perfect Pairs"


class BetType(models.TextChoices):
    MAIN = "main", "Main bet"
    ANY_PAIR = "any_pair", "Any Pair"
    TWENTY_ONE_PLUS_THREE = "21+3", "21+3"
    HOT3 = "hot3", "Hot 3"
    PERFECT_PAIRS = "perfect_pairs", "Perfect Pairs"
    BET_BEHIND = "bet_behind", "Bet Behind"
    TIP = "tip", "Tip"


assert set(SideBet.values) == set(DEFAULT_PAYTABLES), "side bet choices must follow the rules engine"

FREE_BET_PROFILES = (Profile.FREE_BET, Profile.FREE_BET_SEATED)
# Settings a table_create/table_update may change (code and profile are fixed at creation: the code is in every
# game number already played, and a new profile is a new table).
FLAG_FIELDS = (
    "dealing", "decks", "charlie_cards", "dealer_22_push", "double_after_split", "timeout_rule", "new_shoe_burn",
    "disconnect_policy", "non_live_deadline", "seats", "bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips",
    "multiple_bets", "deal_now_players", "multi_game",
)
SETTING_FIELDS = ("name", *FLAG_FIELDS, "betting_seconds", "decision_seconds", "currencies", "side_bets")


class Table(models.Model):
    """One live table: a rule profile plus the per-table flags of docs/rules.md, features, timers and state."""

    code = models.CharField(max_length=8, unique=True, help_text="2-8 capital letters or digits, used in game numbers")
    name = models.CharField(max_length=100)
    profile = models.CharField(max_length=20, choices=Profile.choices)
    dealing = models.CharField(max_length=20, choices=Dealing.choices)
    decks = models.PositiveSmallIntegerField(default=8)
    charlie_cards = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Cards that win as a Charlie; empty for no Charlie rule"
    )
    dealer_22_push = models.BooleanField()
    double_after_split = models.BooleanField()
    timeout_rule = models.CharField(max_length=20, choices=TimeoutRule.choices)
    new_shoe_burn = models.BooleanField()
    disconnect_policy = models.CharField(max_length=20, choices=DisconnectPolicy.choices,
                                         default=DisconnectPolicy.NON_LIVE)
    non_live_deadline = models.PositiveIntegerField(
        default=24 * 3600, help_text="Seconds a non-live continuation waits for the player before the timeout rule"
    )
    seats = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Empty: unlimited players on a common draw (free_bet only)"
    )
    bet_behind = models.BooleanField(default=False)
    multi_seat = models.BooleanField(default=False)
    deal_now = models.BooleanField(default=False)
    auto_confirm = models.BooleanField(default=False)
    golden_chips = models.BooleanField(default=False)
    # Live Blackjack: whether a player may add bets after confirming a main bet (off: confirming locks the
    # player's bets for the round), and the most seated players with whom Deal Now is still offered.
    multiple_bets = models.BooleanField(default=False)
    deal_now_players = models.PositiveSmallIntegerField(default=MAX_SEATS)
    # Whether a player may sit here while at other tables (players.services.table_join; switching tables works
    # either way). A lobby setting, not a rule of the game: the engine never reads it.
    multi_game = models.BooleanField(default=True, help_text="Players may play this table alongside others")
    betting_seconds = models.PositiveSmallIntegerField(default=15)
    decision_seconds = models.PositiveSmallIntegerField(default=10)
    state = models.CharField(max_length=10, choices=TableState.choices, default=TableState.CLOSED)
    # Why the table is in its state (a pause with no round in play has nowhere else to keep it); the table page
    # shows it. Not part of the configuration a round freezes.
    state_reason = models.TextField(blank=True, default="")
    currencies = models.JSONField(default=list, help_text="ISO codes of the currencies the table accepts")
    # Bumped by every change; a round records the version it opened with.
    config_version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["code"]
        constraints = [
            models.CheckConstraint(condition=Q(code__regex=CODE_PATTERN), name="table_code_format"),
            models.CheckConstraint(condition=Q(profile__in=Profile.values), name="table_profile_known"),
            models.CheckConstraint(
                condition=(Q(profile__in=FREE_BET_PROFILES) & Q(dealing=Dealing.ACE_PEEK))
                | (Q(profile=Profile.CLASSIC) & Q(dealing__in=CLASSIC_DEALINGS)),
                name="table_dealing_fits_profile",
            ),
            models.CheckConstraint(
                condition=(Q(profile=Profile.FREE_BET) & Q(seats__isnull=True))
                | (~Q(profile=Profile.FREE_BET) & Q(seats__gte=1, seats__lte=MAX_SEATS)),
                name="table_seats_fit_profile",
            ),
            models.CheckConstraint(
                condition=~Q(profile=Profile.FREE_BET) | Q(bet_behind=False, multi_seat=False),
                name="table_common_draw_has_no_seat_features",
            ),
            models.CheckConstraint(condition=Q(decks__gte=1, decks__lte=8), name="table_decks_range"),
            models.CheckConstraint(
                condition=Q(charlie_cards__isnull=True) | Q(charlie_cards__gte=5, charlie_cards__lte=10),
                name="table_charlie_range",
            ),
            models.CheckConstraint(condition=Q(timeout_rule__in=TimeoutRule.values), name="table_timeout_known"),
            models.CheckConstraint(condition=Q(disconnect_policy__in=DisconnectPolicy.values),
                                   name="table_disconnect_policy_known"),
            models.CheckConstraint(condition=Q(non_live_deadline__gte=60, non_live_deadline__lte=30 * 24 * 3600),
                                   name="table_non_live_deadline_range"),
            models.CheckConstraint(
                condition=Q(betting_seconds__gte=5, betting_seconds__lte=120), name="table_betting_seconds_range"
            ),
            models.CheckConstraint(
                condition=Q(decision_seconds__gte=3, decision_seconds__lte=60), name="table_decision_seconds_range"
            ),
            models.CheckConstraint(condition=Q(state__in=TableState.values), name="table_state_known"),
            models.CheckConstraint(condition=Q(deal_now_players__gte=1, deal_now_players__lte=MAX_SEATS),
                                   name="table_deal_now_players_range"),
            models.CheckConstraint(condition=Q(config_version__gte=1), name="table_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.code} · {self.name}"

    @property
    def common_draw(self) -> bool:
        return self.profile == Profile.FREE_BET

    @property
    def is_classic(self) -> bool:
        return self.profile == Profile.CLASSIC


class BetLimit(models.Model):
    """Limits of one bet type in one currency at one table; every amount is in integer minor units."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="limits")
    bet_type = models.CharField(max_length=20, choices=BetType.choices)
    currency = models.CharField(max_length=3)
    min = models.PositiveBigIntegerField(help_text="minor units")
    max = models.PositiveBigIntegerField(help_text="minor units")
    chips = models.JSONField(help_text="chip denominations in minor units, ascending")

    class Meta:
        ordering = ["table", "currency", "bet_type"]
        constraints = [
            models.UniqueConstraint(fields=["table", "bet_type", "currency"], name="bet_limit_once_per_currency"),
            models.CheckConstraint(condition=Q(bet_type__in=BetType.values), name="bet_limit_type_known"),
            models.CheckConstraint(condition=Q(currency__regex=r"^[A-Z]{3}$"), name="bet_limit_currency_format"),
            models.CheckConstraint(condition=Q(min__gte=1), name="bet_limit_min_positive"),
            models.CheckConstraint(condition=Q(max__gte=models.F("min")), name="bet_limit_min_le_max"),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.bet_type} {self.currency} {self.min}-{self.max}"


class TablePaytable(models.Model):
    """A side bet's paytable at one table ("to 1" pays per outcome line) and whether the table offers it."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="paytables")
    side_bet = models.CharField(max_length=20, choices=SideBet.choices)
    offered = models.BooleanField(default=False)
    paytable = models.JSONField()

    class Meta:
        ordering = ["table", "side_bet"]
        constraints = [
            models.UniqueConstraint(fields=["table", "side_bet"], name="paytable_once_per_side_bet"),
            models.CheckConstraint(condition=Q(side_bet__in=SideBet.values), name="paytable_side_bet_known"),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.side_bet}"


class TableChangeQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError("table history is immutable: TableChange rows cannot be updated")

    def delete(self):
        raise TypeError("table history is immutable: TableChange rows cannot be deleted")


class TableChange(models.Model):
    """One immutable entry of a table's history: who changed what, with the whole configuration before and after.

    Rows are only ever inserted; the queryset and model refuse updates and deletes, and on PostgreSQL a
    trigger refuses them too (migration 0002), so even raw SQL cannot rewrite history.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="changes")
    version = models.PositiveIntegerField()
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Empty for changes made by the system (commands, data loads)",
    )
    at = models.DateTimeField(default=timezone.now)
    summary = models.TextField()
    # Why the operator made the change: required of a person since the staff-activity record (empty before).
    reason = models.TextField(blank=True, default="")
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField()

    objects = TableChangeQuerySet.as_manager()

    class Meta:
        ordering = ["table", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="table_change_once_per_version"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id} v{self.version}: {self.summary[:60]}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError("table history is immutable: TableChange rows cannot be updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("table history is immutable: TableChange rows cannot be deleted")


class RtpRunState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class TableRtpRun(models.Model):
    """A Monte Carlo estimate of the main game's RTP (8-deck, first hand of the shoe) for one table version."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rtp_runs")
    config_version = models.PositiveIntegerField()
    # The rules simulated, frozen at request time so a later table edit cannot change a running estimate.
    rules = models.JSONField()
    hands = models.PositiveBigIntegerField()
    seed = models.BigIntegerField()
    state = models.CharField(max_length=10, choices=RtpRunState.choices, default=RtpRunState.QUEUED)
    hands_done = models.PositiveBigIntegerField(default=0)
    # RTP and its standard error as fractions of the stake (0.9845 = 98.45 %); statistics, not money.
    estimate = models.FloatField(null=True, blank=True)
    standard_error = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=RtpRunState.values), name="rtp_run_state_known"),
            models.CheckConstraint(condition=Q(hands__gte=1), name="rtp_run_hands_positive"),
            models.CheckConstraint(condition=Q(hands_done__lte=models.F("hands")), name="rtp_run_progress_bounded"),
            models.CheckConstraint(
                condition=~Q(state=RtpRunState.DONE) | Q(estimate__isnull=False, standard_error__isnull=False),
                name="rtp_run_done_has_result",
            ),
        ]

    def __str__(self) -> str:
        return f"RTP run {self.pk} of table {self.table_id} v{self.config_version} ({self.state})"

    @property
    def finished(self) -> bool:
        return self.state in (RtpRunState.DONE, RtpRunState.FAILED)

    @property
    def progress_percent(self) -> int:
        return int(100 * self.hands_done / self.hands) if self.hands else 0
