"""One settings file for every environment: development, tests and production differ only by environment values."""

from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF

from casino.env import database_from_url, env_bool, env_int, env_list, env_rate, env_str
from casino.worker_process import long_queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("CASINO_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
# Only a DEBUG process may fall back to a throw-away key; production must be told its secret. Commands that sign
# nothing (replay_round, ledger_audit) still run without one: Django refuses an empty key the moment anything
# reads it, and the WSGI/ASGI application refuses to load without it, so a server never starts without one.
SECRET_KEY = env_str("SECRET_KEY", "insecure-development-key-never-in-production" if DEBUG else "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# How many proxies of ours stand in front of the server, each appending to X-Forwarded-For. 0: the header is
# the client's own words and is ignored; the client's address is REMOTE_ADDR (accounts.staffaudit).
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: `runserver` leaves static files to WhiteNoise too, so DEBUG and production serve alike.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "axes",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "accounts",
    "tables",
    "wallet",
    "rounds",
    "players",
    "chat",
    "backoffice",
    "responsible",
]

MIDDLEWARE = [
    # The headers first, so that every answer carries them, the guard's refusals included.
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "casino.request_guard.ControlCharacterMiddleware",
    # Static files after the headers and the guard, before sessions and sign-in: a stylesheet carries the same
    # protections as a page and costs no session read and no statement.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    # Both read only the session (loaded already): no statement of their own on a request.
    "accounts.middleware.SessionAgeMiddleware",
    "accounts.middleware.LoginStepsMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Only on the play pages (one read there): an excluded player is sent to the responsible-gambling page.
    "responsible.middleware.ExcludedPlayerMiddleware",
    "casino.ratelimit.LoginRateLimitMiddleware",
    # Last, as django-axes asks: it turns a lockout flagged during authenticate() into the lockout page.
    "axes.middleware.AxesMiddleware",
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
                "responsible.context_processors.reality_check",
            ],
            "libraries": {"casino_format": "casino.formatting"},
        },
    },
]

DATABASES = {"default": database_from_url(env_str("DATABASE_URL", "sqlite:///var/casino.sqlite3"), BASE_DIR)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's model backend and database sessions, each read with one plain statement (every API request does).
# django-axes comes first: it refuses a locked-out username or address before any password is checked. It
# authenticates no one, so sessions name RoleBackend (ROLE_BACKEND) and are read by it.
ROLE_BACKEND = "accounts.backends.RoleBackend"
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", ROLE_BACKEND]
SESSION_ENGINE = "accounts.sessions"

# Sessions: an idle staff session ends after SESSION_IDLE_STAFF_SECONDS without a request, a player's after
# SESSION_IDLE_PLAYER_SECONDS, and any session SESSION_MAX_AGE_SECONDS after its login, however busy.
SESSION_IDLE_STAFF_SECONDS = env_int("SESSION_IDLE_STAFF_SECONDS", 30 * 60)
SESSION_IDLE_PLAYER_SECONDS = env_int("SESSION_IDLE_PLAYER_SECONDS", 2 * 60 * 60)
SESSION_MAX_AGE_SECONDS = env_int("SESSION_MAX_AGE_SECONDS", 12 * 60 * 60)
SESSION_COOKIE_AGE = SESSION_MAX_AGE_SECONDS
# The stored expiry moves forward at most this often, so a busy session is written about once a minute, not on
# every request; the idle limit is therefore exact to within this many seconds.
SESSION_IDLE_REFRESH_SECONDS = env_int("SESSION_IDLE_REFRESH_SECONDS", 60)

# Login lockout (django-axes), through every door that checks a password (the login page and the admin's):
# LOGIN_FAILURE_LIMIT failures for one username, or from one address, lock that username or address out for
# LOGIN_LOCKOUT_MINUTES. A successful login clears its username's failures.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
# A try during the lockout does not restart it: the page can then say exactly when to try again.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_CLIENT_IP_CALLABLE = "accounts.client.client_ip"
# Our append-only login records keep every login, logout and failure; axes keeps only what locks.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False
# The address a login record and the lockout count: REMOTE_ADDR, or the last X-Forwarded-For hop when the
# process sits behind a proxy of ours that sets it (never trusted otherwise: a client can send anything).

# Second factor for staff (TOTP, django-otp), with single-use recovery codes.
OTP_TOTP_ISSUER = env_str("OTP_TOTP_ISSUER", "Live Blackjack")
SECOND_FACTOR_RECOVERY_CODES = 10

_PASSWORD_VALIDATION = "django.contrib.auth.password_validation"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_PASSWORD_VALIDATION}.MinimumLengthValidator"},
    {"NAME": f"{_PASSWORD_VALIDATION}.CommonPasswordValidator"},
    # Staff (operator, support, admin) also need these; a player's password is left as it was.
    {"NAME": "accounts.passwords.StaffMinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "accounts.passwords.StaffUserAttributeSimilarityValidator"},
    {"NAME": "accounts.passwords.StaffNumericPasswordValidator"},
]
if env_bool("FAST_PASSWORD_HASHER", False):
    # Tests only: PBKDF2 at production strength costs ~0.3 s per login.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
