"""The edit page's RTP preview: side bets at once, the main game's exact analysis on the real worker with its
progress polled, nothing saved."""

import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from rounds.engine.rtp.exact import exact_main_game
from rounds.engine.rules import rules_for
from tables import rtp, rtp_exact
from tables.forms import TableSettingsForm
from tables.models import Table
from tests.factories import TableFactory
from tests.helpers import wait_for


def _query(table: Table, **changes) -> dict:
    values = {**TableSettingsForm.initial_for(table.profile, table), **changes}
    return {k: ("on" if v is True else v) for k, v in values.items() if v is not False and v is not None}


def test_side_bets_preview_at_once_and_nothing_is_saved(client_for, operator):
    table = TableFactory(code="PRV1", profile="free_bet")
    before = rtp.percent(rtp.side_bet_rtp("21+3", rules_for("free_bet", {}).paytable("21+3"), 8))
    after = rtp.percent(rtp.side_bet_rtp("21+3", rules_for("free_bet", {}).paytable("21+3"), 2))
    assert before != after
    response = client_for(operator).get(reverse("table_edit_preview", args=[table.code]), _query(table, decks=2),
                                        HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 200
    assert re.search(rf'data-side-rtp="21\+3"><strong>{re.escape(after)} %', body), body
    assert f"{before} %" in body
    assert "<li>Decks changed from 8 to 2.</li>" in body  # what saving would change, read before saving
    table.refresh_from_db()
    assert (table.decks, table.config_version) == (8, 1)
    unchanged = client_for(operator).get(reverse("table_edit_preview", args=[table.code]), _query(table),
                                         HTTP_HX_REQUEST="true").content.decode()
    assert "Nothing yet: these are the settings in force." in unchanged


def test_settings_the_engine_refuses_say_so_and_compute_nothing(client_for, operator):
    table = TableFactory(code="PRV2", profile="free_bet")
    response = client_for(operator).get(reverse("table_edit_preview", args=[table.code]), _query(table, decks=9),
                                        HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Correct the settings" in response.content.decode()


@pytest.mark.worker
def test_the_main_game_is_analysed_on_the_worker_with_progress(celery_worker, client_for, operator):
    table = TableFactory(code="PRV3", profile="free_bet")
    proposed = rules_for("free_bet", {"decks": 3})
    key_rules = rtp_exact.rtp_rules_from_engine(proposed)
    cache.delete(rtp_exact._key(key_rules, {}))  # a configuration never seen, whatever earlier runs left
    cache.delete(rtp_exact._key(key_rules, {}) + ":progress")
    client = client_for(operator)
    url = reverse("table_edit_preview", args=[table.code])
    first = client.get(url, _query(table, decks=3), HTTP_HX_REQUEST="true").content.decode()
    assert "<progress" in first and "load delay:1s" in first  # polls itself while the worker computes
    seen_progress = set()

    def done():
        body = client.get(url, _query(table, decks=3), HTTP_HX_REQUEST="true").content.decode()
        found = re.search(r'<progress max="10" value="(\d+)"', body)
        if found:
            seen_progress.add(int(found.group(1)))
            return None
        return body

    body = wait_for(done, timeout=120, interval=0.2, what="the worker's exact analysis")
    expected = exact_main_game(proposed).total_dependent.rtp
    assert f"<strong>{rtp.float_percent(expected, 4)} %</strong>" in body
    assert "load delay:1s" not in body  # done: polling stops
    assert seen_progress  # the page showed how far the analysis was
