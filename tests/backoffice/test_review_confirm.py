"""A confirmation does only what its review showed: the confirm form carries a signed digest of the reviewed
change (casino.review_token), and a confirmation whose values were edited after the review, or whose table or
round changed in between, is refused with a clear message and the review shown again. Each flow: table limits,
a paytable, closing a table, voiding a round, granting Golden Chips, the cashier."""

import pytest
from django.urls import reverse

from casino.review_token import CHANGED
from tables.models import BetLimit, Table, TableChange, TablePaytable
from tests.factories import new_key
from tests.helpers import cash, confirm_fields
from wallet import selectors as wallet_selectors
from wallet.models import AccountKind, LedgerTransaction, TransactionKind

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


def refused_with_the_review_again(response, marker: str) -> None:
    assert response.status_code == 409, response.status_code
    page = text(response)
    assert "This is not what you reviewed" in page and "Nothing was done" in page
    assert marker in page and 'name="review"' in page  # the review again, with a token of its own


def form_values(client, url: str, reason: str) -> dict:
    from tests.tables.test_pages import _form_values

    return _form_values(client, url, reason=reason)


# --- table limits and paytables ---------------------------------------------------------------------------

def test_limits_edited_after_the_review_are_not_saved(client_for, operator, free_bet_table):
    client = client_for(operator)
    url = reverse("table_limits", args=[free_bet_table.code])
    review = client.post(url, form_values(client, url, "VIP evening") | {"main__EUR__max": "2500"})
    assert review.status_code == 200 and "became 2,500.00 EUR" in text(review)
    tampered = confirm_fields(review) | {"main__EUR__max": "9000"}
    response = client.post(url, tampered)
    refused_with_the_review_again(response, "became 9,000.00 EUR")
    assert BetLimit.objects.get(table=free_bet_table, bet_type="main", currency="EUR").max == 500_000
    # The new review is of what was sent; confirming it saves exactly that.
    assert client.post(url, confirm_fields(response)).status_code == 302
    assert BetLimit.objects.get(table=free_bet_table, bet_type="main", currency="EUR").max == 900_000


def test_limits_reviewed_before_another_change_of_the_table_are_reviewed_again(client_for, operator,
                                                                               free_bet_table):
    """Two tabs: the limits reviewed in one, a paytable saved in the other; the first confirmation would have
    saved limits reviewed against a configuration that no longer exists."""
    client = client_for(operator)
    limits = reverse("table_limits", args=[free_bet_table.code])
    review = client.post(limits, form_values(client, limits, "VIP evening") | {"main__EUR__max": "2500"})
    paytable = reverse("table_paytable", args=[free_bet_table.code, "perfect_pairs"])
    other = client.post(paytable, form_values(client, paytable, "Promotion") | {"perfect": "20"})
    assert client.post(paytable, confirm_fields(other)).status_code == 302
    version = Table.objects.get(pk=free_bet_table.pk).config_version
    response = client.post(limits, confirm_fields(review))
    refused_with_the_review_again(response, "became 2,500.00 EUR")
    assert Table.objects.get(pk=free_bet_table.pk).config_version == version
    assert not TableChange.objects.filter(table=free_bet_table, reason="VIP evening").exists()
    assert client.post(limits, confirm_fields(response)).status_code == 302
    assert TableChange.objects.filter(table=free_bet_table, reason="VIP evening").count() == 1


def test_a_paytable_edited_after_the_review_is_not_saved(client_for, operator, free_bet_table):
    client = client_for(operator)
    url = reverse("table_paytable", args=[free_bet_table.code, "perfect_pairs"])
    review = client.post(url, form_values(client, url, "Promotion") | {"perfect": "20"})
    assert review.status_code == 200
    response = client.post(url, confirm_fields(review) | {"perfect": "24"})
    refused_with_the_review_again(response, "Perfect pair pays 25 to 1 → 24 to 1.")
    assert TablePaytable.objects.get(table=free_bet_table, side_bet="perfect_pairs").paytable["perfect"] == 25


def test_a_confirmation_with_a_reason_other_than_the_reviewed_one_is_not_saved(client_for, operator,
                                                                               free_bet_table):
    client = client_for(operator)
    url = reverse("table_limits", args=[free_bet_table.code])
    review = client.post(url, form_values(client, url, "VIP evening") | {"main__EUR__max": "2500"})
    response = client.post(url, confirm_fields(review) | {"reason": "something else"})
    refused_with_the_review_again(response, "something else")
    assert not TableChange.objects.filter(table=free_bet_table, reason="something else").exists()


def test_a_confirmation_without_a_review_saves_nothing(client_for, operator, free_bet_table):
    client = client_for(operator)
    url = reverse("table_limits", args=[free_bet_table.code])
    response = client.post(url, form_values(client, url, "VIP evening") | {"main__EUR__max": "2500",
                                                                          "step": "confirm"})
    refused_with_the_review_again(response, "became 2,500.00 EUR")
    assert BetLimit.objects.get(table=free_bet_table, bet_type="main", currency="EUR").max == 500_000


def test_another_operators_review_token_does_not_confirm(client_for, operator, free_bet_table, roles):
    from tests.factories import UserFactory

    other = UserFactory(username="oskar_operator", role="operator", email="oskar@example.test")
    url = reverse("table_limits", args=[free_bet_table.code])
    review = client_for(other).post(url, form_values(client_for(other), url, "VIP") | {"main__EUR__max": "2500"})
    response = client_for(operator).post(url, confirm_fields(review))
    assert response.status_code == 409
    assert BetLimit.objects.get(table=free_bet_table, bet_type="main", currency="EUR").max == 500_000


