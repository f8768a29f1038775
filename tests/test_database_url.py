"""DATABASE_URL becomes Django's database settings: prepared statements on PostgreSQL unless turned off."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from casino.env import database_from_url


def test_postgres_prepares_statements_by_default_and_a_pooling_proxy_can_turn_it_off():
    default = database_from_url("postgres://app:s%40cret@db:5433/casino")
    assert (default["NAME"], default["USER"], default["PASSWORD"], default["HOST"], default["PORT"]) == (
        "casino", "app", "s@cret", "db", "5433")
    assert default["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 5}
    pooled = database_from_url("postgres://app@db/casino?server_side_binding=false")
    assert pooled["OPTIONS"] == {"server_side_binding": False, "prepare_threshold": None}
    tuned = database_from_url("postgres://app@db/casino?prepare_threshold=2&sslmode=require")
    assert tuned["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 2, "sslmode": "require"}


def test_a_bad_url_names_what_is_wrong():
    with pytest.raises(ImproperlyConfigured, match="names no database"):
        database_from_url("postgres://app@db/")
    with pytest.raises(ImproperlyConfigured, match="not supported"):
        database_from_url("mysql://app@db/casino")
    with pytest.raises(ImproperlyConfigured, match="prepare_threshold must be a whole number"):
        database_from_url("postgres://app@db/casino?prepare_threshold=soon")
