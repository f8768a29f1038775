"""The GGR and hold report for operators and finance: the page and its CSV, both from one read (backoffice.ggr)
of one query string, so the CSV holds exactly the rows and figures the page shows."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import UTC, date, timedelta

from django.http import Http404, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from backoffice import ggr
from casino.money import CURRENCIES, format_minor
from casino.query_params import date_param
from tables.models import Table

# A finance period is a month or a year; longer reads belong to an export job, not a page.
MAX_DAYS = 366
DEFAULT_DAYS = 30


@dataclass
class GgrQuery:
    start: date
    end: date
    table: Table | None
    currency: str | None

    def params(self) -> dict[str, str]:
        return {"from": self.start.isoformat(), "to": self.end.isoformat(),
                "table": self.table.code if self.table else "", "currency": self.currency or ""}


def _query(request) -> GgrQuery:
    """The period (UTC days, `to` inclusive; the last 30 days by default), table and currency; ValueError says
    what is wrong, a table that does not exist is a 404."""
    start, end = date_param(request.GET.get("from"), "from"), date_param(request.GET.get("to"), "to")
    end = end or timezone.now().astimezone(UTC).date()
    start = start or end - timedelta(days=DEFAULT_DAYS - 1)
    if start > end:
        raise ValueError("The period starts after it ends: “from” must be on or before “to”.")
    if (end - start).days + 1 > MAX_DAYS:
        raise ValueError(f"A period is at most {MAX_DAYS} days: choose a shorter one.")
    code = (request.GET.get("table") or "").strip()
    table = Table.objects.filter(code=code).first() if code else None
    if code and table is None:
        raise Http404(f"No table {code}")
    currency = (request.GET.get("currency") or "").strip().upper() or None
    if currency is not None and currency not in CURRENCIES:
        raise ValueError(f"{currency[:8]!r} is not a currency this casino knows.")
    return GgrQuery(start=start, end=end, table=table, currency=currency)


def _choices() -> dict:
    return {"tables": Table.objects.order_by("code"), "currencies": sorted(CURRENCIES)}


@require_GET
@permission_required("view_dashboard")
def ggr_page(request):
    try:
        query = _query(request)
    except ValueError as error:
        return render(request, "backoffice/ggr.html", _choices() | {"error": str(error)}, status=400)
    report = ggr.ggr_report(start=query.start, end=query.end, table=query.table, currency=query.currency)
    return render(request, "backoffice/ggr.html", _choices() | {
        "report": report, "query": query,
        "csv_url": f"{reverse('backoffice_ggr_csv')}?{urlencode(query.params())}",
    })


CSV_COLUMNS = ["section", "from", "to", "table", "bet_type", "currency", "rounds", "active_players", "cash_staked",
               "cash_returned", "ggr", "hold_percent", "golden_chips_staked", "golden_chips_returned"]


def csv_lines(report: ggr.GgrReport):
    """The page's rows in its order: totals, bet types, tables, days. Amounts in major units with a point, as
    accounting software imports them; the currency is its own column."""
    def amount(value: int, currency: str) -> str:
        return format_minor(value, currency, with_code=False, grouping=False)

    sections = (("total", report.totals), ("bet_type", report.bet_types), ("table", report.tables),
                ("day", report.days))
    for section, lines in sections:
        for line in lines:
            first, last = (line.day, line.day) if line.day else (report.start, report.end)
            yield [section, first.isoformat(), last.isoformat(), line.table.code if line.table else "",
                   line.bet_type or "", line.currency, line.rounds, line.active_players,
                   amount(line.staked, line.currency), amount(line.returned, line.currency),
                   amount(line.ggr, line.currency), "" if line.hold is None else f"{line.hold:.2f}",
                   amount(line.chips_staked, line.currency), amount(line.chips_returned, line.currency)]


@require_GET
@permission_required("view_dashboard")
def ggr_csv(request):
    """The page's rows as CSV, streamed (same period, table and currency)."""
    try:
        query = _query(request)
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain")
    report = ggr.ggr_report(start=query.start, end=query.end, table=query.table, currency=query.currency)

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def rows():
        yield writer.writerow(CSV_COLUMNS)
        for line in csv_lines(report):
            yield writer.writerow(line)

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    name = f"ggr-{query.start.isoformat()}-{query.end.isoformat()}"
    name += f"-{query.table.code}" if query.table else ""
    name += f"-{query.currency}" if query.currency else ""
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response
