"""Rounds: every game round of every table, its spots, bets, card records, decisions and audit trail.

Only rounds.services writes these tables. Card records, decisions, round bets and audit events are facts: they
are append-only, and on PostgreSQL a trigger (migration 0002) refuses any UPDATE or DELETE of them. The round
and spot rows carry the current state (compare-and-set transitions) and cached play status.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from rounds.engine_adapter import spot_label
from tables.models import Table


class RoundState(models.TextChoices):
    BETTING_OPEN = "betting_open", _("Betting open")
    BETTING_CLOSED = "betting_closed", _("Betting closed")
    DEALING = "dealing", _("Dealing")
    INSURANCE = "insurance", _("Insurance")
    DECISIONS = "decisions", _("Decisions")
    DEALER = "dealer", _("Dealer's hand")
    SETTLING = "settling", _("Settling")
    SETTLED = "settled", _("Settled")
    VOIDED = "voided", _("Voided")


# A table plays at most one of these at a time (a partial unique index says so); a round that is settling may
# overlap with the next round's betting, since settlement runs on a worker.
ACTIVE_STATES = (
    RoundState.BETTING_OPEN,
    RoundState.BETTING_CLOSED,
    RoundState.DEALING,
    RoundState.INSURANCE,
    RoundState.DECISIONS,
    RoundState.DEALER,
)

TRANSITIONS: dict[str, tuple[str, ...]] = {
    RoundState.BETTING_OPEN: (RoundState.BETTING_CLOSED, RoundState.VOIDED),
    # No live bet at the close: nothing to deal, the round settles (empty) at once.
    RoundState.BETTING_CLOSED: (RoundState.DEALING, RoundState.SETTLING, RoundState.VOIDED),
    # A blackjack found by the peek ends the round before any decision.
    RoundState.DEALING: (RoundState.INSURANCE, RoundState.DECISIONS, RoundState.SETTLING, RoundState.VOIDED),
    RoundState.INSURANCE: (RoundState.DECISIONS, RoundState.SETTLING, RoundState.VOIDED),
    RoundState.DECISIONS: (RoundState.DEALER, RoundState.VOIDED),
    RoundState.DEALER: (RoundState.SETTLING, RoundState.VOIDED),
    RoundState.SETTLING: (RoundState.SETTLED, RoundState.VOIDED),
    # Only as a reversal: compensating transactions, staff, reason.
    RoundState.SETTLED: (RoundState.VOIDED,),
    RoundState.VOIDED: (),
}


class VoidKind(models.TextChoices):
    STAFF = "staff", "Voided by staff"
    MALFUNCTION = "malfunction", "Malfunction"
    TABLE_CLOSED = "table_closed", "Table closed"
    REVERSAL = "reversal", "Reversal of a settled round"


class Shoe(models.Model):
    """A dealing shoe at a table; the cards of its rounds together can hold no more copies than its decks."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    number = models.PositiveIntegerField()
    decks = models.PositiveSmallIntegerField()
    # New-shoe burn: the card shown, and how many face-down cards were burned after it.
    burn_card = models.CharField(max_length=2, blank=True)
    burned = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    ended_at = models.DateTimeField(null=True, blank=True)
    # Two-shoe rotation: the table's two sets of cards take turns, one in the shoe while the other is shuffled
    # on the shuffle table; `card_set` (1 or 2) is the set in this shoe.
    card_set = models.PositiveSmallIntegerField(default=1)
    # The cut card came out while this round was dealt; the next round is the shoe's last ("the cards will be
    # replaced in the following round"), and no round opens on the shoe after it.
    cut_card_round = models.ForeignKey("Round", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    cut_card_at = models.DateTimeField(null=True, blank=True)
    last_round = models.ForeignKey("Round", null=True, blank=True, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="rounds_shoe_number_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(ended_at__isnull=True), name="rounds_shoe_one_current_per_table"
            ),
        ]

    def __str__(self) -> str:
        return f"shoe {self.number} of table {self.table_id}"


