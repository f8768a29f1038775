import pytest

from responsible.models import PlayerSettings


@pytest.fixture
def swedish(db):
    """swedish(player) -> the player now plays under the Swedish licence."""

    def make(player):
        PlayerSettings.objects.update_or_create(player=player, defaults={"jurisdiction_id": "SE"})
        return player

    return make
