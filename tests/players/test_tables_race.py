"""Two joins of one player at the same moment, from two devices, to a table played alongside others and to one
played on its own: the joins of a player are taken one at a time, so exactly one succeeds."""

import threading

import pytest
from django.db import connection

from players import services
from players.errors import NotAlongsideOthers
from players.models import TablePresence
from tests.factories import RoundTableFactory
from tests.helpers import RowLock, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting_on_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0]


def test_concurrent_joins_cannot_put_a_player_at_a_solo_table_and_another(player):
    tables = [RoundTableFactory(profile="free_bet", code="FB01"),
              RoundTableFactory(profile="classic", code="SOLO", multi_game=False)]
    answers: list[str] = []

    def join(table, session):
        try:
            services.table_join(player=player, table=table, session_key=session)
            answers.append("joined")
        except NotAlongsideOthers:
            answers.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(table, f"device-{n}")) for n, table in enumerate(tables)]
    with RowLock("SELECT id FROM auth_user WHERE id = %s FOR UPDATE", [player.pk]):
        for thread in threads:
            thread.start()
        wait_for(lambda: _waiting_on_locks() >= 2, what="both joins to wait for the player's lock")
    for thread in threads:
        thread.join(30)
    assert sorted(answers) == ["joined", "refused"]
    assert TablePresence.objects.filter(player=player, ended_at__isnull=True).count() == 1