class Round(models.Model):
    # Not a column: the ids of the spots a bet holds FOR UPDATE, set by rounds.locks.round_lock_for_bet.
    locked_spot_ids: set[int]

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="rounds")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="rounds")
    game_number = models.CharField(max_length=40, unique=True)
    state = models.CharField(max_length=16, choices=RoundState.choices, default=RoundState.BETTING_OPEN)
    # tables.selectors.table_config_snapshot at open: the round plays and settles with the rules it began with.
    config = models.JSONField()
    config_version = models.PositiveIntegerField()
    opened_at = models.DateTimeField(default=timezone.now)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The running timer of the current phase (betting, insurance or decisions); none while the studio acts.
    deadline = models.DateTimeField(null=True, blank=True)
    # Seated games: the seat whose player decides now.
    turn_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    betting_closed_at = models.DateTimeField(null=True, blank=True)
    settling_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    settlement = models.JSONField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    void_kind = models.CharField(max_length=16, choices=VoidKind.choices, blank=True)
    void_reason = models.TextField(blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Set by the round_void task once every stake is back; a sweeper re-queues voided rounds without it.
    refunds_done_at = models.DateTimeField(null=True, blank=True)
    # Refunds and reversals run in batches of players in id order, each batch its own transaction: the id of
    # the last player whose money is back, moved in the batch's transaction (a crash resumes after it).
    refunds_cursor = models.BigIntegerField(default=0)
    # Set when the worker gave up settling or refunding the round (the error outlasted its retries, or was not
    # one that passes by itself): the sweeps leave it alone and the pages ask staff to act, until staff retry it.
    attention_at = models.DateTimeField(null=True, blank=True)
    attention_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(state__in=RoundState.values), name="rounds_round_state_known"),
            models.UniqueConstraint(
                fields=["table"], condition=Q(state__in=ACTIVE_STATES), name="rounds_round_one_active_per_table"
            ),
            models.CheckConstraint(
                condition=~Q(state=RoundState.VOIDED) | Q(voided_at__isnull=False),
                name="rounds_round_voided_has_time",
            ),
            models.CheckConstraint(
                condition=~Q(state=RoundState.SETTLED) | Q(settled_at__isnull=False, settlement__isnull=False),
                name="rounds_round_settled_has_settlement",
            ),
        ]
        indexes = [
            models.Index(fields=["state", "deadline"], name="rounds_round_due"),
            models.Index(fields=["table", "-id"], name="rounds_round_table_newest"),
            models.Index(fields=["attention_at"], name="rounds_round_attention",
                         condition=Q(attention_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return self.game_number

    @property
    def common_draw(self) -> bool:
        return bool(self.config["common_draw"])


class SpotStatus(models.TextChoices):
    WAITING = "waiting", "Waiting for the deal"
    DECIDING = "deciding", "Deciding"
    NEEDS_CARD = "needs_card", "Waiting for a card"
    FINISHED = "finished", "Finished"


class Spot(models.Model):
    """One player's place in a round: the common-draw position, a seat, or a Bet Behind on a seat.

    Each spot is one player entry of the rules engine. `status` and `need_index` are a cache of what the engine
    says about the spot's hands, refreshed by the services whenever a decision or a card changes them.
    """

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="spots")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="round_spots")
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="empty on a common draw")
    behind = models.BooleanField(default=False)
    currency = models.CharField(max_length=3)
    created_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    # The last bet of the spot its player confirmed (rounds.services.confirmation): bets after it, placed at a
    # Multiple Bets table after confirming, are not confirmed yet; none means nothing on the spot is.
    confirmed_through = models.BigIntegerField(null=True, blank=True)
    # The seat's player pressed Deal Now: no more Bet Behind on the seat; betting closes once every seat has.
    deal_now_at = models.DateTimeField(null=True, blank=True)
    disconnected_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=SpotStatus.choices, default=SpotStatus.WAITING)
    need_index = models.PositiveSmallIntegerField(null=True, blank=True)
    insurance = models.BooleanField(null=True, blank=True, help_text="the insurance answer, once given")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round", "player"], condition=Q(seat__isnull=True, voided_at__isnull=True),
                name="rounds_spot_one_per_player_common_draw",
            ),
            models.UniqueConstraint(
                fields=["round", "seat"], condition=Q(seat__isnull=False, behind=False, voided_at__isnull=True),
                name="rounds_spot_one_player_per_seat",
            ),
            models.UniqueConstraint(
                fields=["round", "seat", "player"], condition=Q(behind=True, voided_at__isnull=True),
                name="rounds_spot_one_bet_behind_per_player_seat",
            ),
            models.CheckConstraint(condition=Q(seat__isnull=True) | Q(seat__gte=1), name="rounds_spot_seat_positive"),
            models.CheckConstraint(
                condition=Q(behind=False) | Q(seat__isnull=False), name="rounds_spot_bet_behind_on_a_seat"
            ),
            models.CheckConstraint(condition=Q(status__in=SpotStatus.values), name="rounds_spot_status_known"),
        ]

    def __str__(self) -> str:
        return f"spot {self.pk} ({self.label}) of round {self.round_id}"

    @property
    def label(self) -> str:
        return spot_label(seat=self.seat, behind=self.behind, player_id=self.player_id)


