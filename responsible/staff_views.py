"""Support's pages (English, like the rest of the back office): a player's limits with their history, their
time-outs and exclusions, their jurisdiction; and the default national self-exclusion register. Every change
records a staff action with its reason."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.permissions import has_role_permission, permission_required, require_permission
from accounts.staffaudit import origin_from_request
from responsible import forms, services
from responsible.errors import JurisdictionRuleError, ResponsibleError
from responsible.jurisdictions import (
    RULE_NAMES,
    jurisdiction_ensure,
    rule_value_text,
    rules_change_sentences,
    rules_clean,
    rules_of,
)
from responsible.models import Jurisdiction, RegisterEntry
from responsible.overview import exclusion_end_overview, overview
from responsible.register import register_identity, register_lookup
from responsible.selectors import (
    exclusion_ends,
    exclusions,
    jurisdiction_history,
    jurisdictions_all,
    limit_history,
    reality_answers,
)
from wallet.selectors import player_get


def _player_or_404(user_id: int):
    player = player_get(user_id=user_id)
    if player is None or not player.has_perm("accounts.play"):
        raise Http404("No such player")
    return player


def _jurisdiction_choices():
    return [(j.code, f"{j.code} {j.name}") for j in jurisdictions_all()]


@require_http_methods(["GET", "POST"])
@permission_required("view_backoffice")
def player_responsible(request, user_id: int):
    player = _player_or_404(user_id)
    form = forms.JurisdictionForm(choices=_jurisdiction_choices())
    status = 200
    if request.method == "POST":
        require_permission(request.user, services.STAFF_PERMISSION)
        form = forms.JurisdictionForm(request.POST, choices=_jurisdiction_choices())
        if form.is_valid():
            try:
                services.jurisdiction_assign(player=player, code=form.cleaned_data["code"], actor=request.user,
                                             reason=form.cleaned_data["reason"], origin=origin_from_request(request))
            except ResponsibleError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, "Jurisdiction saved.")
                return redirect("responsible_support_player", user_id=player.pk)
        status = 400
    o = overview(player=player)
    return render(request, "responsible/support_player.html", {
        "player": player, "o": o, "history": limit_history(player=player), "exclusions": exclusions(player=player),
        "answers": reality_answers(player=player), "form": form,
        "ending": exclusion_end_overview(player=player, now=o.now), "ends": exclusion_ends(player=player),
        "end_form": forms.SupportExclusionEndForm(),
        "register": register_lookup(player, o.now), "identity": register_identity(player),
        "can_change": has_role_permission(request.user, services.STAFF_PERMISSION),
    }, status=status)


@require_http_methods(["GET", "POST"])
@permission_required(services.STAFF_PERMISSION)
def register_page(request):
    form = forms.RegisterAddForm(initial={"identity": request.GET.get("identity", "")[:150]})
    status = 200
    if request.method == "POST":
        form = forms.RegisterAddForm(request.POST)
        if form.is_valid():
            try:
                services.register_add(identity=form.cleaned_data["identity"], days=form.cleaned_data["days"],
                                      reason=form.cleaned_data["reason"], actor=request.user,
                                      origin=origin_from_request(request))
            except ResponsibleError as error:
                form.add_error(None, error.message)
            else:
                messages.success(request, f"{form.cleaned_data['identity']} added to the register.")
                return redirect("responsible_register")
        status = 400
    entries = RegisterEntry.objects.select_related("added_by", "removed_by").order_by("-id")[:200]
    return render(request, "responsible/register.html", {
        "form": form, "entries": entries, "remove_form": forms.ReasonForm(),
    }, status=status)


@require_POST
@permission_required(services.STAFF_PERMISSION)
def register_remove(request, entry_id: int):
    form = forms.ReasonForm(request.POST)
    if not form.is_valid():
        messages.error(request, "A removal needs a reason.")
    else:
        try:
            entry = services.register_remove(entry_id=entry_id, reason=form.cleaned_data["reason"],
                                             actor=request.user, origin=origin_from_request(request))
        except ResponsibleError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, f"{entry.identity} removed from the register.")
    return redirect(reverse("responsible_register"))


@require_POST
@permission_required(services.STAFF_PERMISSION)
def player_exclusion_end(request, user_id: int):
    """Support enters a player's written request to end their indefinite self-exclusion (or to withdraw one):
    a review says when it would take effect and who reads the reason; only the confirmation writes."""
    player = _player_or_404(user_id)
    back = reverse("responsible_support_player", args=[player.pk]) + "#ending-heading"
    form = forms.SupportExclusionEndForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was changed: " + "; ".join(
            f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()))
        return redirect(back)
    action, reason = form.cleaned_data["action"], form.cleaned_data["reason"]
    ending = exclusion_end_overview(player=player)
    if request.POST.get("step") != "confirm":
        refusal = ""
        if action == "request" and not ending.indefinite:
            refusal = "there is no indefinite self-exclusion to end."
        elif action == "request" and ending.pending:
            refusal = "an end is already waiting."
        elif action == "request" and not ending.allowed:
            refusal = f"the rules of {overview(player=player).jurisdiction.name} never end one on request."
        elif action == "withdraw" and not ending.pending:
            refusal = "no end is waiting."
        if refusal:
            messages.error(request, f"Nothing was changed: {refusal}")
            return redirect(back)
        return render(request, "responsible/exclusion_end_confirm.html", {
            "player": player, "action": action, "reason": reason.strip(), "ending": ending})
    try:
        if action == "request":
            [end, *_more] = services.exclusion_end_request(player=player, actor=request.user, reason=reason,
                                                          origin=origin_from_request(request))
            messages.success(request, f"Requested: the self-exclusion of {player.get_username()} ends at "
                                      f"{end.effective_at:%Y-%m-%d %H:%M} UTC.")
        else:
            services.exclusion_end_withdraw(player=player, actor=request.user, reason=reason,
                                            origin=origin_from_request(request))
            messages.success(request, f"Withdrawn: the self-exclusion of {player.get_username()} stays in force.")
    except ResponsibleError as error:
        messages.error(request, f"Nothing was changed: {error.message}")
    return redirect(back)


# ------------------------------------------------------------------------------------------ jurisdictions


@require_http_methods(["GET"])
@permission_required("view_backoffice")
def jurisdictions_page(request):
    return render(request, "responsible/jurisdictions.html", {
        "jurisdictions": [(j, _rule_lines(j)) for j in jurisdictions_all()],
        "can_change": has_role_permission(request.user, services.RULES_PERMISSION),
    })


def _rule_lines(jurisdiction) -> list[tuple[str, str]]:
    return [(RULE_NAMES[name], rule_value_text(name, value)) for name, value in rules_of(jurisdiction).items()]


def _jurisdiction_or_404(code: str) -> Jurisdiction:
    found = jurisdiction_ensure(Jurisdiction, code) if len(code) == 2 and code.isascii() and code.isalpha() else None
    if found is None:
        raise Http404("No such jurisdiction")
    return found


@require_http_methods(["GET", "POST"])
@permission_required("view_backoffice")
def jurisdiction_page(request, jurisdiction: str):
    """One jurisdiction's rules and their history; an operator changes them through a review (what changes,
    in sentences, and who reads the reason) and a confirmation, which alone saves."""
    jurisdiction = _jurisdiction_or_404(jurisdiction)
    can_change = has_role_permission(request.user, services.RULES_PERMISSION)
    form = forms.JurisdictionRulesForm(initial=forms.JurisdictionRulesForm.initial_for(jurisdiction))
    status = 200
    if request.method == "POST":
        require_permission(request.user, services.RULES_PERMISSION)
        form = forms.JurisdictionRulesForm(request.POST)
        step = request.POST.get("step")
        if form.is_valid() and step != "edit":
            try:
                if step != "confirm":
                    clean = rules_clean(jurisdiction.code, form.rules())
                    changes = rules_change_sentences(rules_of(jurisdiction), clean)
                    if not changes:
                        raise JurisdictionRuleError("Nothing to save: these are the rules in force. Change a rule "
                                                    "first.")
                    return render(request, "responsible/jurisdiction_confirm.html", {
                        "jurisdiction": jurisdiction, "form": form, "changes": changes,
                        "reason": form.cleaned_data["reason"].strip()})
                services.jurisdiction_rules_set(
                    actor=request.user, code=jurisdiction.code, values=form.rules(),
                    expected_version=form.cleaned_data["version"], reason=form.cleaned_data["reason"],
                    origin=origin_from_request(request))
            except JurisdictionRuleError as error:
                form.add_error(error.field if error.field in form.fields else None, error.message)
            else:
                messages.success(request, f"Rules of {jurisdiction.name} saved.")
                return redirect("responsible_jurisdiction", jurisdiction=jurisdiction.code)
        status = 400 if step != "edit" else 200
    return render(request, "responsible/jurisdiction.html", {
        "jurisdiction": jurisdiction, "form": form, "can_change": can_change, "rules": _rule_lines(jurisdiction),
        "history": [(change, rules_change_sentences(change.before, change.after))
                    for change in jurisdiction_history(code=jurisdiction.code)],
    }, status=status)
