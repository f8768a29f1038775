"""The back office pages, for staff only: support's search, round, player and transaction pages; the operator's
dashboard and RTP report (a player's own pages are players'). One view renders a page or, for htmx, the fragment it asks for; every link
keeps a real href, so each page works without JavaScript too."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib import messages
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from accounts import selectors as account_selectors
from accounts.permissions import has_role_permission, permission_required
from accounts.staffaudit import origin_from_request
from backoffice import charts, reports, selectors
from casino.idempotency import IdempotencyConflict
from casino.query_params import cursor_param, date_param
from casino.review_token import CHANGED, review_matches, review_token
from players import selectors as player_selectors
from players import services as player_services
from players.errors import PlayerRequestError
from players.forms import ChatForm, NoteForm
from players.game_views import game_history_csv, period_of
from responsible.checks import promotion_refusal
from responsible.errors import PromotionRefused
from responsible.selectors import player_jurisdiction
from rounds import game_history
from rounds import services as round_services
from rounds.audit_words import event_lines
from rounds.errors import RoundError
from rounds.models import RoundState
from rounds.round_page import round_cards, round_spots_page, shoe_history
from rounds.round_summary import round_summary
from tables.models import Table
from wallet import selectors as wallet_selectors
from wallet import services as wallet_services
from wallet.currencies import money_format
from wallet.errors import WalletError
from wallet.forms import GoldenChipGrantConfirmForm, GoldenChipGrantForm
from wallet.keys import client_key
from wallet.models import AccountKind

PLAYER_PAGE_ROWS = 10


def _bad(message: str):
    return HttpResponseBadRequest(message, content_type="text/plain")


# --- search --------------------------------------------------------------------------------------------------

@require_GET
@permission_required("view_backoffice")
def search(request):
    """Finding a round, player or transaction is a read, like the pages it leads to: every member of staff who may
    read the back office (operators too, whose round pages' breadcrumbs link here) may search it."""
    result = selectors.search(query=request.GET.get("q", ""))
    if result.redirect_to:
        name, args = result.redirect_to
        return redirect(name, *args)
    status = 404 if result.query and result.empty else 200
    return render(request, "backoffice/search.html", {"result": result}, status=status)


# --- the round page ----------------------------------------------------------------------------------------

def _round_or_404(game_number: str):
    from rounds.selectors import round_by_game_number

    round = round_by_game_number(game_number=game_number)
    if round is None:
        raise Http404(f"No round has the game number {game_number}")
    return round


def _void_context(request, round, **extra):
    allowed = has_role_permission(request.user, "void_rounds")
    context = {"round": round, "can_void": allowed, "reversal": round.state == RoundState.SETTLED}
    if round.state == RoundState.VOIDED:
        context["progress"] = selectors.round_void_progress(round=round)
    return context | extra


@require_GET
@permission_required("view_backoffice")
def round_page(request, game_number: str):
    round = _round_or_404(game_number)
    try:
        spots_after = cursor_param(request, "spots_after")
        events_after = cursor_param(request, "events_after")
    except ValueError as error:
        return _bad(str(error))
    base = reverse("backoffice_round", args=[round.game_number])
    if request.htmx and spots_after is not None:
        spots, next_spots = round_spots_page(round=round, after=spots_after)
        return render(request, "rounds/_round_spots.html", {
            "round": round, "spots": spots, "staff": True,
            "more_spots_url": f"{base}?{urlencode({'spots_after': next_spots})}" if next_spots else None})
    if request.htmx and events_after is not None:
        events, next_events = selectors.round_events_page(round=round, after=events_after)
        return render(request, "backoffice/_round_events.html", {
            "events": event_lines(round_id=round.pk, events=events),
            "more_events_url": f"{base}?{urlencode({'events_after': next_events})}" if next_events else None})
    spots, next_spots = round_spots_page(round=round, after=spots_after)
    events, next_events = selectors.round_events_page(round=round, after=events_after)
    return render(request, "backoffice/round.html", _void_context(request, round) | {
        "config": selectors.round_config_summary(round),
        "cards": round_cards(round), "shoes": shoe_history(round=round),
        "spots": spots, "staff": True,
        "more_spots_url": f"{base}?{urlencode({'spots_after': next_spots})}" if next_spots else None,
        "events": event_lines(round_id=round.pk, events=events),
        "more_events_url": f"{base}?{urlencode({'events_after': next_events})}" if next_events else None,
        "transactions": selectors.round_transactions(round=round),
        "summary": round_summary(round=round),
        "first_page": spots_after is None and events_after is None,
    })


@require_POST
@permission_required("void_rounds")
def round_void(request, game_number: str):
    """Two steps, like the cashier: the reason, then a confirmation that shows what goes back to whom. The
    review carries the state it was made for; if the round moved on meanwhile, the confirmation is refused."""
    round = _round_or_404(game_number)
    reason = request.POST.get("reason", "").strip()
    template = "backoffice/_void.html" if request.htmx else "backoffice/void_confirm.html"
    if not reason:
        return render(request, template, _void_context(request, round, error="Give a reason: it is recorded in "
                                                       "the audit trail and shown to the players."), status=400)
    if len(reason) > round_services.REASON_MAX_LENGTH:
        return render(request, template, _void_context(
            request, round, error=f"A reason has at most {round_services.REASON_MAX_LENGTH} characters."),
            status=400)
    preview = selectors.round_void_preview(round=round)
    action = reverse("backoffice_round_void", args=[round.game_number])
    # What the review showed: the round's state, the reason and the stakes that go back (a bet placed since, or
    # a round that moved on, is another review).
    reviewed = {"round": round.pk, "state": round.state, "reason": reason, "stakes": preview["stakes"],
                "bets": preview["bets"]}
    token = review_token(user=request.user, action=action, reviewed=reviewed)
    if request.POST.get("step") != "confirm":
        return render(request, template, _void_context(
            request, round, confirm=True, reason=reason, preview=preview, review=token))
    if not review_matches(token=request.POST.get("review"), user=request.user, action=action, reviewed=reviewed):
        moved = request.POST.get("expected_state") not in (None, round.state)
        return render(request, template, _void_context(
            request, round, confirm=round.state != RoundState.VOIDED, reason=reason, preview=preview,
            review=token, error=(f"The round is now {round.get_state_display().lower()}: review it again."
                                 if moved else CHANGED)), status=409)
    try:
        if round.state == RoundState.SETTLED:
            round_services.round_reverse(round_id=round.pk, actor=request.user, reason=reason,
                                         origin=origin_from_request(request))
        else:
            round_services.round_void(round_id=round.pk, actor=request.user, reason=reason,
                                      origin=origin_from_request(request))
    except RoundError as error:
        return render(request, template, _void_context(request, round, error=error.message),
                      status=error.http_status)
    round.refresh_from_db()
    if request.htmx:
        return render(request, "backoffice/_void.html", _void_context(request, round))
    if round.void_kind == "reversal":
        messages.success(request, f"Round {round.game_number} reversed: every payout taken back and every stake "
                                  "given back (the void box below lists what each player gave back or got back).")
    else:
        messages.success(request, f"Round {round.game_number} voided; the stakes are being refunded.")
    return redirect("backoffice_round", game_number=round.game_number)


@require_POST
@permission_required("void_rounds")
def round_attention_retry(request, game_number: str):
    """Staff fixed what stopped the worker: retry the round's settlement (or refunds), with a reason."""
    round = _round_or_404(game_number)
    reason = request.POST.get("reason", "").strip()
    try:
        round_services.round_attention_retry(round_id=round.pk, actor=request.user, reason=reason,
                                             origin=origin_from_request(request))
    except RoundError as error:
        messages.error(request, error.message)
        return redirect("backoffice_round", round.game_number)
    messages.success(request, f"Round {round.game_number} is queued again for the worker; this page shows the "
                     "outcome in a few seconds.")
    return redirect("backoffice_round", round.game_number)


@require_GET
@permission_required("view_backoffice")
def round_void_progress(request, game_number: str):
    round = _round_or_404(game_number)
    response = render(request, "backoffice/_void.html", _void_context(request, round))
    if request.htmx and round.refunds_done_at is not None:
        response.status_code = 286  # refunds done: htmx stops polling
    return response


# --- the player page (staff) -------------------------------------------------------------------------------

def _player_or_404(user_id: int):
    player = selectors.player_get(user_id=user_id)
    if player is None:
        raise Http404("No such player")
    return player


@require_GET
@permission_required("view_backoffice")
def player_page(request, user_id: int):
    player = _player_or_404(user_id)
    try:
        games_before = cursor_param(request, "games_before")
        start, since, until = period_of(request)
    except ValueError as error:
        return _bad(str(error))
    base = reverse("backoffice_player", args=[player.pk])
    kept = {k: v for k, v in {"from": since.isoformat() if since else "",
                              "to": until.isoformat() if until else ""}.items() if v}
    games = game_history.player_game_history(player=player, before=games_before if games_before else start,
                                             limit=PLAYER_PAGE_ROWS, since=since)
    csv_url = reverse("backoffice_player_games_csv", args=[player.pk])
    games_context = {
        "games": games, "staff": True, "since": since, "until": until, "period": bool(kept),
        "games_csv_url": f"{csv_url}?{urlencode(kept)}" if kept else csv_url,
        "games_totals": game_history.period_totals(player=player, before=start, since=since) if kept else None,
        "older_games_url": (f"{base}?{urlencode(kept | {'games_before': games.next_before})}" if games.next_before
                            else None),
    }
    if request.htmx and games_before is not None:
        return render(request, "players/_game_rows.html", games_context)
    accounts = wallet_selectors.player_accounts(player=player)
    jurisdiction = player_jurisdiction(player=player)
    histories = [(account, wallet_selectors.account_history(account=account, limit=PLAYER_PAGE_ROWS))
                 for account in accounts]
    return render(request, "backoffice/player.html", games_context | {
        "player": player, "accounts": accounts, "histories": histories,
        "profile": player_selectors.player_profile(player=player),
        "notes": player_selectors.player_notes(player=player),
        "presences": player_selectors.player_presences_live(player=player),
        "open_rounds": selectors.player_open_rounds(player=player),
        "grants": selectors.player_golden_chip_grants(player=player),
        "login_records": account_selectors.login_records_recent(user=player, limit=15),
        "api_tokens": account_selectors.api_tokens_of(user=player, active=True),
        "password_change_demanded": account_selectors.password_change_demanded(user=player),
        "can_moderate": has_role_permission(request.user, "lookup_players"),
        "can_grant": has_role_permission(request.user, "grant_golden_chips"),
        "promotions_jurisdiction": jurisdiction,
        "promotion_refusal": promotion_refusal(player=player, now=timezone.now(), jurisdiction=jurisdiction),
        "note_form": NoteForm(), "chat_form": ChatForm(),
        "grant_form": GoldenChipGrantForm(initial={
            "currency": accounts[0].currency if accounts else "EUR", "idempotency_key": str(uuid.uuid4())}),
    })


@require_GET
@permission_required("view_backoffice")
def player_games_csv(request, user_id: int):
    """The player's games (of the period asked, or all) as the player downloads them."""
    player = _player_or_404(user_id)
    try:
        start, since, _until = period_of(request)
    except ValueError as error:
        return _bad(str(error))
    return game_history_csv(player=player, before=start, since=since)


@require_POST
@permission_required("lookup_players")
def player_note(request, user_id: int):
    player = _player_or_404(user_id)
    form = NoteForm(request.POST)
    if form.is_valid():
        try:
            player_services.player_note_add(player=player, author=request.user, body=form.cleaned_data["body"],
                                            origin=origin_from_request(request))
        except PlayerRequestError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, "Note added.")
    else:
        messages.error(request, "; ".join(e for errors in form.errors.values() for e in errors))
    return redirect(reverse("backoffice_player", args=[player.pk]) + "#notes-heading")


