"""The ledger: accounts, transactions made of entries that sum to zero, and bets held until resolved once.

Only wallet.services writes these tables. Entries, transactions, bets and resolutions are append-only:
on PostgreSQL triggers (migration 0002) refuse UPDATE and DELETE and check each transaction sums to zero
per currency at commit.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AccountKind(models.TextChoices):
    PLAYER_CASH = "player_cash", _("Cash")
    PLAYER_GOLDEN_CHIPS = "player_golden_chips", _("Golden Chips")
    HOUSE_BANKROLL = "house_bankroll", _("House bankroll")
    HOUSE_BETS_IN_PLAY = "house_bets_in_play", _("Bets in play")
    HOUSE_GOLDEN_CHIPS_IN_PLAY = "house_golden_chips_in_play", _("Golden Chips in play")
    HOUSE_TIPS = "house_tips", _("Tips")
    HOUSE_CASHIER = "house_cashier", _("Cashier")
    HOUSE_PROMOTIONS = "house_promotions", _("Promotions")


PLAYER_KINDS = (AccountKind.PLAYER_CASH, AccountKind.PLAYER_GOLDEN_CHIPS)
HOUSE_KINDS = tuple(kind for kind in AccountKind if kind not in PLAYER_KINDS)


class Account(models.Model):
    """A player's cash or Golden Chips in one currency, or one of the house's accounts in one currency.

    `balance` is the running balance of a player account, updated under a row lock with its entries.
    House accounts take no lock and keep `balance` at 0: their balance is the sum of their entries.
    """

    kind = models.CharField(max_length=32, choices=AccountKind.choices)
    currency = models.CharField(max_length=3)
    # No index of its own: the unique (player, kind, currency) one serves every lookup by player, and one index
    # fewer is one fewer to write on an update that cannot stay on its page (wallet 0009).
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="wallet_accounts",
        db_index=False,
    )
    balance = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "kind", "currency"], condition=Q(player__isnull=False),
                name="wallet_account_one_per_player_kind_currency",
            ),
            models.UniqueConstraint(
                fields=["kind", "currency"], condition=Q(player__isnull=True),
                name="wallet_account_one_per_house_kind_currency",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=False, kind__in=PLAYER_KINDS)
                | Q(player__isnull=True, kind__in=HOUSE_KINDS),
                name="wallet_account_kind_matches_owner",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=False, balance__gte=0) | Q(player__isnull=True, balance=0),
                name="wallet_account_player_balance_not_negative",
            ),
        ]

    def __str__(self) -> str:
        owner = f"player {self.player_id}" if self.player_id else "house"
        return f"{owner} {self.get_kind_display()} {self.currency}"

    @property
    def is_player(self) -> bool:
        return self.player_id is not None


class TransactionKind(models.TextChoices):
    DEPOSIT = "deposit", _("Deposit")
    WITHDRAWAL = "withdrawal", _("Withdrawal")
    BET = "bet", _("Bet")
    PAYOUT = "payout", _("Payout")
    REFUND = "refund", _("Refund")
    TIP = "tip", _("Tip")
    GOLDEN_CHIP_GRANT = "golden_chip_grant", _("Golden Chips grant")
    ADJUSTMENT = "adjustment", _("Adjustment")
    # Written later by the reversal of a settled round: compensating entries, never edits.
    REVERSAL = "reversal", _("Reversal")


class LedgerTransaction(models.Model):
    """One movement of money: its entries sum to zero per currency; its idempotency key makes it happen once."""

    kind = models.CharField(max_length=24, choices=TransactionKind.choices)
    reference = models.CharField(max_length=64, blank=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Room for the longest key wallet.keys.client_key makes.
    idempotency_key = models.CharField(max_length=300, unique=True)
    # sha256 of the request that created it: the same key with other content is refused, not replayed.
    fingerprint = models.CharField(max_length=64)
    reason = models.TextField(blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    # Set on the instance a service returns when the call was a replay of an earlier one.
    replayed = False

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk}" + (f" ({self.reference})" if self.reference else "")


class Entry(models.Model):
    """One leg of a transaction: a signed amount on one account (one entry per account per transaction)."""

    # The reference to the transaction (and both of a resolution's) is checked once per INSERT statement by a
    # trigger (migration 0006), not by a foreign key's check per row: the same guarantee, since transactions
    # and bets are never deleted, at a fraction of a 40,000-bet settlement's cost.
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="entries", db_index=False, db_constraint=False
    )
    # Checked once per INSERT statement rather than by a foreign key per row (wallet 0010).
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries", db_index=False,
                                db_constraint=False)
    amount = models.BigIntegerField()
    # The player account's balance right after this entry; null for house accounts, which keep no running balance.
    balance_after = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "entries"
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="wallet_entry_amount_not_zero"),
            models.UniqueConstraint(fields=["transaction", "account"], name="wallet_entry_one_per_account"),
        ]
        indexes = [models.Index(fields=["account", "-id"], name="wallet_entry_account_history")]

    def __str__(self) -> str:
        return f"entry {self.pk}: {self.amount:+d} on account {self.account_id}"


class Funding(models.TextChoices):
    CASH = "cash", "Cash"
    GOLDEN_CHIPS = "golden_chips", "Golden Chips"


# Keyed by str: a funding read from a row or a BetHoldSpec is the plain value, which finds the same entry.
FUNDING_ACCOUNT: dict[str, str] = {Funding.CASH: AccountKind.PLAYER_CASH, Funding.GOLDEN_CHIPS: AccountKind.PLAYER_GOLDEN_CHIPS}
IN_PLAY_ACCOUNT: dict[str, str] = {
    Funding.CASH: AccountKind.HOUSE_BETS_IN_PLAY,
    Funding.GOLDEN_CHIPS: AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY,
}


class Bet(models.Model):
    """A stake moved from a player's account to the house's in-play account, waiting for one resolution."""

    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="bets")
    hold_transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="bets")
    amount = models.BigIntegerField()
    kind = models.CharField(max_length=32)
    reference = models.CharField(max_length=64, blank=True, db_index=True)
    meta = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_bet_amount_positive")]

    def __str__(self) -> str:
        return f"bet {self.pk}: {self.kind} {self.amount} {self.account.currency}"

    @property
    def currency(self) -> str:
        return self.account.currency

    @property
    def funding(self) -> str:
        return Funding.GOLDEN_CHIPS if self.account.kind == AccountKind.PLAYER_GOLDEN_CHIPS else Funding.CASH

    @property
    def player_id(self) -> int:
        return self.account.player_id


class Outcome(models.TextChoices):
    LOST = "lost", _("Lost")
    WON = "won", _("Won")
    PUSHED = "pushed", _("Pushed")
    PARTIAL = "partial", _("Part of the stake returned")
    VOIDED = "voided", _("Voided")


class BetResolution(models.Model):
    """How a bet ended. The bet is the primary key, so the database refuses a second resolution."""

    # Both references are checked per statement (see Entry.transaction).
    bet = models.OneToOneField(Bet, primary_key=True, on_delete=models.PROTECT, related_name="resolution",
                               db_constraint=False)
    outcome = models.CharField(max_length=16, choices=Outcome.choices)
    cash_return = models.BigIntegerField()
    chips_return = models.BigIntegerField(default=0)
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="resolutions",
                                    db_constraint=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(cash_return__gte=0, chips_return__gte=0), name="wallet_resolution_returns_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"bet {self.bet_id} {self.outcome}"
