"""A settlement's megabytes of JSON are compressed with lz4 where they are stored (rounds 0012): in the round,
in its continuation, and in the audit event that repeats it."""

import pytest
from django.db import connection, transaction
from django.db.utils import NotSupportedError

from rounds.audit import event_add
from rounds.models import ActorKind, RoundEvent

pytestmark = pytest.mark.django_db


def _server_has_lz4() -> bool:
    """Whether this PostgreSQL server was built with lz4, asked of the server itself (not of the columns the
    migration set, which would hide a migration that did nothing)."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE lz4_probe (x text COMPRESSION lz4)")
            cursor.execute("DROP TABLE lz4_probe")
    except NotSupportedError:
        return False
    return True


@pytest.fixture
def lz4():
    if not _server_has_lz4():
        pytest.skip("this PostgreSQL server was built without lz4: the migration keeps pglz")


def test_the_settlement_columns_compress_with_lz4(lz4):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attcompression FROM pg_attribute "
            "WHERE (attrelid, attname) IN (('rounds_round'::regclass, 'settlement'), "
            "('rounds_continuation'::regclass, 'settlement'), ('rounds_roundevent'::regclass, 'payload'))")
        methods = {f"{table}.{column}": method for table, column, method in cursor.fetchall()}
    assert methods == {"rounds_round.settlement": "l", "rounds_continuation.settlement": "l",
                       "rounds_roundevent.payload": "l"}


def test_a_big_settled_event_is_stored_compressed_with_lz4(lz4, play, free_bet_table):
    round = play(free_bet_table).round
    spots = {f"spot{n}": {"net": n, "hands": [{"cards": ["Ah", "Kd"], "result": "blackjack"}]} for n in range(500)}
    event_add(round, "settled", actor_kind=ActorKind.SYSTEM, payload={"settlement": {"spots": spots}})
    event = RoundEvent.objects.filter(round=round, kind="settled").latest("id")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(payload) FROM rounds_roundevent WHERE id = %s", [event.pk])
        assert cursor.fetchone()[0] == "lz4"
