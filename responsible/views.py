"""The player's responsible-gambling page (/me/responsible/), in English or Swedish: limits with their pending
changes, the reality check, a time-out or self-exclusion. Each form posts here and calls one service."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import permission_required
from casino.reader_language import UnknownLanguage, language_of, remember_language
from responsible import forms, services
from responsible.errors import ResponsibleError
from responsible.overview import exclusion_end_overview, overview
from responsible.selectors import exclusions, limit_history, player_jurisdiction
from wallet.currencies import money_parse
from wallet.errors import WalletError
from wallet.selectors import player_accounts

ACTIONS = {
    "money_limit": forms.MoneyLimitForm,
    "session_limit": forms.SessionLimitForm,
    "reality_check": forms.RealityCheckForm,
    "time_out": forms.TimeOutForm,
    "self_exclusion": forms.SelfExclusionForm,
    "exclusion_end": forms.ExclusionEndForm,
    "exclusion_end_withdraw": forms.ExclusionEndWithdrawForm,
}


def _apply(request, action: str, data: dict) -> str:
    """Run the action's service; returns what to tell the player."""
    player = request.user
    if action == "money_limit":
        amount = money_parse(data["amount"], data["currency"]) if data["amount"].strip() else None
        change = services.limit_set(player=player, kind=data["kind"], period=data["period"],
                                    currency=data["currency"], value=amount)
    elif action == "session_limit":
        change = services.limit_set(player=player, kind="session", value=data["minutes"])
    elif action == "reality_check":
        services.reality_check_set(player=player, minutes=int(data["interval"]) if data["interval"] else None)
        return _("Reality check saved.")
    elif action == "time_out":
        services.exclusion_start(player=player, kind="time_out", days=data["days"])
        return _("Your time-out has started. You can still withdraw your balance.")
    elif action == "exclusion_end":
        [end, *_more] = services.exclusion_end_request(player=player)
        return _("Asked. Your self-exclusion stays in force until %(when)s; then it ends.") % {
            "when": _local(end.effective_at)}
    elif action == "exclusion_end_withdraw":
        services.exclusion_end_withdraw(player=player)
        return _("Withdrawn: your self-exclusion stays in force until further notice.")
    else:
        services.exclusion_start(player=player, kind="self_exclusion",
                                 days=int(data["days"]) if data["days"] else None)
        return _("Your self-exclusion has started. You can still withdraw your balance.")
    if change.effective_at > change.requested_at:
        return _("Saved. A higher limit or no limit takes effect after the cooling-off period, at %(when)s.") % {
            "when": _local(change.effective_at)}
    return _("Saved: the new limit applies now.")


def _local(moment) -> str:
    return f"{timezone.localtime(moment):%Y-%m-%d %H:%M} ({timezone.get_current_timezone_name()})"


@require_http_methods(["GET", "POST"])
@permission_required("play")
def responsible_page(request):
    try:
        language = language_of(request)
    except UnknownLanguage as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")
    # Times in the player's jurisdiction's zone: its days, weeks and months are the ones the limits count.
    zone = player_jurisdiction(player=request.user).time_zone
    with translation.override(language), timezone.override(zone):
        bound, status = {}, 200
        if request.method == "POST":
            action = request.POST.get("action", "")
            if action not in ACTIONS:
                return HttpResponseBadRequest("Unknown action.", content_type="text/plain; charset=utf-8")
            form = ACTIONS[action](request.POST)
            if form.is_valid():
                try:
                    messages.success(request, _apply(request, action, form.cleaned_data))
                except (ResponsibleError, WalletError) as error:
                    form.add_error(None, error.message)
                else:
                    return redirect(f"{request.path}?lang={language}")
            bound, status = {action: form}, 400
        # The player's own currencies come first in the limit form (EUR for a player with no account yet).
        currencies = [a.currency for a in player_accounts(player=request.user)] or ["EUR"]
        page_forms = {name: bound.get(name) or cls(initial={"currency": currencies[0]})
                      for name, cls in ACTIONS.items()}
        response = render(request, "responsible/page.html", {
            "o": overview(player=request.user), "forms": page_forms, "page_language": language,
            "history": limit_history(player=request.user)[:50], "exclusions": exclusions(player=request.user),
            "ending": exclusion_end_overview(player=request.user),
        }, status=status)
    remember_language(request, response)
    response.headers["Content-Language"] = language
    return response


@require_POST
@permission_required("play")
def reality_check_answer(request):
    choice = request.POST.get("choice", "")
    try:
        services.reality_check_answer(player=request.user, choice=choice)
    except ResponsibleError as error:
        return HttpResponseBadRequest(error.message, content_type="text/plain; charset=utf-8")
    if choice == "stop":
        logout(request)
        return redirect("login")
    return redirect("responsible_page")
