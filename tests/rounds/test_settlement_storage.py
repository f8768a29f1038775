"""A settlement's megabytes of JSON are compressed with lz4 where they are stored (rounds 0012): in the round,
in its continuation, and in the audit event that repeats it."""

import pytest
from django.db import connection

from rounds.audit import event_add
from rounds.models import ActorKind, RoundEvent

pytestmark = pytest.mark.django_db


def _lz4_supported() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_attribute WHERE attcompression = 'l'")
        return cursor.fetchone()[0] > 0


def test_the_settlement_columns_compress_with_lz4():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attcompression FROM pg_attribute "
            "WHERE (attrelid, attname) IN (('rounds_round'::regclass, 'settlement'), "
            "('rounds_continuation'::regclass, 'settlement'), ('rounds_roundevent'::regclass, 'payload'))")
        methods = {f"{table}.{column}": method for table, column, method in cursor.fetchall()}
    assert methods == {"rounds_round.settlement": "l", "rounds_continuation.settlement": "l",
                       "rounds_roundevent.payload": "l"}


def test_a_big_settled_event_is_stored_compressed_with_lz4(play, free_bet_table):
    if not _lz4_supported():
        pytest.skip("this PostgreSQL server was built without lz4")
    round = play(free_bet_table).round
    spots = {f"spot{n}": {"net": n, "hands": [{"cards": ["Ah", "Kd"], "result": "blackjack"}]} for n in range(500)}
    event_add(round, "settled", actor_kind=ActorKind.SYSTEM, payload={"settlement": {"spots": spots}})
    event = RoundEvent.objects.filter(round=round, kind="settled").latest("id")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(payload) FROM rounds_roundevent WHERE id = %s", [event.pk])
        assert cursor.fetchone()[0] == "lz4"
