"""Operators change a jurisdiction's rules on its page: a review says what changes and who reads the reason, only
the confirmation saves, bad input is refused naming the rule (an unknown time zone, a value out of range, below
the regulator's floor), a stale form is refused, and each change is a new version in an immutable history with
its staff action. Support reads the rules but cannot change them."""

import pytest
from django.db import connection, transaction
from django.db.utils import ProgrammingError
from django.urls import reverse

from accounts.models import StaffAction, StaffActionKind
from responsible import services as rg
from responsible.errors import JurisdictionRuleError
from responsible.jurisdictions import DEFAULTS, RULE_FIELDS
from responsible.models import Jurisdiction, JurisdictionChange

pytestmark = pytest.mark.django_db


def _rules(code="MT", **changes):
    return {**{k: DEFAULTS[code][k] for k in RULE_FIELDS}, **changes}


def _set(operator, code="MT", version=1, reason="Board decision 12/2026", **changes):
    return rg.jurisdiction_rules_set(actor=operator, code=code, values=_rules(code, **changes),
                                     expected_version=version, reason=reason)


def test_a_change_is_a_new_version_with_its_history_and_staff_action(operator):
    row = _set(operator, cooling_off_hours=96, time_zone="Europe/Rome")
    assert (row.version, row.cooling_off_hours, row.time_zone) == (2, 96, "Europe/Rome")
    change = JurisdictionChange.objects.get()
    assert (change.version, change.before["cooling_off_hours"], change.after["cooling_off_hours"]) == (2, 72, 96)
    action = StaffAction.objects.get(action=StaffActionKind.RG_JURISDICTION_CHANGED)
    assert action.reason == "Board decision 12/2026" and action.details["jurisdiction"] == "MT"


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"time_zone": "Europe/Stockhom"}, "time_zone", "Unknown time zone 'Europe/Stockhom'"),
    ({"cooling_off_hours": 2}, "cooling_off_hours", "whole number from 24 to 720"),
    ({"cooling_off_hours": "72"}, "cooling_off_hours", "whole number"),
    ({"promotions": "sometimes"}, "promotions", "is one of any, first_occasion_only, none"),
    ({"exclusion_end_cooling_off_hours": 48}, "exclusion_end_cooling_off_hours", "rules of Malta do not allow that: cooling-off after a request to end it must be at least 168 hours"),
])
def test_bad_rules_are_refused_naming_the_rule_and_nothing_is_saved(operator, changes, field, words):
    with pytest.raises(JurisdictionRuleError, match=words) as refused:
        _set(operator, **changes)
    assert refused.value.field == field
    assert Jurisdiction.objects.get(code="MT").version == 1 and not JurisdictionChange.objects.exists()
    assert not StaffAction.objects.exists()


def test_swedish_floors_keep_the_first_occasion_rule_and_the_deposit_limit(operator):
    with pytest.raises(JurisdictionRuleError, match="rules of Sweden do not allow that: promotions must be promotional credit only"):
        _set(operator, code="SE", promotions="any")
    with pytest.raises(JurisdictionRuleError, match="rules of Sweden do not allow that: deposit limit required before the first deposit must be yes"):
        _set(operator, code="SE", deposit_limit_required=False)
    with pytest.raises(JurisdictionRuleError, match="rules of Great Britain do not allow that: ending an indefinite self-exclusion must be never"):
        _set(operator, code="GB", exclusion_end="on_request")
    assert _set(operator, code="SE", promotions="none").promotions == "none"


def test_a_stale_version_and_a_change_of_nothing_are_refused(operator, support):
    _set(operator, cooling_off_hours=96)
    with pytest.raises(JurisdictionRuleError, match="changed by someone else"):
        _set(operator, cooling_off_hours=120, version=1)
    with pytest.raises(JurisdictionRuleError, match="Nothing to save"):
        _set(operator, cooling_off_hours=96, version=2)
    with pytest.raises(JurisdictionRuleError, match="reason"):
        _set(operator, cooling_off_hours=120, version=2, reason=" ")
    with pytest.raises(Exception):  # noqa: B017 - PermissionDenied: support reads the rules, never changes them
        _set(support, cooling_off_hours=120, version=2)
    assert JurisdictionChange.objects.count() == 1


def test_the_history_cannot_be_rewritten_not_even_by_raw_sql(operator):
    _set(operator, cooling_off_hours=96)
    change = JurisdictionChange.objects.get()
    with pytest.raises(TypeError):
        change.save()
    with pytest.raises(TypeError):
        JurisdictionChange.objects.update(reason="x")
    with pytest.raises(ProgrammingError, match="immutable"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE responsible_jurisdictionchange SET reason = 'rewritten'")


def _form(jurisdiction, **changes):
    data = {**{k: getattr(jurisdiction, k) for k in RULE_FIELDS}, "version": jurisdiction.version,
            "reason": "Board decision 12/2026"}
    data["deposit_limit_required"] = "yes" if jurisdiction.deposit_limit_required else "no"
    return {**data, **changes}


def test_the_page_reviews_then_saves_and_refuses_bad_input_beside_the_rule(client_for, operator):
    client = client_for(operator)
    url = reverse("responsible_jurisdiction", args=["SE"])
    se = Jurisdiction.objects.get(code="SE")
    page = client.get(url).content.decode()
    assert "Rules of Sweden (SE)" in page and "promotional credit only at the player&#x27;s first occasion" in page
    bad = client.post(url, _form(se, time_zone="Mars/Olympus"))
    assert bad.status_code == 400 and "Unknown time zone &#x27;Mars/Olympus&#x27;" in bad.content.decode()
    review = client.post(url, _form(se, cooling_off_hours=96))
    body = review.content.decode()
    assert review.status_code == 200 and "What saving changes (not saved yet)" in body
    assert "Cooling-off before a raised or removed limit applies: 72 hours (3 days) became 96 hours (4 days)." in body
    assert "Who will see the reason" in body
    assert Jurisdiction.objects.get(code="SE").version == 1
    saved = client.post(url, {**_form(se, cooling_off_hours=96), "step": "confirm"}, follow=True)
    assert "Rules of Sweden saved." in saved.content.decode()
    assert Jurisdiction.objects.get(code="SE").cooling_off_hours == 96
    history = client.get(url).content.decode()
    assert "v2," in history and "Board decision 12/2026" in history


def test_support_reads_the_rules_without_a_form(client_for, support):
    client = client_for(support)
    listing = client.get(reverse("responsible_jurisdictions")).content.decode()
    assert "SE Sweden" in listing and "GB Great Britain" in listing and "MT Malta" in listing
    page = client.get(reverse("responsible_jurisdiction", args=["GB"])).content.decode()
    assert "Change the rules" not in page
    assert client.post(reverse("responsible_jurisdiction", args=["GB"]), {}).status_code == 403
    assert client.get(reverse("responsible_jurisdiction", args=["XX"])).status_code == 404
