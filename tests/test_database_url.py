"""DATABASE_URL becomes Django's database settings: prepared statements on PostgreSQL unless turned off."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from casino.env import KEEPALIVES, database_from_url


def test_postgres_prepares_statements_by_default_and_a_pooling_proxy_can_turn_it_off():
    default = database_from_url("postgres://app:s%40cret@db:5433/casino")
    assert (default["NAME"], default["USER"], default["PASSWORD"], default["HOST"], default["PORT"]) == (
        "casino", "app", "s@cret", "db", "5433")
    alive = {**KEEPALIVES, "options": "-c idle_in_transaction_session_timeout=60s"}
    assert default["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 5, **alive}
    pooled = database_from_url("postgres://app@db/casino?server_side_binding=false&options=")
    assert pooled["OPTIONS"] == {"server_side_binding": False, "prepare_threshold": None, **KEEPALIVES}
    tuned = database_from_url("postgres://app@db/casino?prepare_threshold=2&sslmode=require&keepalives_idle=30")
    assert tuned["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 2, "sslmode": "require",
                                **alive, "keepalives_idle": "30"}


@pytest.mark.django_db
def test_a_session_stopped_inside_a_transaction_is_ended_by_the_server_within_a_minute():
    # A worker frozen (or gone with its machine) mid-settlement would otherwise hold the round's and its players'
    # row locks for ever.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW idle_in_transaction_session_timeout")
        assert cursor.fetchone()[0] == "1min"
    assert connection.connection.info.get_parameters()["keepalives_idle"] == "10"


def test_a_bad_url_names_what_is_wrong():
    with pytest.raises(ImproperlyConfigured, match="names no database"):
        database_from_url("postgres://app@db/")
    with pytest.raises(ImproperlyConfigured, match="not supported"):
        database_from_url("mysql://app@db/casino")
    with pytest.raises(ImproperlyConfigured, match="prepare_threshold must be a whole number"):
        database_from_url("postgres://app@db/casino?prepare_threshold=soon")