# Player pages speak the player's language (English or Swedish; casino/reader_language.py picks it per request:
# ?lang=, the player's stored choice, the cookie, Accept-Language); the back office stays in English. Translations
# are in locale/ (the .mo files are committed: see docs/operations.md).
LANGUAGES = [("en", "English"), ("sv", "Svenska")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
# Served by WhiteNoise from the web process itself, DEBUG or not. `collectstatic` (scripts/run.sh, the release
# steps, the tests' session) writes each file under a name carrying its content's hash and a gzip copy beside it;
# pages link those names, cached for a year, so a release never serves a stale stylesheet. With DEBUG on, pages
# link the plain names and WhiteNoise finds them in static/ as they are edited.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- HTTPS and the browser's protections (docs/security.md). Safe for production by default; DEBUG relaxes them.
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
# Pages send the CSRF token from the template (htmx's hx-headers), so no script needs to read the cookie.
CSRF_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
# Behind a proxy that ends TLS, the header it sets to say the request came over HTTPS (e.g. X-Forwarded-Proto).
# Only set it when that proxy always sets or strips the header: otherwise a client could claim HTTPS itself.
_proxy_header = env_str("SECURE_PROXY_SSL_HEADER", "")
SECURE_PROXY_SSL_HEADER = ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https") if _proxy_header else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# No inline script or style anywhere: htmx's indicator style lives in app.css (base.html's htmx-config meta).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# --- request rate limits (casino.ratelimit): "count/seconds"; each key is counted in a fixed window.
RATE_LIMIT_LOGIN_PER_USERNAME = env_rate("RATE_LIMIT_LOGIN_PER_USERNAME", "10/300")
RATE_LIMIT_LOGIN_PER_ADDRESS = env_rate("RATE_LIMIT_LOGIN_PER_ADDRESS", "30/300")
RATE_LIMIT_BETS_PER_USER = env_rate("RATE_LIMIT_BETS_PER_USER", "20/10")
RATE_LIMIT_BETS_PER_ADDRESS = env_rate("RATE_LIMIT_BETS_PER_ADDRESS", "300/10")
RATE_LIMIT_CHAT_PER_USER = env_rate("RATE_LIMIT_CHAT_PER_USER", "5/10")
RATE_LIMIT_CHAT_PER_ADDRESS = env_rate("RATE_LIMIT_CHAT_PER_ADDRESS", "100/10")
# Behind a proxy, the header that carries the client's address (e.g. X-Forwarded-For); unset: REMOTE_ADDR.

# The web process and the worker must share the cache (task progress lives there).
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    # KEY_PREFIX: processes sharing one Redis database keep their keys apart (each pytest-xdist worker does).
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "")}}
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
# A worker that dies holding a message (acknowledged late) leaves it in Redis's unacknowledged set; a live worker
# puts it back on the queue once it is older than the visibility timeout, checking every few seconds. 30 s + 5 s:
# another worker takes a killed worker's task over within a minute. The price: a task still running after the
# visibility timeout is delivered a second time while it runs, and a task held for a countdown or ETA longer than
# it is delivered again and again. So no late-acknowledged task may run or wait (countdown, eta, retry backoff)
# longer than CELERY_VISIBILITY_TIMEOUT; work that takes longer is acknowledged early (tables.tasks).
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", 30)
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": _broker_folder, "data_folder_out": _broker_folder, "processed_folder": _broker_folder,
        "store_processed": False, "control_folder": str(VAR_DIR / "broker-control"),
    }
else:
    # Our subclass of kombu's Redis transport logs and drops a queue item it cannot read instead of exiting.
    CELERY_BROKER_TRANSPORT = "casino.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
        "unacked_restore_interval": 5, "unacked_restore_throttle": 1,
        # The lock a worker takes while it restores; a worker killed holding it must not stall restores long.
        "unacked_mutex_expire": CELERY_VISIBILITY_TIMEOUT,
        # A broker that vanished without closing the connection: fail fast and reconnect, don't wait forever.
        "socket_connect_timeout": 5, "socket_timeout": 15, "health_check_interval": 10,
    }
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'celery-results'}")
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_TASK_DEFAULT_QUEUE", "casino")
# Tasks that hold a worker for seconds or minutes (the RTP figures an operator asks for) go to a queue of their
# own, run by workers of their own: on the default queue two previews took both pool children of a host, and the
# settlements and recovery sweeps waiting behind them expired (docs/soak.md, two hosts).
CELERY_TASK_ROUTES = {name: {"queue": long_queue(CELERY_TASK_DEFAULT_QUEUE)}
                      for name in ("tables.tasks.rtp_simulation_run", "tables.tasks.rtp_exact_compute")}