@require_POST
@permission_required("lookup_players")
def player_chat(request, user_id: int):
    player = _player_or_404(user_id)
    form = ChatForm(request.POST)
    if not form.is_valid():
        messages.error(request, "; ".join(e for errors in form.errors.values() for e in errors))
    else:
        data = form.cleaned_data
        try:
            if data["action"] == "disable":
                player_services.player_chat_disable(player=player, staff=request.user, reason=data["reason"],
                                                    origin=origin_from_request(request))
                messages.success(request, f"Chat disabled for {player.get_username()}.")
            else:
                player_services.player_chat_enable(player=player, staff=request.user, reason=data["reason"],
                                                   origin=origin_from_request(request))
                messages.success(request, f"Chat enabled for {player.get_username()}.")
        except PlayerRequestError as error:
            messages.error(request, error.message)
    return redirect(reverse("backoffice_player", args=[player.pk]) + "#chat-heading")


def _grant_action(player) -> str:
    return reverse("backoffice_player_golden_chips", args=[player.pk])


def _grant_reviewed(player, data) -> dict:
    return {"player": player.pk, "currency": data["currency"], "amount": data["amount_minor"],
            "reason": data["reason"].strip(), "key": data["idempotency_key"]}


def _grant_review(request, player, data, *, error: str = ""):
    """The grant as it will be made (the amount read back in words), with the token of exactly this review."""
    return render(request, "backoffice/grant_confirm.html", {
        "player": player, "currency": data["currency"], "amount_minor": data["amount_minor"],
        "amount": money_format(data["amount_minor"], data["currency"]),
        "amount_text": data.get("amount") or money_format(data["amount_minor"], data["currency"], with_code=False),
        "reason": data["reason"], "idempotency_key": data["idempotency_key"], "error": error,
        "review": review_token(user=request.user, action=_grant_action(player),
                               reviewed=_grant_reviewed(player, data)),
        "chips_now": wallet_selectors.player_balance(player=player, currency=data["currency"],
                                                     kind=AccountKind.PLAYER_GOLDEN_CHIPS),
    }, status=409 if error else 200)


