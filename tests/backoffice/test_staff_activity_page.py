"""The staff-activity page: who may read it, its plain words, its filters, its keyset paging and its CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.db import transaction
from django.urls import reverse

from accounts.models import StaffAction, StaffActionKind
from accounts.selectors import STAFF_ACTIVITY_PAGE_SIZE
from accounts.staffaudit import Origin, for_table, for_user, staff_action_record

pytestmark = pytest.mark.django_db

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0"
PAGE = reverse("staff_activity")
CSV = reverse("staff_activity_csv")


@pytest.fixture
def olivia(operator):
    operator.first_name = "Olivia"
    operator.save(update_fields=["first_name"])
    return operator


@pytest.fixture
def activity(olivia, support, free_bet_table, alice):
    """Three actions on three days: Olivia closes FB01 and grants chips to alice; Sam writes a note on alice."""
    def record(actor, action, target, reason, day, **details):
        with transaction.atomic():
            return staff_action_record(actor=actor, action=action, target=target, reason=reason, details=details,
                                       origin=Origin("10.0.0.4", FIREFOX), at=datetime(2026, 3, day, 9, 30, tzinfo=UTC))

    return [
        record(olivia, StaffActionKind.TABLE_CLOSED, for_table(free_bet_table), "studio lighting failure", 1),
        record(olivia, StaffActionKind.GOLDEN_CHIPS_GRANTED, for_user(alice), "Birthday", 2, amount=2500,
               currency="EUR"),
        record(support, StaffActionKind.PLAYER_NOTE_ADDED, for_user(alice), "Called about a bonus", 3),
    ]


def text(response) -> str:
    return response.content.decode()


def test_only_operators_read_the_page_and_its_csv(client_for, personas, activity):
    for url in (PAGE, CSV):
        anonymous = client_for(None).get(url)
        assert anonymous.status_code == 302 and reverse("login") in anonymous.url
        for persona in ("player", "support"):
            assert client_for(personas[persona]).get(url).status_code == 403, (url, persona)
        assert client_for(personas["operator"]).get(url).status_code == 200
    operator_nav = text(client_for(personas["operator"]).get(reverse("home")))
    support_nav = text(client_for(personas["support"]).get(reverse("home")))
    assert f'href="{PAGE}"' in operator_nav and f'href="{PAGE}"' not in support_nav


def test_each_action_reads_as_a_plain_sentence_with_utc_dates(client_for, olivia, activity, alice):
    body = text(client_for(olivia).get(PAGE))
    assert "2026-03-01 09:30:00 UTC" in body
    assert ("Olivia (operator)</a> closed <a href=\"/tables/FB01/\">table FB01</a> — reason: studio lighting "
            "failure — from 10.0.0.4, Firefox on Windows") in body
    assert f'granted Golden Chips to <a href="/support/players/{alice.pk}/">alice_plays (25.00 EUR)</a>' in body
    assert "sam_support (support)</a> wrote a note on" in body and "note: Called about a bonus" in body
    # Newest first.
    assert body.index("Called about a bonus") < body.index("Birthday") < body.index("studio lighting failure")


@pytest.mark.parametrize(("query", "expected"), [
    ({"who": "SAM_SUPPORT"}, ["Called about a bonus"]),
    ({"action": "table_closed"}, ["studio lighting failure"]),
    ({"object": "fb01"}, ["studio lighting failure"]),
    ({"object": "alice_plays"}, ["Called about a bonus", "Birthday"]),
    ({"since": "2026-03-02"}, ["Called about a bonus", "Birthday"]),
    ({"until": "2026-03-02"}, ["Birthday", "studio lighting failure"]),
    ({"since": "2026-03-02", "until": "2026-03-02", "who": "olivia_operator"}, ["Birthday"]),
    ({"who": "nobody"}, []),
])
def test_filters_narrow_the_page_and_the_csv_alike(client_for, olivia, activity, query, expected):
    client = client_for(olivia)
    body = text(client.get(PAGE, query))
    reasons = [row.reason for row in activity]
    assert [reason for reason in reasons[::-1] if reason in body] == expected
    if not expected:
        assert "No staff action matches." in body
    export = client.get(CSV, query)
    assert export.streaming and export["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert [row["reason or note"] for row in rows] == expected


def test_bad_filters_and_cursors_are_a_400_that_shows_nothing(client_for, olivia, activity):
    client = client_for(olivia)
    for query in ({"since": "yesterday"}, {"action": "explode"}, {"since": "2026-03-03", "until": "2026-03-01"},
                  {"before": "-1"}, {"before": "12abc"}):
        response = client.get(PAGE, query)
        assert response.status_code == 400, query
        assert "studio lighting failure" not in text(response)
    assert client.get(CSV, {"until": "2026-13-01"}).status_code == 400


def test_the_page_pages_by_keyset_and_older_rows_load_as_a_fragment(client_for, olivia, free_bet_table):
    with transaction.atomic():
        for index in range(STAFF_ACTIVITY_PAGE_SIZE + 5):
            staff_action_record(actor=olivia, action=StaffActionKind.TABLE_PAUSED, target=for_table(free_bet_table),
                                reason=f"pause number {index:03d}")
    client = client_for(olivia)
    first = client.get(PAGE, {"action": "table_paused"})
    body = text(first)
    assert "pause number 054" in body and "pause number 005" in body and "pause number 004" not in body
    older = first.context["older_url"]
    assert "action=table_paused" in older and "before=" in older
    fragment = text(client.get(older, headers={"HX-Request": "true"}))
    assert "<html" not in fragment and "pause number 004" in fragment and "pause number 000" in fragment
    assert "pause number 005" not in fragment and "Older actions" not in fragment


def test_the_csv_keeps_every_field_and_defuses_formulas(client_for, olivia, free_bet_table):
    with transaction.atomic():
        staff_action_record(actor=olivia, action=StaffActionKind.TABLE_CLOSED, target=for_table(free_bet_table),
                            reason="=HYPERLINK(\"http://evil\")", origin=Origin("2001:db8::1", FIREFOX))
    export = client_for(olivia).get(CSV)
    assert 'filename="staff-activity.csv"' in export["Content-Disposition"]
    (row,) = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert row["who"] == "olivia_operator" and row["role"] == "operator" and row["action"] == "Table closed"
    assert row["object"] == "FB01" and row["address"] == "2001:db8::1" and row["browser"] == "Firefox on Windows"
    assert row["reason or note"] == "'=HYPERLINK(\"http://evil\")" and row["user agent"] == FIREFOX
    assert row["in words"].startswith("Olivia (operator) closed table FB01 — reason: =HYPERLINK")
    assert StaffAction.objects.count() == 1
