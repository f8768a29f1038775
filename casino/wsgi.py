import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

# Bets go through a shorter middleware chain, every other request through Django's full one (casino.hot_path),
# imported once get_wsgi_application has set Django up.
_full = get_wsgi_application()

from casino.hot_path import Application  # noqa: E402

application = Application(_full)


# Read the key now so a server without SECRET_KEY fails at start-up, not at its first request.
from django.conf import settings  # noqa: E402

settings.SECRET_KEY  # noqa: B018
