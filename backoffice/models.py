"""Daily totals of the return actually paid, so the RTP report and the dashboard read a period in milliseconds.

A day's rows are what backoffice.reports would compute live for that UTC day: written whole by
backoffice.services.rtp_day_rollup (one transaction: the day's rows and its marker), never edited. Days without a
marker (not rolled up yet) and today are computed live, so the figures are the same either way.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from tables.models import Table


class RtpDay(models.Model):
    """A UTC day whose totals are rolled up (even a day with no round: then it has no RtpDaily row)."""

    day = models.DateField(primary_key=True)
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"RTP totals of {self.day}"


class RtpDaily(models.Model):
    """Settled rounds of one day at one table configuration, one bet type and one currency."""

    day = models.DateField()
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    config_version = models.PositiveIntegerField()
    bet_type = models.CharField(max_length=16)
    currency = models.CharField(max_length=3)
    rounds = models.PositiveIntegerField()
    bets = models.PositiveIntegerField()
    initial = models.BigIntegerField(help_text="initial stakes, minor units")
    staked = models.BigIntegerField(help_text="everything staked (doubles and splits too), minor units")
    returned = models.BigIntegerField(help_text="cash (and Golden Chips) returned, minor units")
    # The promotional part of staked and returned (the GGR report counts cash only; RTP counts both).
    chips_staked = models.BigIntegerField(default=0, help_text="Golden Chips staked, minor units")
    chips_returned = models.BigIntegerField(default=0, help_text="Golden Chips given back (pushes), minor units")
    # Sums of squares for the standard error: statistics, not money.
    initial_sq = models.FloatField()
    net_sq = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "table", "config_version", "bet_type", "currency"],
                                    name="backoffice_rtp_daily_once"),
            models.CheckConstraint(condition=Q(staked__gte=0, returned__gte=0, initial__gte=0),
                                   name="backoffice_rtp_daily_amounts_not_negative"),
            models.CheckConstraint(condition=Q(chips_staked__gte=0, chips_staked__lte=models.F("staked"),
                                               chips_returned__gte=0, chips_returned__lte=models.F("returned")),
                                   name="backoffice_rtp_daily_chips_within_totals"),
        ]

    def __str__(self) -> str:
        return f"{self.day} table {self.table_id} v{self.config_version} {self.bet_type} {self.currency}"


class RtpDailyRounds(models.Model):
    """Settled rounds of one day at one table with a bet in one currency: the GGR report's round count, which the
    per-bet-type rows cannot give (a round with a main bet and a side bet is in both)."""

    day = models.DateField()
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=3)
    rounds = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "table", "currency"],
                                               name="backoffice_rtp_daily_rounds_once")]

    def __str__(self) -> str:
        return f"{self.day} table {self.table_id} {self.currency}: {self.rounds} rounds"


class RtpDailyPlayer(models.Model):
    """A player who had a settled bet of one bet type at one table in one currency that day. Kept per player, not
    as a count, because active players of a period are distinct players: daily counts do not add up."""

    day = models.DateField()
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    currency = models.CharField(max_length=3)
    bet_type = models.CharField(max_length=16)
    # Not a foreign key: the rollup is a cache and must never stand in the way of anything done to a user row.
    player_id = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "table", "currency", "bet_type", "player_id"],
                                               name="backoffice_rtp_daily_player_once")]

    def __str__(self) -> str:
        return f"{self.day} table {self.table_id} {self.currency} {self.bet_type}: player {self.player_id}"


class RtpAlert(models.Model):
    """A table whose observed RTP of one bet type and currency left its 99.7 % band over the monitor's window:
    raised and cleared by the beat check (backoffice.services.rtp_alerts_check), kept afterwards as history."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="+")
    bet_type = models.CharField(max_length=16)
    currency = models.CharField(max_length=3)
    raised_at = models.DateTimeField(default=timezone.now)
    cleared_at = models.DateTimeField(null=True, blank=True)
    # The figures when raised, then as last checked.
    observed = models.FloatField()
    low = models.FloatField()
    high = models.FloatField()
    bets = models.PositiveIntegerField()
    checked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "bet_type", "currency"], condition=Q(cleared_at__isnull=True),
                                    name="backoffice_rtp_alert_one_open"),
        ]

    def __str__(self) -> str:
        return f"RTP alert {self.table_id} {self.bet_type} {self.currency} since {self.raised_at:%Y-%m-%d %H:%M}"
