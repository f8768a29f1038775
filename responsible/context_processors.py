"""The reality check on every player page: read only when the page shows it (a player's page), so staff pages and
players without reality checks pay one statement at most."""

from django.utils import timezone
from django.utils.functional import SimpleLazyObject


def _due(user):
    from responsible import checks, selectors

    now = timezone.now()
    state = selectors.player_state(player_id=user.pk, now=now)
    if not state.reality_check_minutes:
        return None
    session = selectors.play_session(player_id=user.pk, now=now)
    if not checks.reality_check_due(state, session, now=now):
        return None
    return {"minutes": int(session.played(now).total_seconds() // 60), "net": session.net()}


def reality_check(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not user.has_perm("accounts.play"):
        return {}
    return {"reality_check": SimpleLazyObject(lambda: _due(user) or {})}
