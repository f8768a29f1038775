"""The player's own pages: settings, the tables they sit at, and tipping a dealer."""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors as account_selectors
from accounts.permissions import permission_required
from casino.api_errors import DomainError
from casino.formatting import money as money_text
from casino.reader_language import browser_language, in_reader_language, language_cookie_set
from players import help as table_help_text
from players import lobby, selectors, services
from players.errors import PlayerRequestError
from players.forms import SettingsForm, TipForm
from players.models import PresenceEnd
from rounds import selectors as round_selectors
from rounds import table_now
from rounds.presence import request_session
from tables import selectors as table_selectors
from tables.models import Table


def _session_key(request) -> str:
    return request_session(request)


@require_http_methods(["GET", "POST"])
@permission_required("play")
@in_reader_language
def player_settings(request):
    profile = selectors.player_profile(player=request.user)
    if request.method == "POST":
        form = SettingsForm(request.POST)
        if form.is_valid():
            try:
                services.player_settings_update(player=request.user, **form.cleaned_data)
            except PlayerRequestError as error:
                form.add_error(None, error.message)
            else:
                # The message is read on the next page, in the language just chosen.
                chosen = form.cleaned_data["language"]
                with translation.override(chosen or browser_language(request)):
                    messages.success(request, _("Settings saved. Every device you play on uses them."))
                response = redirect("player_settings")
                language_cookie_set(response, chosen)
                return response
        status = 400
    else:
        form = SettingsForm(initial={name: getattr(profile, name) for name in SettingsForm.base_fields})
        status = 200
    return render(request, "players/settings.html", {
        "form": form, "profile": profile,
        "login_records": account_selectors.login_records_recent(user=request.user),
        "api_tokens": account_selectors.api_tokens_of(user=request.user, active=True),
    }, status=status)


def _table_or_404(code: str) -> Table:
    try:
        return table_selectors.table_detail(code=code)
    except Table.DoesNotExist:
        raise Http404(f"No table {code}") from None


@permission_required("play")
@in_reader_language
def player_tables(request):
    rows = lobby.lobby(player=request.user, session_key=_session_key(request))
    return render(request, "players/tables.html", {"tables": rows})


def _table_context(request, table: Table, *, tip_form=None, tip_error=None):
    presence = selectors.presence_for_session(player=request.user, table=table, session_key=_session_key(request))
    if tip_form is None:
        tip_form = TipForm(currencies=table.currencies, initial={"idempotency_key": str(uuid.uuid4())})
    limits = [(limit.currency, money_text(limit.min, limit.currency), money_text(limit.max, limit.currency))
              for limit in table_selectors.table_bet_limits(table=table) if limit.bet_type == "tip"]
    paused = table_now.pause_notice(table=table, round=round_selectors.round_active_for_table(table=table))
    return {"table": table, "presence": presence, "paused": paused, "replaced": presence is not None
            and presence.end_reason == PresenceEnd.REPLACED, "tip_form": tip_form, "tip_error": tip_error,
            "tip_limits": limits}


@permission_required("play")
@in_reader_language
def player_table(request, code: str):
    table = _table_or_404(code)
    context = _table_context(request, table)
    if request.htmx:
        response = render(request, "players/_presence.html", context)
        if context["presence"] is None or not context["presence"].live:
            response.status_code = 286  # nothing left to watch: htmx stops polling
        return response
    return render(request, "players/table.html", context)


@require_POST
@permission_required("play")
@in_reader_language
def player_table_join(request, code: str):
    table = _table_or_404(code)
    try:
        services.table_join(player=request.user, table=table, session_key=_session_key(request))
    except PlayerRequestError as error:
        messages.error(request, error.message)
        return redirect("player_tables")
    return redirect("player_table", code=table.code)


@require_POST
@permission_required("play")
@in_reader_language
def player_table_leave(request, code: str):
    table = _table_or_404(code)
    if services.table_leave(player=request.user, table=table, session_key=_session_key(request)).left:
        messages.success(request, _("You left table %(code)s.") % {"code": table.code})
    return redirect("player_tables")


@require_POST
@permission_required("play")
@in_reader_language
def player_table_tip(request, code: str):
    table = _table_or_404(code)
    form = TipForm(request.POST, currencies=table.currencies)
    if not form.is_valid():
        return render(request, "players/table.html", _table_context(request, table, tip_form=form), status=400)
    data = form.cleaned_data
    try:
        txn = services.dealer_tip(player=request.user, table=table, session_key=_session_key(request),
                                  currency=data["currency"], amount=data["amount_minor"],
                                  idempotency_key=data["idempotency_key"])
    except DomainError as error:  # a refusal of the tip: players', the play gate's, the wallet's
        fresh = TipForm(currencies=table.currencies, initial={
            "currency": data["currency"], "amount": data["amount"], "idempotency_key": str(uuid.uuid4())})
        return render(request, "players/table.html",
                      _table_context(request, table, tip_form=fresh, tip_error=error.message),
                      status=error.http_status)
    amount = money_text(data["amount_minor"], data["currency"])
    if txn.replayed:
        messages.info(request, _("That tip was already given (%(amount)s); nothing moved twice.") % {"amount": amount})
    else:
        messages.success(request, _("Thank you! You tipped the dealer of %(code)s %(amount)s.") % {
            "code": table.code, "amount": amount})
    return redirect(reverse("player_table", args=[table.code]))


@login_required
@in_reader_language
def player_table_help(request, code: str):
    """The table's rules, paytables, limits and RTPs in the reader's language (any signed-in reader: support
    reads what the player reads)."""
    table = _table_or_404(code)
    language = translation.get_language()
    help = table_help_text.table_help(table=table, language=language)
    currencies = {}
    for limit in help["limits"]:
        currencies.setdefault(limit["currency"], []).append(limit)
    return render(request, "players/table_help.html", {
        "help": help, "table": table, "limits_by_currency": sorted(currencies.items()), "page_language": language,
    })
