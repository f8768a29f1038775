"""Logging out leaves the tables of that session: the dealer and the lobby stop showing the player there."""

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from players import services


@receiver(user_logged_out, dispatch_uid="players.presences_end_on_logout")
def presences_end_on_logout(sender, request, user, **kwargs) -> None:
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        services.presences_end_for_session(player=user, session_key=session_key)
