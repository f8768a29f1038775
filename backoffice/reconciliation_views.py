"""The finance pages of the daily reconciliation (wallet.reconciliation): the days of a period, each marked
as tying or not (and what does not), and the same figures as a streamed CSV. Operators only (view_dashboard)."""

from __future__ import annotations

import csv
from datetime import UTC, timedelta

from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from accounts.permissions import permission_required
from casino.query_params import date_param
from wallet.currencies import CURRENCIES, money_format
from wallet.reconciliation import ACCOUNT_KINDS, MOVEMENT_KINDS, MOVEMENT_LABELS, reconciliation_days

DEFAULT_DAYS = 31


def _period(request):
    """(start, end, currency) from ?from=&to=&currency=; the last DEFAULT_DAYS days to today without them.
    ValueError says what is wrong."""
    today = timezone.now().astimezone(UTC).date()
    end = date_param(request.GET.get("to"), "to") or today
    start = date_param(request.GET.get("from"), "from") or end - timedelta(days=DEFAULT_DAYS - 1)
    currency = request.GET.get("currency") or None
    if currency is not None and currency not in CURRENCIES:
        raise ValueError(f"currency must be one of {', '.join(sorted(CURRENCIES))}, not {currency[:10]!r}")
    return start, end, currency


@require_GET
@permission_required("view_dashboard")
def reconciliation(request):
    try:
        start, end, currency = _period(request)
        days = reconciliation_days(start=start, end=end, currency=currency)
    except ValueError as error:
        return render(request, "backoffice/reconciliation.html", {
            "error": str(error), "currencies": sorted(CURRENCIES), "currency": request.GET.get("currency", "")[:3],
        }, status=400)
    days.reverse()  # newest first, as finance closes them
    broken = [day for day in days if not day.ties]
    query = request.GET.urlencode()
    return render(request, "backoffice/reconciliation.html", {
        "days": days, "broken": broken, "start": start, "end": end, "currency": currency or "",
        "currencies": sorted(CURRENCIES), "account_kinds": ACCOUNT_KINDS, "movement_labels": MOVEMENT_LABELS,
        "csv_url": reverse("backoffice_reconciliation_csv") + (f"?{query}" if query else ""),
    })


CSV_COLUMNS = ["day", "currency", "account_kind", "opening", *MOVEMENT_KINDS, "closing", "day_ties", "problems"]


@require_GET
@permission_required("view_dashboard")
def reconciliation_csv(request):
    """One line per day, currency and account kind, oldest first; amounts in the currency's major unit, exact
    (no grouping), so a spreadsheet adds them to the minor unit."""
    try:
        start, end, currency = _period(request)
        days = reconciliation_days(start=start, end=end, currency=currency)
    except ValueError as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def lines():
        yield writer.writerow(CSV_COLUMNS)
        for day in days:
            def amount(value, cur=day.currency):
                return money_format(value, cur, with_code=False, grouping=False)

            problems = "; ".join(f"[{p.check}] {p.message}" for p in day.problems)
            for kind in day.kinds:
                yield writer.writerow([
                    day.day.isoformat(), day.currency, kind.kind, amount(kind.opening),
                    *(amount(kind.movements.get(m, 0)) for m in MOVEMENT_KINDS), amount(kind.closing),
                    "yes" if day.ties else "no", problems,
                ])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    suffix = f"-{currency}" if currency else ""
    response["Content-Disposition"] = (f'attachment; filename="reconciliation-{start.isoformat()}-to-'
                                       f'{end.isoformat()}{suffix}.csv"')
    return response
