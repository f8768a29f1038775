"""Golden Chips respect the player's jurisdiction's promotions rule (Sweden: promotional credit only at the first
occasion, i.e. before the player's first bet and only once); a refused grant names the rule and moves nothing,
and two concurrent grants to a Swedish player are ordered so that only one goes through."""

import threading

import pytest
from django.db import connections

from accounts.models import StaffAction, StaffActionKind
from responsible.checks import promotion_refusal
from responsible.errors import PromotionRefused
from responsible.models import Jurisdiction
from tests.factories import new_key
from wallet import selectors, services
from wallet.models import AccountKind, LedgerTransaction


def _grant(player, staff, amount=10_00, currency="EUR", key=None):
    return services.golden_chips_grant(player=player, currency=currency, amount=amount, staff=staff,
                                       reason="Welcome offer", idempotency_key=key or new_key())


def _chips(player, currency="EUR"):
    return selectors.player_balance(player=player, currency=currency, kind=AccountKind.PLAYER_GOLDEN_CHIPS)


@pytest.mark.django_db
def test_sweden_allows_one_grant_at_the_first_occasion_and_refuses_the_second_moving_nothing(
        player, operator, swedish):
    swedish(player)
    from django.utils import timezone

    assert promotion_refusal(player=player, now=timezone.now()) == ""
    first = _grant(player, operator)
    before = (LedgerTransaction.objects.count(), StaffAction.objects.count())
    with pytest.raises(PromotionRefused) as refused:
        _grant(player, operator, amount=5_00)
    message = refused.value.message
    assert "Sweden" in message and "first occasion" in message and "received promotional credit already" in message
    assert (LedgerTransaction.objects.count(), StaffAction.objects.count()) == before
    assert _chips(player) == 10_00
    # Another currency is no new occasion either.
    with pytest.raises(PromotionRefused):
        _grant(player, operator, currency="SEK", amount=100_00)
    assert promotion_refusal(player=player, now=timezone.now()) == message
    # A replay of the first grant's key is the first grant, not a second one refused.
    assert _grant(player, operator, key=first.idempotency_key).pk == first.pk


@pytest.mark.django_db
def test_sweden_refuses_a_first_grant_after_the_players_first_bet(funded, operator, swedish, play, classic_table):
    player = funded(username="sven_bettor", cash=100_00)
    play(classic_table).bet(player, {"main": 10_00}, seat=1)
    swedish(player)
    with pytest.raises(PromotionRefused, match="placed a first bet already"):
        _grant(player, operator)
    assert _chips(player) == 0
    assert not StaffAction.objects.filter(action=StaffActionKind.GOLDEN_CHIPS_GRANTED).exists()


@pytest.mark.django_db
def test_great_britain_allows_repeated_grants_and_no_promotions_refuses_every_one(player, player2, operator):
    from responsible.models import PlayerSettings

    PlayerSettings.objects.create(player=player, jurisdiction=Jurisdiction.objects.get(code="GB"))
    _grant(player, operator)
    _grant(player, operator)
    assert _chips(player) == 20_00
    Jurisdiction.objects.filter(code="MT").update(promotions="none")
    PlayerSettings.objects.create(player=player2, jurisdiction_id="MT")
    with pytest.raises(PromotionRefused, match="Malta allow no promotional credit"):
        _grant(player2, operator)
    assert _chips(player2) == 0


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_grants_to_a_swedish_player_one_goes_through(player, operator, swedish):
    swedish(player)
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(i, currency):
        try:
            barrier.wait()
            results[i] = _grant(player, operator, currency=currency)
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[i] = error
        finally:
            connections.close_all()

    # One in EUR, one in SEK: two different Golden Chips accounts, so only the player's settings row orders them.
    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(("EUR", "SEK"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    refused = [r for r in results if isinstance(r, PromotionRefused)]
    done = [r for r in results if isinstance(r, LedgerTransaction)]
    assert (len(done), len(refused)) == (1, 1), results
    assert _chips(player, "EUR") + _chips(player, "SEK") == 10_00


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_grants_in_one_currency_one_goes_through(player, operator, swedish):
    swedish(player)
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(i):
        try:
            barrier.wait()
            results[i] = _grant(player, operator)
        except Exception as error:  # noqa: BLE001 - the test inspects what each got
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(type(r).__name__ for r in results) == ["LedgerTransaction", "PromotionRefused"], results
    assert _chips(player) == 10_00


@pytest.mark.django_db
def test_the_grant_page_says_why_a_grant_is_refused_before_the_review(client_for, operator, player, swedish):
    from django.urls import reverse

    from tests.helpers import golden_chips_grant_post, review_field

    swedish(player)
    client = client_for(operator)
    page = client.get(reverse("backoffice_player", args=[player.pk])).content.decode()
    assert "Promotions under the rules of Sweden: promotional credit only at the player&#x27;s first occasion" in page
    assert "data-promotion-refusal" not in page
    url = reverse("backoffice_player_golden_chips", args=[player.pk])
    # A second review opened while the first occasion still stands: its confirmation comes after the first grant.
    late_key = new_key()
    early_review = client.post(url, {"currency": "EUR", "amount": "5.00", "reason": "Again",
                                     "idempotency_key": late_key})
    assert early_review.status_code == 200 and "Confirm the Golden Chip grant" in early_review.content.decode()
    _, confirmed = golden_chips_grant_post(client, player, amount="10.00", reason="Welcome offer", key=new_key())
    assert "10.00 EUR in Golden Chips granted" in confirmed.content.decode()
    page = client.get(reverse("backoffice_player", args=[player.pk])).content.decode()
    assert "A grant to this player would be refused: The rules of Sweden allow promotional credit only" in page
    assert 'name="amount"' not in page  # no form to fill in for nothing
    before = LedgerTransaction.objects.count()
    review = client.post(reverse("backoffice_player_golden_chips", args=[player.pk]), {
        "currency": "EUR", "amount": "5.00", "reason": "Again", "idempotency_key": new_key()}, follow=True)
    body = review.content.decode()
    assert "Nothing was granted: The rules of Sweden allow promotional credit only" in body
    assert "Confirm the Golden Chip grant" not in body
    # The review opened before the first grant, confirmed now, is refused by the service under its lock.
    confirm = client.post(url, {
        "step": "confirm", "currency": "EUR", "amount_minor": "500", "reason": "Again", "idempotency_key": late_key,
        "review": review_field(early_review)}, follow=True)
    assert "Nothing was granted: The rules of Sweden" in confirm.content.decode()
    assert LedgerTransaction.objects.count() == before and _chips(player) == 10_00