@require_POST
@permission_required("grant_golden_chips")
def player_golden_chips(request, user_id: int):
    """Two steps, like the cashier: the form is read back as the amount it means, and only the confirmed review
    (carrying the form's idempotency key) moves money."""
    player = _player_or_404(user_id)
    back = reverse("backoffice_player", args=[player.pk]) + "#grants-heading"
    if request.POST.get("step") != "confirm":
        form = GoldenChipGrantForm(request.POST)
        if not form.is_valid():
            messages.error(request, "Nothing was granted: " + "; ".join(
                e for errors in form.errors.values() for e in errors))
            return redirect(back)
        # The jurisdiction's promotions rule, said before the review (the grant decides again under its lock).
        refusal = promotion_refusal(player=player, now=timezone.now())
        if refusal:
            messages.error(request, f"Nothing was granted: {refusal}")
            return redirect(back)
        return _grant_review(request, player, form.cleaned_data)
    confirm = GoldenChipGrantConfirmForm(request.POST)
    if not confirm.is_valid():
        messages.error(request, "Nothing was granted: " + "; ".join(
            e for errors in confirm.errors.values() for e in errors))
        return redirect(back)
    data = confirm.cleaned_data
    if not review_matches(token=request.POST.get("review"), user=request.user, action=_grant_action(player),
                          reviewed=_grant_reviewed(player, data)):
        return _grant_review(request, player, data, error=CHANGED)
    try:
        wallet_services.golden_chips_grant(
            player=player, currency=data["currency"], amount=data["amount_minor"], staff=request.user,
            reason=data["reason"], idempotency_key=client_key(
                user=request.user, operation="golden_chips_grant", key=data["idempotency_key"]),
            origin=origin_from_request(request))
    except (WalletError, IdempotencyConflict, PromotionRefused) as error:
        messages.error(request, f"Nothing was granted: {error.message}")
    else:
        messages.success(request, f"{money_format(data['amount_minor'], data['currency'])} in Golden Chips "
                                  f"granted to {player.get_username()}.")
    return redirect(back)