class BetKind(models.TextChoices):
    MAIN = "main", "Main bet"
    GOLDEN_CHIP = "golden_chip", "Golden Chip main bet"
    BET_BEHIND = "bet_behind", "Bet Behind"
    ANY_PAIR = "any_pair", "Any Pair"
    TWENTY_ONE_PLUS_THREE = "21+3", "21+3"
    HOT3 = "hot3", "Hot 3"
    PERFECT_PAIRS = "perfect_pairs", "Perfect Pairs"
    INSURANCE = "insurance", "Insurance"
    DOUBLE = "double", "Double"
    SPLIT = "split", "Split"


MAIN_KINDS = (BetKind.MAIN, BetKind.GOLDEN_CHIP, BetKind.BET_BEHIND)
SIDE_KINDS = (BetKind.ANY_PAIR, BetKind.TWENTY_ONE_PLUS_THREE, BetKind.HOT3, BetKind.PERFECT_PAIRS)


class RoundBet(models.Model):
    """One stake held in the wallet for a round; its outcome is the wallet bet's resolution."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bets")
    spot = models.ForeignKey(Spot, on_delete=models.PROTECT, related_name="bets")
    kind = models.CharField(max_length=16, choices=BetKind.choices)
    hand_index = models.PositiveSmallIntegerField(default=0)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    funding = models.CharField(max_length=16)
    wallet_bet = models.OneToOneField("wallet.Bet", on_delete=models.PROTECT, related_name="round_bet")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="rounds_bet_amount_positive"),
            models.CheckConstraint(condition=Q(kind__in=BetKind.values), name="rounds_bet_kind_known"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.amount} {self.currency} (spot {self.spot_id})"


class ReturnReason(models.TextChoices):
    UNDO = "undo", "Undone by the player"
    UNCONFIRMED = "unconfirmed", "Not confirmed when betting closed"


class BetReturn(models.Model):
    """A stake given back while betting was open, its spot keeping other bets (rounds.services.undo): the bet
    stays a fact, its wallet hold is voided once (the unique bet), and the round no longer counts it. A spot
    whose every bet goes back is voided instead (Spot.voided_at). Append-only."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="bet_returns")
    bet = models.OneToOneField(RoundBet, on_delete=models.PROTECT, related_name="returned")
    reason = models.CharField(max_length=16, choices=ReturnReason.choices)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(reason__in=ReturnReason.values), name="rounds_bet_return_reason_known"),
        ]

    def __str__(self) -> str:
        return f"bet {self.bet_id} returned ({self.reason})"


class CardTarget(models.TextChoices):
    DEALER = "dealer", "Dealer"
    PLAYER = "player", "Players' shared cards (common draw)"
    STREAM = "stream", "Shared stream (common draw)"
    SEAT = "seat", "Seat"


