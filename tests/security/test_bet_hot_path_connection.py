"""The bet path skips Django's connection health check (casino.hot_path): the session read, its first statement,
replaces a dead connection itself. A transactional test (it must commit the session it reads back on a new
connection), so it cannot run in test_bet_hot_path.py, whose tests share a world in a transaction held open for
the module."""

import time

import pytest
from django.conf import settings


@pytest.mark.django_db(transaction=True)
def test_the_session_read_replaces_a_dead_connection_so_the_bet_path_needs_no_health_check():
    from importlib import import_module

    from django.db import connection

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["seen"] = 1
    store.create()
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    other = connection.get_new_connection(connection.get_connection_params())
    try:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        for _ in range(100):  # until the server has closed it
            if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
                break
            time.sleep(0.05)
    finally:
        other.close()
    connection.health_check_done = True  # as casino.hot_path leaves it: no SELECT 1 before the read
    assert type(store)(session_key=store.session_key).load() == {"seen": 1}
    assert connection.connection.info.backend_pid != pid
