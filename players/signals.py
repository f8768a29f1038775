"""Logging out leaves the tables of that session, and a table that closes has nobody left at it: the dealer,
the lobby and support stop showing the player there."""

from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver

from players import services
from tables.signals import table_closed


@receiver(user_logged_out, dispatch_uid="players.presences_end_on_logout")
def presences_end_on_logout(sender, request, user, **kwargs) -> None:
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is not None and session_key:
        services.presences_end_for_session(player=user, session_key=session_key)


@receiver(table_closed, dispatch_uid="players.presences_end_on_table_close")
def presences_end_on_table_close(sender, table, at, **kwargs) -> None:
    services.presences_end_at_table(table=table, now=at)
