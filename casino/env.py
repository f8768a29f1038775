"""Environment helpers that fail loudly: a typo in production config must stop the process, not guess."""

import os
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name)
    if value is None:
        if default is None:
            raise ImproperlyConfigured(f"Environment variable {name} is required")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use one of 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None


def env_rate(name: str, default: str) -> tuple[int, int]:
    """A rate limit written "count/seconds" (e.g. "20/10"): at most count requests per key in each window."""
    raw = os.environ.get(name, default)
    count, _, seconds = raw.partition("/")
    if not (count.isascii() and count.isdigit() and seconds.isascii() and seconds.isdigit()) or int(seconds) < 1:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a rate (write count/seconds, e.g. 20/10)")
    return int(count), int(seconds)


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# A session that stops in the middle of a transaction (a worker frozen or killed with its machine, so no FIN ever
# reaches the server) keeps every row lock it holds: a round, and the accounts of all its players, whose bets at
# any other table would wait behind it, and the settlement's other deliveries too. PostgreSQL ends such a session
# after this long idle inside a transaction (rolled back, locks released; the task's next delivery settles the
# round). No transaction of ours waits between two statements for anything but our own Python code (milliseconds;
# a 2,000-player settlement's engine run takes well under a second), so a minute is only a backstop.
IDLE_IN_TRANSACTION_SECONDS = 60
# The client's side of a database machine that vanished without a word: TCP keepalives find the dead connection
# within half a minute (10 s idle, then 3 probes 5 s apart) instead of a statement waiting for ever.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}


def database_from_url(url: str, base_dir=None, *, idle_in_transaction_seconds: int = IDLE_IN_TRANSACTION_SECONDS
                      ) -> dict:
    """Translate DATABASE_URL (postgres://user:pass@host:port/name or sqlite:///path) into Django settings.

    PostgreSQL sessions get TCP keepalives and `idle_in_transaction_session_timeout` (sent as the libpq `options`
    startup parameter) unless the URL says otherwise: `?options=` (empty) sends none, for a proxy such as
    PgBouncer that refuses startup parameters (set the timeout on the database role there instead)."""
    parsed = urlparse(url)
    if parsed.scheme in ("postgres", "postgresql"):
        name = unquote(parsed.path.lstrip("/"))
        if not name:
            raise ImproperlyConfigured(f"DATABASE_URL {url!r} names no database")
        given = {key: values[-1] for key, values in parse_qs(parsed.query, keep_blank_values=True).items()}
        options: dict = {key: value for key, value in given.items() if value != ""}
        # Server-side binding lets psycopg prepare a statement the fifth time a connection runs it: a bet's
        # dozen statements were spending more time being planned than executed. `?server_side_binding=false`
        # (for a transaction-pooling proxy such as PgBouncer) turns both off.
        options["server_side_binding"] = options.get("server_side_binding", "true").lower() in ("1", "true", "yes")
        threshold = options.get("prepare_threshold", "5" if options["server_side_binding"] else "none")
        if threshold.lower() != "none" and not threshold.isdigit():
            raise ImproperlyConfigured(f"DATABASE_URL prepare_threshold must be a whole number or none, not {threshold!r}")
        options["prepare_threshold"] = None if threshold.lower() == "none" else int(threshold)
        for key, value in KEEPALIVES.items():
            options.setdefault(key, value)
        if "options" not in given and idle_in_transaction_seconds:
            options["options"] = f"-c idle_in_transaction_session_timeout={idle_in_transaction_seconds}s"
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
    if parsed.scheme == "sqlite":
        # sqlite:///relative/file (from the project folder) or sqlite:////absolute/file
        path = unquote(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else ""
        if not path:
            raise ImproperlyConfigured(f"DATABASE_URL {url!r} names no SQLite file")
        if not path.startswith("/") and base_dir is not None:
            path = str(base_dir / path)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            # WAL lets the web server read while the Celery worker writes; IMMEDIATE avoids upgrade deadlocks.
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported (use postgres:// or sqlite:///)")