# --- closing a table --------------------------------------------------------------------------------------

def test_closing_reviewed_before_a_bet_was_placed_is_reviewed_again(client_for, operator, play, free_bet_table,
                                                                   funded):
    """The review said nobody had bet, so no money moves; a bet came in before the confirmation."""
    r = play(free_bet_table)
    client = client_for(operator)
    url = reverse("table_state", args=[free_bet_table.code])
    free_bet_table.refresh_from_db()
    review = client.post(url, {"state": "closed", "version": free_bet_table.config_version, "reason": "Flood"})
    assert review.status_code == 200 and "nobody has bet in it yet" in text(review)
    r.bet(funded(username="late", cash=100_00), {"main": 10_00})
    response = client.post(url, confirm_fields(review))
    assert response.status_code == 409 and "This is not what you reviewed" in text(response)
    assert "10.00 EUR in stakes" in text(response)
    assert Table.objects.get(pk=free_bet_table.pk).state == "open" and r.refresh().state == "betting_open"
    done = client.post(url, confirm_fields(response))
    assert done.status_code == 302 and Table.objects.get(pk=free_bet_table.pk).state == "closed"


def test_closing_with_a_reason_edited_after_the_review_does_not_close(client_for, operator, free_bet_table):
    client = client_for(operator)
    url = reverse("table_state", args=[free_bet_table.code])
    free_bet_table.refresh_from_db()
    review = client.post(url, {"state": "closed", "version": free_bet_table.config_version, "reason": "Flood"})
    response = client.post(url, confirm_fields(review) | {"reason": "Other"})
    assert response.status_code == 409 and "This is not what you reviewed" in text(response)
    assert Table.objects.get(pk=free_bet_table.pk).state == "open"


# --- voiding a round --------------------------------------------------------------------------------------

def test_a_void_whose_reason_was_edited_after_the_review_is_refused(client_for, support, in_play):
    client = client_for(support)
    url = reverse("backoffice_round_void", args=[in_play.round.game_number])
    review = client.post(url, {"step": "review", "reason": "Card misread"}, headers={"HX-Request": "true"})
    response = client.post(url, confirm_fields(review) | {"reason": "Something else"},
                           headers={"HX-Request": "true"})
    assert response.status_code == 409 and str(CHANGED) in text(response)
    assert in_play.refresh().state == "decisions"
    done = client.post(url, confirm_fields(response), headers={"HX-Request": "true"})
    assert done.status_code == 200 and in_play.refresh().state == "voided"


def test_a_void_reviewed_before_another_bet_is_reviewed_again(client_for, support, play, free_bet_table, funded):
    r = play(free_bet_table)
    r.bet(funded(username="first", cash=100_00), {"main": 10_00})
    client = client_for(support)
    url = reverse("backoffice_round_void", args=[r.round.game_number])
    review = client.post(url, {"step": "review", "reason": "Studio fault"}, headers={"HX-Request": "true"})
    assert "10.00 EUR in stakes go back to 1 player" in text(review)
    r.bet(funded(username="second", cash=100_00), {"main": 20_00})
    response = client.post(url, confirm_fields(review), headers={"HX-Request": "true"})
    assert response.status_code == 409 and "30.00 EUR in stakes go back to 2 players" in text(response)
    assert r.refresh().state == "betting_open"


# --- Golden Chips and the cashier -------------------------------------------------------------------------

def test_a_grant_whose_amount_was_edited_after_the_review_grants_nothing(client_for, operator, alice):
    client = client_for(operator)
    url = reverse("backoffice_player_golden_chips", args=[alice.pk])
    key = new_key()
    review = client.post(url, {"currency": "EUR", "amount": "10", "reason": "Birthday", "idempotency_key": key})
    assert review.status_code == 200 and "<strong>10.00 EUR</strong>" in text(review)
    response = client.post(url, confirm_fields(review) | {"amount_minor": "50000"})
    assert response.status_code == 409 and "This is not what you reviewed" in text(response)
    assert "<strong>500.00 EUR</strong>" in text(response)  # the review again, of what was sent
    assert not LedgerTransaction.objects.filter(kind=TransactionKind.GOLDEN_CHIP_GRANT).exists()
    assert wallet_selectors.player_balance(player=alice, currency="EUR", kind=AccountKind.PLAYER_GOLDEN_CHIPS) == 0
    client.post(url, confirm_fields(review))
    assert wallet_selectors.player_balance(player=alice, currency="EUR",
                                           kind=AccountKind.PLAYER_GOLDEN_CHIPS) == 10_00


def test_a_cashier_confirmation_edited_after_the_review_moves_nothing(client_for, player):
    client = client_for(player)
    url = reverse("wallet_cashier")
    review = client.post(url, {"step": "review", "operation": "deposit", "currency": "EUR", "amount": "25.50",
                               "idempotency_key": new_key()})
    assert review.status_code == 200
    response = client.post(url, confirm_fields(review) | {"amount_minor": "900000"})
    assert response.status_code == 409 and "This is not what you reviewed" in text(response)
    assert not LedgerTransaction.objects.exists()
    done = client.post(url, confirm_fields(review), follow=True)
    assert "Deposited 25.50 EUR." in text(done) and cash(player) == 25_50
