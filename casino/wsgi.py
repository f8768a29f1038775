import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
application = get_wsgi_application()


# Read the key now so a server without SECRET_KEY fails at start-up, not at its first request.
from django.conf import settings  # noqa: E402

settings.SECRET_KEY  # noqa: B018
