"""Ending an indefinite self-exclusion on request: only where the player's jurisdiction allows it, at the later
of a minimum time excluded and a cooling-off after the request; pending until then (bets and deposits still
refused, naming the time it ends); a time-out or a fixed self-exclusion never ends early; the national register
still applies; support enters a player's written request with a reason, as a staff action."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import StaffAction, StaffActionKind
from responsible import checks, selectors
from responsible import services as rg
from responsible.errors import Excluded, ResponsibleError
from responsible.models import ExclusionEnd, PlayerSettings
from responsible.signals import login_refusal

pytestmark = pytest.mark.django_db


def _excluded_days_ago(player, days, *, kind="self_exclusion", length=None):
    return rg.exclusion_start(player=player, kind=kind, days=length, now=timezone.now() - timedelta(days=days))


def test_sweden_ends_an_indefinite_exclusion_seven_days_after_the_request_once_a_year_has_passed(player, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    now = timezone.now()
    [end] = rg.exclusion_end_request(player=player, now=now)
    assert end.effective_at == now + timedelta(days=7)
    assert end.rule == {"jurisdiction": "SE", "min_days": 365, "cooling_off_hours": 168}
    # Pending: still excluded, and the refusal names the time it ends.
    with pytest.raises(Excluded, match=f"until {timezone.localtime(end.effective_at, timezone.get_fixed_timezone(60)):%Y-%m-%d}"):
        checks.deposit_allowed(player=player, currency="EUR", amount=1_00, now=now + timedelta(days=6))
    assert selectors.exclusion_active(player=player, now=now + timedelta(days=6)) is not None
    # Ended: no refusal any more.
    later = now + timedelta(days=7, seconds=1)
    assert selectors.player_state(player_id=player.pk, now=later).exclusion is None
    assert selectors.exclusion_active(player=player, now=later) is None
    checks.bet_allowed(player=player, currency="EUR", cash_amount=1_00, now=later)


def test_the_end_waits_for_the_minimum_time_excluded(player, swedish):
    swedish(player)
    exclusion = _excluded_days_ago(player, 10)
    [end] = rg.exclusion_end_request(player=player)
    assert end.effective_at == exclusion.starts_at + timedelta(days=365)


def test_an_ended_exclusion_lets_the_player_play_once_the_time_has_come(player, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    rg.exclusion_end_request(player=player, now=timezone.now() - timedelta(days=8))
    assert login_refusal(player) == ""
    assert [e.ended_at is not None for e in selectors.exclusions(player=player)] == [True]


def test_great_britain_never_ends_an_indefinite_exclusion_on_request(player):
    PlayerSettings.objects.create(player=player, jurisdiction_id="GB")
    _excluded_days_ago(player, 4000)
    with pytest.raises(ResponsibleError, match="rules of Great Britain do not let an indefinite self-exclusion end"):
        rg.exclusion_end_request(player=player)
    assert not ExclusionEnd.objects.exists()
    assert login_refusal(player) != ""


def test_a_time_out_or_a_fixed_self_exclusion_cannot_be_ended_early(player, swedish):
    swedish(player)
    _excluded_days_ago(player, 1, kind="time_out", length=30)
    with pytest.raises(ResponsibleError, match="no indefinite self-exclusion"):
        rg.exclusion_end_request(player=player)
    _excluded_days_ago(player, 300, length=1826)
    with pytest.raises(ResponsibleError, match="cannot be ended early"):
        rg.exclusion_end_request(player=player)
    assert not ExclusionEnd.objects.exists()


def test_a_waiting_end_is_not_asked_twice_and_withdrawing_it_keeps_the_exclusion(player, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    rg.exclusion_end_request(player=player)
    with pytest.raises(ResponsibleError, match="already requested"):
        rg.exclusion_end_request(player=player)
    assert rg.exclusion_end_withdraw(player=player) == 1
    far = timezone.now() + timedelta(days=30)
    assert selectors.exclusion_active(player=player, now=far).ended_at is None
    assert selectors.player_state(player_id=player.pk, now=far).exclusion.ends_at is None
    with pytest.raises(ResponsibleError, match="No end"):
        rg.exclusion_end_withdraw(player=player)
    # Asked again: a new cooling-off from the new request.
    [again] = rg.exclusion_end_request(player=player)
    assert again.effective_at > timezone.now() + timedelta(days=6)


def test_the_national_register_still_applies_after_the_exclusion_ended(player, support, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    rg.exclusion_end_request(player=player, now=timezone.now() - timedelta(days=8))
    rg.register_add(identity=player.username, days=None, reason="Listed by Spelpaus", actor=support)
    assert "national self-exclusion register" in login_refusal(player)


def test_support_enters_a_written_request_with_a_reason_as_a_staff_action(player, support, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    with pytest.raises(ResponsibleError):
        rg.exclusion_end_request(player=player, actor=support, reason="")
    [end] = rg.exclusion_end_request(player=player, actor=support, reason="Letter of 2026-11-30, ref 1234")
    assert end.actor == support and end.reason == "Letter of 2026-11-30, ref 1234"
    rg.exclusion_end_withdraw(player=player, actor=support, reason="Player phoned: keep it")
    actions = list(StaffAction.objects.filter(actor=support).order_by("id").values_list("action", "reason"))
    assert actions == [(StaffActionKind.RG_EXCLUSION_END_REQUESTED, "Letter of 2026-11-30, ref 1234"),
                       (StaffActionKind.RG_EXCLUSION_END_WITHDRAWN, "Player phoned: keep it")]


def test_a_player_cannot_enter_a_request_as_staff(player, player2, swedish):
    swedish(player)
    _excluded_days_ago(player, 400)
    with pytest.raises(Exception):  # noqa: B017 - PermissionDenied: a player holds no lookup_players
        rg.exclusion_end_request(player=player, actor=player2, reason="x")
    assert not ExclusionEnd.objects.exists()


def test_the_player_asks_on_their_page_sees_it_pending_in_swedish_and_can_keep_it(client_for, player, swedish):
    from django.urls import reverse

    swedish(player)
    _excluded_days_ago(player, 400)
    client = client_for(player)
    url = reverse("responsible_page")
    page = client.get(url + "?lang=en").content.decode()
    assert "Under the rules of Sweden, an indefinite self-exclusion can end when you ask, at the earliest 365 days" in page
    refused = client.post(url + "?lang=en", {"action": "exclusion_end"})  # the confirmation box left empty
    assert refused.status_code == 400 and not ExclusionEnd.objects.exists()
    asked = client.post(url + "?lang=en", {"action": "exclusion_end", "confirm": "on"}, follow=True)
    end = ExclusionEnd.objects.get()
    when = timezone.localtime(end.effective_at, timezone.get_fixed_timezone(60)).strftime("%Y-%m-%d %H:%M")
    assert f"Your self-exclusion stays in force until {when}" in asked.content.decode()
    assert "(ends on request)" in asked.content.decode()
    swedish_page = client.get(url + "?lang=sv").content.decode()
    assert f"Din självavstängning upphör {when}" in swedish_page and "(upphör på begäran)" in swedish_page
    assert "Behåll min självavstängning" in swedish_page
    kept = client.post(url + "?lang=sv", {"action": "exclusion_end_withdraw"}, follow=True).content.decode()
    assert "Återkallat: din självavstängning gäller tills vidare." in kept
    assert ExclusionEnd.objects.get().withdrawn_at is not None


def test_a_british_player_is_told_it_cannot_be_ended(client_for, player):
    from django.urls import reverse

    PlayerSettings.objects.create(player=player, jurisdiction_id="GB")
    _excluded_days_ago(player, 400)
    page = client_for(player).get(reverse("responsible_page") + "?lang=sv").content.decode()
    assert "Enligt reglerna i Great Britain kan en självavstängning tills vidare inte avslutas på begäran" in page
    assert 'value="exclusion_end"' not in page


def test_support_reviews_then_enters_a_written_request(client_for, support, player, swedish):
    from django.urls import reverse

    swedish(player)
    _excluded_days_ago(player, 400)
    client = client_for(support)
    url = reverse("responsible_support_exclusion_end", args=[player.pk])
    review = client.post(url, {"action": "request", "reason": "Letter of 2026-11-30"})
    body = review.content.decode()
    assert "End the self-exclusion of" in body and "Who will see the reason" in body and "Nothing has changed yet" in body
    assert not ExclusionEnd.objects.exists()
    done = client.post(url, {"action": "request", "reason": "Letter of 2026-11-30", "step": "confirm"}, follow=True)
    assert "Requested: the self-exclusion of" in done.content.decode()
    assert ExclusionEnd.objects.get().actor == support
    again = client.post(url, {"action": "request", "reason": "Again"}, follow=True).content.decode()
    assert "Nothing was changed: an end is already waiting." in again
    page = client.get(reverse("responsible_support_player", args=[player.pk])).content.decode()
    assert "An end is waiting" in page and "Letter of 2026-11-30" in page
