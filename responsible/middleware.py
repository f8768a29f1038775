"""Keeps an excluded player off the tables: a play page (settings.RESPONSIBLE_PLAY_PATHS) answers with the
responsible-gambling page instead. The exclusion is read again on each play page, so a time-out the player
starts while signed in applies at once; other pages (the wallet, to withdraw) stay open."""

from django.conf import settings
from django.shortcuts import redirect


class ExcludedPlayerMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if any(path.startswith(prefix) for prefix in settings.RESPONSIBLE_PLAY_PATHS):
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated and user.has_perm("accounts.play"):
                from responsible.signals import login_refusal

                if login_refusal(user):
                    return redirect("responsible_page")
        return self.get_response(request)
