"""pytest plugin (loaded with -p before Django is set up): defaults so a bare `pytest` runs like `make test`."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/casino")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
os.environ.setdefault("CELERY_RESULT_BACKEND", "redis://127.0.0.1:6379/1")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/2")
os.environ.setdefault("SECRET_KEY", "test-only-not-a-secret")
os.environ.setdefault("FAST_PASSWORD_HASHER", "1")
# The test client speaks plain HTTP (tests that check HTTPS behaviour ask for secure=True), and every request
# comes from one address: limits far above any test's traffic; tests of the limits set their own.
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
for _limit in ("LOGIN_PER_USERNAME", "LOGIN_PER_ADDRESS", "BETS_PER_USER", "BETS_PER_ADDRESS", "CHAT_PER_USER",
               "CHAT_PER_ADDRESS"):
    os.environ.setdefault(f"RATE_LIMIT_{_limit}", "1000000/60")
# One queue per test session, so two suites on one Redis never take each other's tasks.
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", f"test-{os.getpid()}")
# Under pytest-xdist each worker process has a test database of its own (test_<name>_gw0, ...) and starts a Celery
# worker of its own on it, so it also needs a queue of its own (xdist's workers inherit the controller's
# environment, queue name included: one shared queue would hand gw0's tasks to gw1's worker, which finds none of
# their rows) and cache keys of its own (rate-limit counts, presence and task progress are kept in Redis under
# the same names in every worker). The Celery worker inherits both from this process's environment.
_xdist_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _xdist_worker:
    os.environ["CELERY_TASK_DEFAULT_QUEUE"] = f"{os.environ['CELERY_TASK_DEFAULT_QUEUE']}-{_xdist_worker}"
    os.environ["CACHE_KEY_PREFIX"] = f"{os.environ.get('CACHE_KEY_PREFIX') or 'test'}-{_xdist_worker}"
