"""Changing one's own password, and support giving a player a temporary one."""

from django.contrib import messages
from django.contrib.auth import get_user_model, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors, services
from accounts.middleware import PASSWORD_CHANGE_KEY
from accounts.permissions import has_role_permission, permission_required
from accounts.staffaudit import origin_from_request


@login_required
@require_http_methods(["GET", "POST"])
def password_change(request):
    form = PasswordChangeForm(request.user, request.POST or None)
    required = bool(request.session.get(PASSWORD_CHANGE_KEY))
    if request.method == "POST" and form.is_valid():
        services.password_change(user=request.user, password=form.cleaned_data["new_password1"])
        # This session stays signed in; every other one of this user ends at its next request.
        update_session_auth_hash(request, request.user)
        request.session.pop(PASSWORD_CHANGE_KEY, None)
        messages.success(request, "Password changed. You stay signed in here; every other device was signed out.")
        return redirect("player_settings" if has_role_permission(request.user, "play") else "home")
    return render(request, "accounts/password_change.html", {"form": form, "required": required},
                  status=400 if request.method == "POST" else 200)


@never_cache
@require_POST
@permission_required("lookup_players")
def player_password_reset(request, user_id: int):
    player = get_object_or_404(get_user_model(), pk=user_id)
    try:
        temporary = services.password_reset_temporary(actor=request.user, player=player,
                                                      reason=request.POST.get("reason", ""),
                                                      origin=origin_from_request(request))
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
        return redirect("backoffice_player", user_id=player.pk)
    return render(request, "accounts/password_reset_done.html", {"player": player, "temporary": temporary,
                                                                 "demanded": selectors.password_change_demanded(
                                                                     user=player)})


@require_POST
@permission_required("lookup_players")
def player_api_tokens_revoke(request, user_id: int):
    player = get_object_or_404(get_user_model(), pk=user_id)
    revoked = sum(services.api_token_revoke(actor=request.user, token=token)
                  for token in selectors.api_tokens_of(user=player) if token.revoked_at is None)
    messages.success(request, f"{revoked} API key{'s' if revoked != 1 else ''} of {player.get_username()} revoked.")
    return redirect("backoffice_player", user_id=player.pk)
