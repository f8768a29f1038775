"""The suite's fixtures are in tests/fixtures/ (loaded here for every test), its factories in tests/factories.py
and its plain helpers in tests/helpers.py. Import from those; never from a conftest module."""

import gc

import pytest

from tests.helpers import OUTPUT, wait_for  # noqa: F401 - deprecated here: import them from tests.helpers

pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.personas",
    "tests.fixtures.worker",
    "tests.fixtures.browser",
    "tests.fixtures.ledger",
    "tests.fixtures.rounds",
    "tests.fixtures.static",
]


def pytest_configure(config):
    """A test process keeps hundreds of thousands of objects alive for the whole run (Django's apps, models and URL
    patterns, the collected tests, each module's imports), and at Python's default thresholds every young
    collection soon promotes into an older one that walks them again: 3.3 s of the 62 s of CPU both workers of
    `make check` spent (timed with gc.callbacks). Collections far apart do the same work for 1.7 s. Objects the
    tests leave in cycles are still collected, later."""
    gc.set_threshold(100_000, 50, 1000)


def pytest_collection_finish(session):
    """What exists once the tests are collected lives until the process ends: out of every later collection."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """Mark what a test needs from its fixtures, so `-m "not worker and not browser"` (make check) selects the
    tests that need neither, whether or not their module remembered the marker: every transactional test starts
    the worker (see tests/fixtures/worker.py), and every test using `chromium` drives the browser."""
    # Imported here: a plugin module imported before pytest loads it would not get its asserts rewritten.
    from tests.fixtures.worker import transactional

    for item in items:
        fixturenames = getattr(item, "fixturenames", ())
        if transactional(item, fixturenames) or "celery_worker_process" in fixturenames:
            item.add_marker(pytest.mark.worker)
        if "chromium" in fixturenames:
            item.add_marker(pytest.mark.browser)