@require_GET
@permission_required("view_backoffice")
def transaction_page(request, transaction_id: int):
    detail = selectors.transaction_detail(transaction_id=transaction_id)
    if detail is None:
        raise Http404("No such transaction")
    return render(request, "backoffice/transaction.html", detail)


# --- operators -----------------------------------------------------------------------------------------------

@require_GET
@permission_required("view_dashboard")
def dashboard(request):
    period, since, now = reports.period_bounds(request.GET.get("period"))
    rtp_rows = reports.rtp_report(since=since, until=now)
    context = {
        "now": now, "period": period, "period_label": reports.PERIODS[period][0], "periods": reports.PERIODS,
        "tables": reports.open_tables(now=now),
        "last_hour": reports.rounds_last_hour(now=now),
        "money": reports.money_by_table(rows=rtp_rows),
        "waiting": reports.rounds_waiting_settlement(now=now),
        "attention": reports.rounds_needing_attention(),
        "voided": reports.rounds_voided(since=since),
        "stranded": reports.stranded_money(now=now),
        "rtp_alerts": reports.rtp_alerts_open(),
        "rtp_rows": [row for row in rtp_rows if row.bet_type == "main"],
    }
    if request.htmx:
        return render(request, "backoffice/_dashboard.html", context)
    return render(request, "backoffice/dashboard.html", context)


