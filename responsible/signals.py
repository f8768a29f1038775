"""At sign-in a player is looked up in the national self-exclusion register and in their own exclusions: an
excluded player is signed in only to withdraw (responsible.middleware keeps them off the tables), and told so."""

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.permissions import is_staff_user
from responsible import checks, selectors
from responsible.errors import Excluded, RegisterUnavailable

SESSION_KEY = "responsible_excluded"


@receiver(user_logged_in, dispatch_uid="responsible_login")
def _logged_in(sender, request, user, **kwargs):
    if request is None or is_staff_user(user):
        return
    refusal = login_refusal(user)
    if refusal:
        request.session[SESSION_KEY] = refusal
        if hasattr(request, "_messages"):
            messages.warning(request, refusal)
    else:
        request.session.pop(SESSION_KEY, None)


def login_refusal(player) -> str:
    """Why this player may not play now (empty: they may)."""
    now = timezone.now()
    state = selectors.player_state(player_id=player.pk, now=now)
    zone = selectors.jurisdiction_get(state.jurisdiction_code).time_zone
    try:
        checks._excluded_refuse(state, doing=_("play"), time_zone=zone)
        checks.register_refuse(player, now=now, doing=_("play"), time_zone=zone)
    except (Excluded, RegisterUnavailable) as refusal:
        return refusal.message
    return ""
