import pytest

from responsible.jurisdictions import jurisdiction_ensure
from responsible.models import Jurisdiction, PlayerSettings


@pytest.fixture
def swedish(db):
    """swedish(player) -> the player now plays under the Swedish licence."""

    def make(player):
        jurisdiction_ensure(Jurisdiction, "SE")
        PlayerSettings.objects.update_or_create(player=player, defaults={"jurisdiction_id": "SE"})
        return player

    return make