def _rtp_query(request):
    """The report's period and table from the query string: (start, end, since, until, table, error)."""
    from datetime import UTC, time, timedelta

    from django.utils import timezone

    start, end = date_param(request.GET.get("from"), "from"), date_param(request.GET.get("to"), "to")
    end = end or timezone.now().astimezone(UTC).date()
    start = start or end - timedelta(days=29)
    error = "The period starts after it ends." if start > end else ""
    since = datetime.combine(start, time.min, tzinfo=UTC)
    until = datetime.combine(end + timedelta(days=1), time.min, tzinfo=UTC)
    code = request.GET.get("table") or ""
    table = Table.objects.filter(code=code).first() if code else None
    if code and table is None:
        raise Http404(f"No table {code}")
    return start, end, since, until, table, error


@require_GET
@permission_required("view_dashboard")
def rtp_report(request):
    from datetime import timedelta

    try:
        start, end, since, until, table, error = _rtp_query(request)
    except ValueError as error:
        return render(request, "backoffice/rtp.html", {"error": str(error), "tables": Table.objects.all(),
                                                        "bet_types": reports.BET_TYPES}, status=400)
    rows = [] if error else reports.rtp_report(since=since, until=until, table=table)
    bet_type = request.GET.get("bet") or "main"
    currency = request.GET.get("currency") or ""
    if bet_type not in reports.BET_TYPES:
        error = f"Unknown bet type {bet_type!r}."
    candidates = [r for r in rows if r.bet_type == bet_type and (not currency or r.currency == currency)]
    chart_row = max(candidates, key=lambda r: r.rounds) if candidates else None
    currency = currency or (chart_row.currency if chart_row else "")
    daily = funnel = None
    if chart_row is not None:
        shown = [table] if table else sorted({r.table for r in candidates if r.currency == currency},
                                             key=lambda t: t.code)
        lines = [(t, reports.rtp_series(table=t, bet_type=bet_type, currency=currency, since=since,
                                        until=until)[0]) for t in shown]
        daily = charts.daily_chart(lines, since=since, until=until, hourly=until - since <= timedelta(days=2))
        funnel = charts.funnel_chart([r for r in candidates if r.currency == currency], lines)
    query = request.GET.urlencode()
    return render(request, "backoffice/rtp.html", {
        "rows": rows, "start": start, "end": end, "table": table, "tables": Table.objects.order_by("code"),
        "bet_type": bet_type, "bet_types": reports.BET_TYPES, "currency": currency, "chart_row": chart_row,
        "daily": daily, "funnel": funnel, "error": error, "hourly": until - since <= timedelta(days=2),
        "csv_url": f"{reverse('backoffice_rtp_csv')}?{query}" if query else reverse("backoffice_rtp_csv"),
    }, status=400 if error else 200)


RTP_CSV_COLUMNS = ["table", "bet_type", "currency", "rounds", "bets", "effective_bets", "initial_staked",
                   "total_staked", "total_returned", "observed_rtp", "theoretical_rtp", "band_95_low",
                   "band_95_high", "band_997_low", "band_997_high", "verdict"]


@require_GET
@permission_required("view_dashboard")
def rtp_report_csv(request):
    """The report's rows as shown (same period and table), streamed; amounts in minor units, RTPs as fractions."""
    import csv

    from django.http import StreamingHttpResponse

    try:
        _start, _end, since, until, table, error = _rtp_query(request)
    except ValueError as error:
        return HttpResponseBadRequest(str(error))
    if error:
        return HttpResponseBadRequest(error)
    rows = reports.rtp_report(since=since, until=until, table=table)

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def fraction(value):
        return "" if value is None else f"{value:.6f}"

    def lines():
        yield writer.writerow(RTP_CSV_COLUMNS)
        for r in rows:
            # As the page shows them: no band before there are enough bets to judge.
            band = r.band if r.band and r.enough else (None, None)
            wide = r.band_997 if r.band_997 and r.enough else (None, None)
            yield writer.writerow([r.table.code, r.bet_type, r.currency, r.rounds, r.bets, f"{r.effective_bets:.1f}",
                                   r.initial, r.staked, r.returned, fraction(r.observed), fraction(r.theoretical),
                                   fraction(band[0]), fraction(band[1]), fraction(wide[0]), fraction(wide[1]),
                                   r.verdict])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="rtp-report.csv"'
    return response