CELERY_TASK_ACKS_LATE = True
# Only the prefork pool notices that the process running a task died (the pool's child); then the message goes
# back to the queue at once instead of being acknowledged as failed. The solo pool has no child to lose.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_POOL = "prefork"
CELERY_WORKER_CONCURRENCY = env_int("CELERY_WORKER_CONCURRENCY", 0) or None  # None: one child per CPU
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker that loses the broker stops the late-acknowledged tasks it runs: their messages go back to the queue
# (visibility timeout) and would otherwise run twice at once.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# Wait for the broker at start and after losing it, however long it is away (a supervisor restarting a worker
# that gave up would only do the same, more noisily).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Our consumer tries the broker again every second at most (Celery's waits grow to 30 s) and, once back, has the
# apps queue again what a restarted broker may have lost (the rounds waiting to settle or be refunded).
CELERY_WORKER_CONSUMER = "casino.worker_consumer:Consumer"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The browser: its session (CSRF checked); game clients: a revocable token (no CSRF). No Basic auth.
        # The session comes first so an anonymous request is still a 403 with our error body, as before.
        "rest_framework.authentication.SessionAuthentication",
        "accounts.tokens.ApiTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Game clients and the studio send JSON; a form encoding cannot say null and turns a missing boolean into false.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "casino.api_schema.AutoSchema",
    "EXCEPTION_HANDLER": "casino.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Live Blackjack back office API",
    "DESCRIPTION": "Studio, game-client and back-office API. Money is integer minor units.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The map of the API is for its signed-in clients, not for whoever asks.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Swagger UI from our own static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Responsible gambling (docs/responsible.md). The jurisdiction of a player with none set (its rules: the
# responsible.Jurisdiction rows, which operators edit in the admin), the national self-exclusion register's
# adapter, and the checks the wallet runs in every deposit under the account lock.
RESPONSIBLE_DEFAULT_JURISDICTION = env_str("RESPONSIBLE_DEFAULT_JURISDICTION", "MT")
RESPONSIBLE_EXCLUSION_REGISTER = env_str("RESPONSIBLE_EXCLUSION_REGISTER", "responsible.register.DatabaseRegister")
WALLET_DEPOSIT_CHECKS = ["responsible.checks.deposit_allowed"]
WALLET_PROMOTION_CHECKS = ["responsible.checks.promotion_allowed"]
RESPONSIBLE_PLAY_PATHS = ["/me/tables/"]

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# Periodic sweeps (celery beat). Each is also a service that tests and operators can call directly. Each expires
# (seconds after beat sent it): a sweep not started by then is dropped, the next one does its work, and an outage
# of workers or broker never leaves thousands of sweeps queued. Beat and workers need clocks in step (NTP): the
# expiry is a time of day.
CELERY_BEAT_SCHEDULE = {
    # Non-live continuations past their table's non_live_deadline are completed with the timeout rule.
    "rounds-continuations": {"task": "rounds.tasks.continuations_sweep", "schedule": 60.0,
                             "options": {"expires": 30.0}},
    # Betting, insurance and decision timers (seconds long) are applied within a second of running out.
    "rounds-timers": {"task": "rounds.tasks.rounds_timers_sweep", "schedule": 1.0, "options": {"expires": 5.0}},
    # Rounds a dead worker (or a lost broker) left settling or unrefunded are queued again; rounds at closed
    # tables are voided. A round is re-queued at the first sweep after it has been settling for the services'
    # grace (5 s), so a dead worker's round waits the grace plus up to one period: every 5 s that was up to
    # 10 s, the whole recovery goal (the two-host soak, docs/soak.md); every 2 s, 7 s at most. Three indexed
    # reads when there is nothing to do. The price: a settlement still running after the grace (a round of
    # some tens of thousands of players) gets a copy queued at each sweep, which waits on the round's lock and then finds
    # it settled.
    "rounds-recovery": {"task": "rounds.tasks.rounds_recovery_sweep", "schedule": 2.0,
                        "options": {"expires": 5.0}},
    # Yesterday's (and recently reversed days') RTP totals for the dashboard and the RTP report.
    "backoffice-rtp-rollups": {"task": "backoffice.tasks.rtp_rollups_refresh", "schedule": 300.0,
                               "options": {"expires": 300.0}},
    # The dashboard's RTP alerts: a table outside its 99.7 % band over the last 7 days.
    "backoffice-rtp-alerts": {"task": "backoffice.tasks.rtp_alerts_check", "schedule": 60.0,
                              "options": {"expires": 60.0}},
}
