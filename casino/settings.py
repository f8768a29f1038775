"""One settings file for every environment: development, tests and production differ only by environment values."""

from pathlib import Path

from casino.env import database_from_url, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("CASINO_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Only a DEBUG process may fall back to a throw-away key; production must be told its secret. Commands that sign
# nothing (replay_round, ledger_audit) still run without one: Django refuses an empty key the moment anything
# reads it, and the WSGI/ASGI application refuses to load without it, so a server never starts without one.
SECRET_KEY = env_str("SECRET_KEY", "insecure-development-key-never-in-production" if DEBUG else "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "accounts",
    "tables",
    "wallet",
    "rounds",
    "players",
    "backoffice",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.navigation",
            ],
            "libraries": {"casino_format": "casino.formatting"},
        },
    },
]

DATABASES = {"default": database_from_url(env_str("DATABASE_URL", "sqlite:///var/casino.sqlite3"), BASE_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's model backend and database sessions, each read with one plain statement (every API request does).
AUTHENTICATION_BACKENDS = ["accounts.backends.RoleBackend"]
SESSION_ENGINE = "accounts.sessions"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
if env_bool("FAST_PASSWORD_HASHER", False):
    # Tests only: PBKDF2 at production strength costs ~0.3 s per login.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"

SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# The web process and the worker must share the cache (task progress lives there).
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# Celery: Redis in CI and production; the file-system transport keeps `make run` free of services.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_broker_folder = str(VAR_DIR / "broker")
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"data_folder_in": _broker_folder, "data_folder_out": _broker_folder, "processed_folder": _broker_folder,
     "store_processed": False, "control_folder": str(VAR_DIR / "broker-control")}
    if CELERY_BROKER_URL.startswith("filesystem://")
    else {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600)}
)
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'celery-results'}")
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "casino")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.BasicAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "casino.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Live Blackjack back office API",
    "DESCRIPTION": "Studio, game-client and back-office API. Money is integer minor units.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from our own static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Periodic sweeps (celery beat). Each is also a service that tests and operators can call directly.
CELERY_BEAT_SCHEDULE = {
    # Betting, insurance and decision timers (seconds long) are applied within a second of running out.
    "rounds-timers": {"task": "rounds.tasks.rounds_timers_sweep", "schedule": 1.0},
    # Rounds a dead worker left settling or unrefunded are queued again; rounds at closed tables are voided.
    "rounds-recovery": {"task": "rounds.tasks.rounds_recovery_sweep", "schedule": 30.0},
    # Yesterday's (and recently reversed days') RTP totals for the dashboard and the RTP report.
    "backoffice-rtp-rollups": {"task": "backoffice.tasks.rtp_rollups_refresh", "schedule": 300.0},
}
