from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tables import rtp
from tables.models import (
    BetLimit,
    BetType,
    SideBet,
    Table,
    TableChange,
    TablePaytable,
    TableRtpRun,
    TableState,
)

HISTORY_PAGE_SIZE = 25


def tables_list(*, state: str | None = None) -> list[Table]:
    tables = Table.objects.all()
    if state is not None:
        tables = tables.filter(state=state)
    return list(tables.order_by("code"))


def tables_open() -> list[Table]:
    return tables_list(state=TableState.OPEN)


def table_detail(*, code: str) -> Table:
    """The table with this code; raises Table.DoesNotExist."""
    return Table.objects.get(code=code)


def table_bet_limits(*, table: Table) -> list[BetLimit]:
    """By currency, then in the order of BetType (main first, tip last)."""
    order = {bet_type: index for index, bet_type in enumerate(BetType.values)}
    limits = BetLimit.objects.filter(table=table)
    return sorted(limits, key=lambda limit: (limit.currency, order[limit.bet_type]))


def bet_limit_get(*, table: Table, bet_type: str, currency: str) -> BetLimit | None:
    return BetLimit.objects.filter(table=table, bet_type=bet_type, currency=currency).first()


def table_paytables(*, table: Table, offered_only: bool = False) -> list[TablePaytable]:
    rows = TablePaytable.objects.filter(table=table)
    if offered_only:
        rows = rows.filter(offered=True)
    order = {bet: index for index, bet in enumerate(SideBet.values)}
    return sorted(rows, key=lambda row: order[row.side_bet])


def table_paytable_get(*, table: Table, side_bet: str) -> TablePaytable:
    """Raises TablePaytable.DoesNotExist."""
    return TablePaytable.objects.get(table=table, side_bet=side_bet)


def table_history(*, table: Table, before_version: int | None = None,
                  limit: int = HISTORY_PAGE_SIZE) -> list[TableChange]:
    """Newest first, paged by version (keyset): pass the last version shown to get the next page."""
    changes = TableChange.objects.filter(table=table).select_related("actor").order_by("-version")
    if before_version is not None:
        changes = changes.filter(version__lt=before_version)
    return list(changes[:limit])


def rtp_run_get(*, table: Table, run_id: int) -> TableRtpRun:
    """Raises TableRtpRun.DoesNotExist."""
    return TableRtpRun.objects.get(table=table, pk=run_id)


def rtp_runs_recent(*, table: Table, limit: int = 5) -> list[TableRtpRun]:
    return list(TableRtpRun.objects.filter(table=table).order_by("-id")[:limit])


@dataclass(frozen=True)
class PaytableRtp:
    paytable: TablePaytable
    rtp: Fraction

    @property
    def percent(self) -> str:
        return rtp.percent(self.rtp)


def table_paytable_rtps(*, table: Table) -> list[PaytableRtp]:
    """Each side bet's paytable with its exact RTP at the table's deck count."""
    return [
        PaytableRtp(paytable=row, rtp=rtp.side_bet_rtp(row.side_bet, row.paytable, table.decks))
        for row in table_paytables(table=table)
    ]
