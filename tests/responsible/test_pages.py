"""The player's page in English and Swedish, its forms, the game client's API, and support's view."""

from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from accounts.models import StaffAction, StaffActionKind
from responsible import services as rg
from responsible.models import Exclusion, LimitChange

pytestmark = pytest.mark.django_db


def test_the_page_shows_a_limit_and_its_pending_raise_with_the_time(client_for, player):
    client = client_for(player)
    post = {"action": "money_limit", "kind": "deposit", "period": "day", "currency": "EUR"}
    assert client.post(reverse("responsible_page"), post | {"amount": "100.00"}).status_code == 302
    assert client.post(reverse("responsible_page"), post | {"amount": "250"}).status_code == 302
    page = client.get(reverse("responsible_page") + "?lang=en").content.decode()
    pending = LimitChange.objects.order_by("id").last()
    assert "Daily deposit limit" in page and "100.00" in page and "250.00" in page
    # In the time of the player's jurisdiction (Malta, the default), which the page says it uses.
    assert f"from {pending.effective_at.astimezone(ZoneInfo('Europe/Malta')):%Y-%m-%d %H:%M}" in page
    assert "counted in Europe/Malta time" in page


def test_the_page_in_swedish(client_for, player):
    rg.limit_set(player=player, kind="loss", period="week", currency="SEK", value=500_00)
    page = client_for(player).get(reverse("responsible_page") + "?lang=sv")
    assert page["Content-Language"] == "sv"
    text = page.content.decode()
    assert "Spelansvar" in text and "Veckovis förlustgräns" in text and "Ta en paus" in text


def test_a_time_out_needs_the_confirmation_box(client_for, player):
    client = client_for(player)
    refused = client.post(reverse("responsible_page"), {"action": "time_out", "days": "7"})
    assert refused.status_code == 400 and not Exclusion.objects.exists()
    client.post(reverse("responsible_page"), {"action": "time_out", "days": "7", "confirm": "on"})
    assert Exclusion.objects.get().kind == "time_out"


def test_the_api_says_whether_the_player_may_play_and_their_limits(client_for, player):
    rg.limit_set(player=player, kind="session", value=60)
    body = client_for(player).get("/api/responsible/me/").json()
    assert body["may_play"] is True and body["jurisdiction"] == "MT"
    assert body["limits"][0] | {"pending_at": None} == {
        "kind": "session", "period": "session", "currency": "", "name": "session time limit", "value": 60,
        "pending_value": None, "pending_at": None}
    assert client_for(player).post("/api/responsible/reality-check/", {"choice": "maybe"},
                                   content_type="application/json").status_code == 400


def test_support_reads_a_players_limits_and_exclusions_and_sets_their_jurisdiction(client_for, player, support):
    rg.limit_set(player=player, kind="deposit", period="month", currency="EUR", value=900_00)
    rg.exclusion_start(player=player, kind="time_out", days=2)
    client = client_for(support)
    page = client.get(reverse("responsible_support_player", args=[player.pk])).content.decode()
    assert "Monthly deposit limit" in page and "900.00" in page and "Time-out" in page
    client.post(reverse("responsible_support_player", args=[player.pk]),
                {"code": "SE", "reason": "Verified Swedish address"})
    action = StaffAction.objects.get(action=StaffActionKind.RG_JURISDICTION_SET)
    assert action.reason == "Verified Swedish address" and action.details["to"] == "SE"


def test_the_cashier_page_refuses_a_deposit_past_the_limit_with_the_reason_and_moves_nothing(client_for, player):
    from tests.factories import new_key
    from wallet.models import LedgerTransaction

    rg.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=10_00)
    from tests.helpers import confirm_fields

    client = client_for(player)
    review = client.post(reverse("wallet_cashier"), {
        "step": "review", "operation": "deposit", "currency": "EUR", "amount": "20.00", "idempotency_key": new_key()})
    refused = client.post(reverse("wallet_cashier"), confirm_fields(review))
    assert refused.status_code == 409
    assert "daily deposit limit" in refused.content.decode()
    assert not LedgerTransaction.objects.exists()


def test_a_due_reality_check_is_on_every_player_page_until_answered(client_for, player):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    from tests.factories import new_key
    from wallet import services

    services.deposit(player=player, currency="EUR", amount=50_00, idempotency_key=new_key())
    rg.reality_check_set(player=player, minutes=15)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        client = client_for(player)
        services.bet_hold(player=player, holds=[services.BetHoldSpec(5_00, "EUR")], idempotency_key=new_key())
        clock.move_to(start + timedelta(minutes=10))
        services.bet_hold(player=player, holds=[services.BetHoldSpec(5_00, "EUR")], idempotency_key=new_key())
        clock.move_to(start + timedelta(minutes=16))
        page = client.get(reverse("player_tables")).content.decode()
        assert "You have played for 16 minutes." in page and "-€10.00" in page
        client.post(reverse("responsible_reality_answer"), {"choice": "continue"})
        assert "You have played for" not in client.get(reverse("player_tables")).content.decode()


def test_the_page_names_the_national_register_of_the_players_own_jurisdiction_only(client_for, player, swedish):
    # A Maltese player was told "Sweden's national register Spelpaus.se excludes you ...": not their register.
    page = client_for(player).get(reverse("responsible_page") + "?lang=en").content.decode()
    assert "rules of Malta" in page and "Spelpaus" not in page and "GAMSTOP" not in page
    swedish(player)
    page = client_for(player).get(reverse("responsible_page") + "?lang=sv").content.decode()
    assert "Sveriges nationella register Spelpaus.se" in page