class CardRecord(models.Model):
    """One card as the studio recorded it: where it went and in which order."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="cards")
    position = models.PositiveSmallIntegerField(help_text="order of recording in the round, from 1")
    target = models.CharField(max_length=8, choices=CardTarget.choices)
    seat = models.PositiveSmallIntegerField(default=0, help_text="the seat for seat cards, else 0")
    sequence = models.PositiveSmallIntegerField(help_text="order within the target, from 1")
    card = models.CharField(max_length=2)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["round", "position"]
        constraints = [
            models.UniqueConstraint(fields=["round", "position"], name="rounds_card_position_once"),
            models.UniqueConstraint(fields=["round", "target", "seat", "sequence"], name="rounds_card_sequence_once"),
            models.CheckConstraint(condition=Q(target__in=CardTarget.values), name="rounds_card_target_known"),
            models.CheckConstraint(
                condition=Q(target=CardTarget.SEAT, seat__gte=1) | (~Q(target=CardTarget.SEAT) & Q(seat=0)),
                name="rounds_card_seat_matches_target",
            ),
        ]

    def __str__(self) -> str:
        where = f"seat {self.seat}" if self.target == CardTarget.SEAT else self.target
        return f"{self.card} to {where} #{self.sequence}"


class DecisionKind(models.TextChoices):
    ACTION = "action", "Playing decision"
    FOLLOW = "follow", "Bet Behind following its seat"
    INSURANCE = "insurance", "Insurance answer"


class ActorKind(models.TextChoices):
    PLAYER = "player", _("Player")
    DEALER = "dealer", _("Dealer (studio)")
    SYSTEM = "system", _("System")
    STAFF = "staff", _("Staff")


class Decision(models.Model):
    """One decision on a spot: what was asked (`action`) and what the rules made of it (`effective`)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="decisions")
    spot = models.ForeignKey(Spot, on_delete=models.PROTECT, related_name="decisions")
    sequence = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=DecisionKind.choices)
    # action: hit, stand, double, split, timeout; follow: the seat's effective action; insurance: take, decline.
    action = models.CharField(max_length=16)
    effective = models.CharField(max_length=16)
    hand_index = models.PositiveSmallIntegerField(default=0)
    cost = models.BigIntegerField(default=0, help_text="the extra stake a paid double, split or insurance needs")
    funded = models.BooleanField(null=True, blank=True, help_text="whether that stake was held (paid ones only)")
    stream_length = models.PositiveSmallIntegerField(default=0, help_text="stream cards dealt when decided")
    actor_kind = models.CharField(max_length=8, choices=ActorKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["spot", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["spot", "sequence"], name="rounds_decision_sequence_once"),
            models.CheckConstraint(condition=Q(kind__in=DecisionKind.values), name="rounds_decision_kind_known"),
        ]
        indexes = [models.Index(fields=["round", "kind", "stream_length"], name="rounds_decision_step")]

    def __str__(self) -> str:
        return f"{self.kind} {self.action}->{self.effective} on spot {self.spot_id}"


class RoundEvent(models.Model):
    """The audit trail: every bet, card, decision and state change, with time, actor and payload. Append-only."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    kind = models.CharField(max_length=32)
    actor_kind = models.CharField(max_length=8, choices=ActorKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["round", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(actor_kind__in=ActorKind.values), name="rounds_event_actor_known"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} of round {self.round_id} at {self.at:%H:%M:%S}"


class RoundRequest(models.Model):
    """An idempotency key a user sent with a bet or decision: a repeat returns the first result, moves nothing.

    Scoped to its user and operation, as the wallet scopes client keys (wallet.keys); the bets it holds carry a
    ledger key made from the same three, so no other user's request and no key of the system can meet it."""

    # No index of its own: the unique (user, operation, key) below starts with the user and serves every look-up
    # by user, and one index fewer is written with every bet.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    key = models.CharField(max_length=200)
    operation = models.CharField(max_length=32)
    fingerprint = models.CharField(max_length=64)
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="+")
    result = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "operation", "key"],
                                               name="rounds_request_key_once_per_user_operation")]

    def __str__(self) -> str:
        return f"{self.operation} {self.key} by {self.user_id}"


class Continuation(models.Model):
    """A position that left the live round (rules.md, Disconnection: `non_live`): the player finishes it alone.

    `first`, `stream` and `dealer` hold the cards carried over at the disconnection followed by the ones the
    server drew from `shoe` (an 8-deck shoe shuffled by a CSPRNG, less every card of the round dealt before the
    disconnection); `actions` is the decision log (the live decisions taken before the disconnection first) and
    `funded` the outcome of each paid double or split in it. Each drawn card and decision is also an audit event.
    """

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="continuations")
    spot = models.OneToOneField(Spot, on_delete=models.PROTECT, related_name="continuation")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    started_at = models.DateTimeField(default=timezone.now)
    deadline = models.DateTimeField()
    carried = models.JSONField(help_text="the cards on the table at the disconnection")
    first = models.JSONField(default=list)
    stream = models.JSONField(default=list)
    dealer = models.JSONField(default=list)
    actions = models.JSONField(default=list)
    live_decisions = models.PositiveSmallIntegerField(default=0)
    funded = models.JSONField(default=list)
    insurance = models.BooleanField(default=False)
    shoe = models.JSONField(default=list)
    reconnected_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    finished_by = models.CharField(max_length=8, blank=True, help_text="player, or timeout (the deadline)")
    settled_at = models.DateTimeField(null=True, blank=True)
    settlement = models.JSONField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["deadline"], name="rounds_continuation_due",
                                condition=Q(finished_at__isnull=True))]

    def __str__(self) -> str:
        return f"continuation of spot {self.spot_id} (round {self.round_id})"
