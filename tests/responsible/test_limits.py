"""Setting limits: lower at once, higher after the jurisdiction's cooling-off, the pending change on record."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import StaffAction, StaffActionKind
from responsible import selectors, services
from responsible.errors import ResponsibleError
from responsible.models import Jurisdiction, LimitChange

pytestmark = pytest.mark.django_db


def _in_force(player, now, key=("deposit", "day", "EUR")):
    return selectors.player_state(player_id=player.pk, now=now).limits(now)[key]


def test_lowering_is_immediate_and_raising_waits_72_hours_by_default(player):
    now = timezone.now()
    services.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=100_00, now=now)
    raised = services.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=500_00,
                                now=now + timedelta(minutes=1))
    assert raised.effective_at == now + timedelta(minutes=1, hours=72)
    state = _in_force(player, now + timedelta(hours=1))
    assert (state.value, state.pending_value, state.pending_at) == (100_00, 500_00, raised.effective_at)
    assert _in_force(player, raised.effective_at).value == 500_00


def test_the_cooling_off_is_the_players_jurisdictions_setting(player, swedish):
    swedish(player)
    Jurisdiction.objects.filter(code="SE").update(cooling_off_hours=96)
    now = timezone.now()
    services.limit_set(player=player, kind="loss", period="week", currency="EUR", value=50_00, now=now)
    raised = services.limit_set(player=player, kind="loss", period="week", currency="EUR", value=None, now=now)
    assert raised.effective_at == now + timedelta(hours=96)


def test_sweden_refuses_removing_the_last_deposit_limit_of_a_currency(player, swedish):
    swedish(player)
    services.limit_set(player=player, kind="deposit", period="month", currency="EUR", value=1000_00)
    with pytest.raises(ResponsibleError, match="require a deposit limit"):
        services.limit_set(player=player, kind="deposit", period="month", currency="EUR", value=None)
    services.limit_set(player=player, kind="deposit", period="day", currency="EUR", value=100_00)
    services.limit_set(player=player, kind="deposit", period="month", currency="EUR", value=None)


@pytest.mark.parametrize("kwargs", [
    {"kind": "deposit", "period": "year", "currency": "EUR", "value": 1},
    {"kind": "deposit", "period": "day", "currency": "XXX", "value": 1},
    {"kind": "deposit", "period": "day", "currency": "EUR", "value": 0},
    {"kind": "session", "period": "session", "currency": "", "value": 5},
    {"kind": "bonus", "period": "day", "currency": "EUR", "value": 1},
])
def test_bad_limits_are_refused_and_write_nothing(player, kwargs):
    with pytest.raises(ResponsibleError):
        services.limit_set(player=player, **kwargs)
    assert not LimitChange.objects.exists()


def test_a_limit_support_enters_for_a_player_is_a_staff_action_with_its_reason(player, support):
    with pytest.raises(ResponsibleError):
        services.limit_set(player=player, kind="session", value=60, actor=support, reason="")
    services.limit_set(player=player, kind="session", value=60, actor=support, reason="Asked by phone")
    action = StaffAction.objects.get(action=StaffActionKind.RG_LIMIT_SET)
    assert (action.actor, action.reason, action.object_ref) == (support, "Asked by phone", str(player.pk))
