"""Time-outs, self-exclusions and the national register: no play, no bets, no deposits; withdrawals stay open;
support's register changes are staff actions with their reasons; the register is consulted at sign-in."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import StaffAction, StaffActionKind
from responsible import services as rg
from responsible.errors import Excluded, ResponsibleError
from responsible.models import RegisterEntry
from responsible.signals import SESSION_KEY
from tests.factories import new_key
from wallet import selectors, services

pytestmark = pytest.mark.django_db


def test_a_time_out_is_1_to_42_days_and_a_self_exclusion_six_months_or_more(player):
    for kind, days in (("time_out", 0), ("time_out", 43), ("time_out", None), ("self_exclusion", 30)):
        with pytest.raises(ResponsibleError):
            rg.exclusion_start(player=player, kind=kind, days=days)
    ends = rg.exclusion_start(player=player, kind="self_exclusion", days=183).ends_at
    assert ends - timezone.now() > timedelta(days=182)


def test_support_adds_and_removes_register_entries_with_reasons_as_staff_actions(support, player):
    with pytest.raises(ResponsibleError):
        rg.register_add(identity=player.username, days=None, reason="", actor=support)
    entry = rg.register_add(identity=player.username, days=None, reason="Listed by Spelpaus", actor=support)
    with pytest.raises(ResponsibleError, match="already"):
        rg.register_add(identity=player.username, days=None, reason="again", actor=support)
    with pytest.raises(Excluded, match="national self-exclusion register"):
        services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    rg.register_remove(entry_id=entry.pk, reason="Entry ended at Spelpaus", actor=support)
    services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    actions = list(StaffAction.objects.filter(actor=support).order_by("id").values_list("action", "reason"))
    assert actions == [(StaffActionKind.RG_REGISTER_ADDED, "Listed by Spelpaus"),
                       (StaffActionKind.RG_REGISTER_REMOVED, "Entry ended at Spelpaus")]
    assert RegisterEntry.objects.get().removed_reason == "Entry ended at Spelpaus"


def test_a_player_only_reaches_the_register_through_support(player):
    with pytest.raises(Exception):  # noqa: B017 - PermissionDenied: a player holds no lookup_players
        rg.register_add(identity="someone", days=None, reason="x", actor=player)


def test_an_excluded_player_signs_in_to_withdraw_but_not_to_play(client_for, player, support, free_bet_table):
    services.deposit(player=player, currency="EUR", amount=50_00, idempotency_key=new_key())
    rg.register_add(identity=player.username, days=30, reason="Spelpaus", actor=support)
    client = client_for(player)
    assert "national self-exclusion register" in client.session[SESSION_KEY]
    table_page = client.get(reverse("player_table", args=[free_bet_table.code]))
    assert table_page.status_code == 302 and table_page["Location"] == reverse("responsible_page")
    assert client.get(reverse("wallet_cashier")).status_code == 200
    services.withdraw(player=player, currency="EUR", amount=50_00, idempotency_key=new_key())
    assert selectors.player_balance(player=player, currency="EUR") == 0


def test_a_time_out_started_while_signed_in_closes_the_tables_at_once(client_for, player, free_bet_table):
    client = client_for(player)
    assert client.get(reverse("player_table", args=[free_bet_table.code])).status_code == 200
    rg.exclusion_start(player=player, kind="time_out", days=1)
    assert client.get(reverse("player_table", args=[free_bet_table.code])).status_code == 302
