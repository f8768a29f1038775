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
from responsible.errors import ResponsibleError
from responsible.jurisdictions import DEFAULTS, jurisdiction_ensure
from responsible.models import Jurisdiction, RegisterEntry
from responsible.overview import overview
from responsible.register import register_identity, register_lookup
from responsible.selectors import exclusions, limit_history, reality_answers
from wallet.selectors import player_get


def _player_or_404(user_id: int):
    player = player_get(user_id=user_id)
    if player is None or not player.has_perm("accounts.play"):
        raise Http404("No such player")
    return player


def _jurisdiction_choices():
    for code in DEFAULTS:
        jurisdiction_ensure(Jurisdiction, code)
    return [(j.code, f"{j.code} {j.name}") for j in Jurisdiction.objects.order_by("code")]


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
