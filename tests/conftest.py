import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection, connections

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "var" / "test-output"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def roles(db):
    """Role groups come from a data migration; transactional tests flush them, so repair them first."""
    from accounts.services import roles_sync

    roles_sync()


def _make_user(username: str, role: str):
    from accounts.services import user_create

    return user_create(username=username, password="pw-" + username, role=role, email=f"{username}@example.test")


@pytest.fixture
def operator(roles):
    return _make_user("olivia_operator", "operator")


@pytest.fixture
def support(roles):
    return _make_user("sam_support", "support")


@pytest.fixture
def player(roles):
    return _make_user("pat_player", "player")


@pytest.fixture
def player2(roles):
    return _make_user("quinn_player", "player")


@pytest.fixture
def personas(operator, support, player, player2):
    return {"operator": operator, "support": support, "player": player, "player2": player2}


@pytest.fixture
def client_for(client):
    from django.test import Client

    def make(user):
        new = Client()
        if user is not None:
            new.force_login(user)
        return new

    return make


def _database_url_for_worker() -> str:
    settings = connection.settings_dict
    if settings["ENGINE"] != "django.db.backends.postgresql":
        raise RuntimeError("The real-worker tests run on PostgreSQL (make test sets DATABASE_URL)")
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{auth}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """One real Celery worker process for the session, consuming this session's queue on the test database."""
    from casino.celery import app

    queue = app.conf.task_default_queue
    OUTPUT.mkdir(parents=True, exist_ok=True)
    with django_db_blocker.unblock():
        env = dict(os.environ, DATABASE_URL=_database_url_for_worker(), CELERY_TASK_DEFAULT_QUEUE=queue)
    log = open(OUTPUT / f"celery-worker-{queue}.log", "w")  # noqa: SIM115 - closed at teardown
    node = f"{queue}@%h"
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "casino", "worker", "-Q", queue, "-n", node, "--pool", "solo",
         "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"Celery worker exited with {proc.returncode}; see {log.name}")
        if "ready." in Path(log.name).read_text(errors="replace"):
            break
        time.sleep(0.2)
    else:
        proc.kill()
        raise RuntimeError(f"Celery worker not ready after 60 s; see {log.name}")
    yield proc
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def _transactional(node, fixturenames) -> bool:
    # The same test pytest-django applies to choose TransactionTestCase (whose teardown flushes every table).
    marker = node.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")):
        return True
    return bool({"transactional_db", "live_server", "celery_worker"} & set(fixturenames))


def pytest_collection_modifyitems(config, items):
    """Mark what a test needs from its fixtures, so `-m "not worker and not browser"` (make check) selects the
    tests that need neither, whether or not their module remembered the marker: every transactional test starts
    the worker (see _worker_drained_before_flush), and every test using `chromium` drives the browser."""
    for item in items:
        fixturenames = getattr(item, "fixturenames", ())
        if _transactional(item, fixturenames) or "celery_worker_process" in fixturenames:
            item.add_marker(pytest.mark.worker)
        if "chromium" in fixturenames:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _worker_drained_before_flush(request, _django_db_helper):
    """A transactional test ends with a flush: TRUNCATE of every table. A task the test queued (the settle of a round
    whose betting closed with no bet, a refund after a void, a common-draw advance) may still be running in the worker then; its
    row locks and TRUNCATE's table locks can deadlock, and when PostgreSQL cancels the flush the next test finds
    the last one's rows. So every transactional test waits, before its flush, until the worker has run all that
    was queued. Depending on `_django_db_helper` makes this teardown run before pytest-django's."""
    if not _transactional(request.node, request.fixturenames):
        yield
        return
    request.getfixturevalue("celery_worker_process")
    yield
    from accounts.tasks import worker_ping

    worker_ping.delay().get(timeout=60)


@pytest.fixture
def celery_worker(celery_worker_process, transactional_db):
    """Tests that need the worker must commit their data, so they run in transactional mode."""
    return celery_worker_process


def wait_for(predicate, *, timeout: float = 20.0, interval: float = 0.1, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright, one for the whole session; each test opens its own context.

    Playwright's sync API runs an event loop in this thread while the browser lives, so Django's guard against
    synchronous ORM calls inside a loop is lifted for the session (the tests' ORM calls stay synchronous)."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    OUTPUT.mkdir(parents=True, exist_ok=True)
    try:
        with playwright_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield browser
            # Every later test ran its ORM calls inside Playwright's loop, on connections of that context; close
            # them while it still runs, or one outlives the session and the test database cannot be dropped.
            connections.close_all()
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous
