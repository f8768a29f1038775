"""Support's pages: the search box lands on the right page, the round page shows the whole round, voids and
reversals go through a reason and a confirmation, the player page and its moderation."""

import re
from datetime import UTC

import pytest
from django.urls import reverse

from players.models import PlayerNote, PlayerProfile
from rounds.models import Round, RoundState
from rounds.round_page import round_spots_page
from tests.helpers import chips, golden_chips_grant_post
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return response.content.decode()


# --- search ----------------------------------------------------------------------------------------------

def test_a_whole_game_number_opens_the_round(client_for, support, settled):
    response = client_for(support).get(reverse("backoffice_search"), {"q": settled.game_number.lower()})
    assert response.status_code == 302 and response.url == reverse("backoffice_round", args=[settled.game_number])


def test_a_partial_game_number_with_table_and_time_lists_or_opens_the_rounds(client_for, support, settled, play,
                                                                             classic_table, alice):
    opened = settled.opened_at.astimezone(UTC)
    client = client_for(support)
    for query in (f"LB01 {opened:%Y-%m-%d %H:%M}", f"lb01-{opened:%Y%m%d-%H%M}", f"LB01 {opened:%Y%m%d %H%M%S}"):
        response = client.get(reverse("backoffice_search"), {"q": query})
        assert response.status_code == 302, query
        assert response.url == reverse("backoffice_round", args=[settled.game_number]), query
    second = play(classic_table, now=settled.opened_at.replace(second=(opened.second + 1) % 60))
    listed = client.get(reverse("backoffice_search"), {"q": f"LB01 {opened:%Y-%m-%d %H}"})
    if second.round.game_number[:-2] == settled.game_number[:-2]:  # both began in the same minute
        assert listed.status_code == 200
        assert settled.game_number in text(listed) and second.round.game_number in text(listed)
    nothing = client.get(reverse("backoffice_search"), {"q": "LB01 2001-01-01 10:00"})
    assert nothing.status_code == 404 and "No round of table LB01 began" in text(nothing)


def test_the_search_finds_players_by_username_email_and_id(client_for, support, alice, bob, funded):
    client = client_for(support)
    player_url = reverse("backoffice_player", args=[alice.pk])
    assert client.get(reverse("backoffice_search"), {"q": "ALICE_PLAYS"}).url == player_url
    assert client.get(reverse("backoffice_search"), {"q": f"player {alice.pk}"}).url == player_url
    alice.email = "Alice@Example.test"
    alice.save()
    assert client.get(reverse("backoffice_search"), {"q": "alice@example.TEST"}).url == player_url
    carols = [funded(username="carol_one"), funded(username="carol_two")]
    several = client.get(reverse("backoffice_search"), {"q": "Carol"})
    assert several.status_code == 200
    assert all(reverse("backoffice_player", args=[c.pk]) in text(several) for c in carols)
    assert client.get(reverse("backoffice_search"), {"q": "sam_support"}).status_code == 404  # staff: no player


def test_a_bare_number_that_is_both_a_player_and_a_transaction_lists_both(client_for, support, alice):
    client = client_for(support)
    txn = LedgerTransaction.objects.filter(pk=alice.pk).first()
    response = client.get(reverse("backoffice_search"), {"q": str(alice.pk)})
    if txn is not None:
        assert response.status_code == 200 and f"Transaction #{txn.pk}" in text(response)
        assert reverse("backoffice_player", args=[alice.pk]) in text(response)
    else:
        assert response.url == reverse("backoffice_player", args=[alice.pk])
    last = LedgerTransaction.objects.order_by("-pk").first()
    assert client.get(reverse("backoffice_search"), {"q": f"txn {last.pk}"}).url == reverse(
        "backoffice_transaction", args=[last.pk])


@pytest.mark.parametrize("query", ["", "   ", "LB01 2026-13-45 99:99", "%%%", "x" * 500, "ZZ99 12:00", "1" * 30])
def test_odd_queries_get_an_answer_never_a_500(client_for, support, query):
    response = client_for(support).get(reverse("backoffice_search"), {"q": query})
    assert response.status_code in (200, 404)


# --- the round page --------------------------------------------------------------------------------------

def test_the_round_page_shows_cards_bets_decisions_money_audit_and_configuration(client_for, support, settled,
                                                                                  alice, bob):
    page = text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number])))
    # cards drawn as cards, with their spoken names
    for label in ("10 of hearts", "King of diamonds", "10 of spades", "6 of clubs", "9 of clubs"):
        assert f'aria-label="{label}"' in page
    assert "alice_plays" in page and "bob_plays" in page
    assert "+10.00 EUR" in page and "-30.00 EUR" in page  # each spot's settled result
    assert "Won" in page and "Lost" in page
    assert page.count('<th scope="row">Main</th>') == 2  # one Main bet per player (the limits say "Main bet")
    assert "Stand" in page  # the decisions
    assert "Ledger transactions" in page and "Payout" in page and "Bet" in page
    # the audit trail, in words (the stored payload folded under each line)
    assert "Bets placed" in page and "alice_plays (seat 1) placed Main 10.00 EUR." in page
    assert "Results: alice_plays (seat 1) +10.00 EUR; bob_plays (seat 2) -30.00 EUR." in page
    assert "configuration version 1" in page and "Decks" in page
    assert "Review the reversal" in page  # settled: the action is a reversal
    # the table it was played at, as configured now (the configuration above is the one frozen for the round)
    assert f'href="{reverse("table_detail", args=[settled.table.code])}"' in page


def test_the_round_page_pages_its_players_by_keyset(client_for, support, play, classic_table, funded):
    players = [funded() for _ in range(3)]
    r = play(classic_table)
    for seat, player in enumerate(players, start=1):
        r.bet(player, {"main": 1000}, seat=seat)
    round = r.refresh()
    views, after = round_spots_page(round=round, limit=2)
    assert len(views) == 2 and after is not None
    rest, none = round_spots_page(round=round, after=after, limit=2)
    assert len(rest) == 1 and none is None
    fragment = client_for(support).get(reverse("backoffice_round", args=[round.game_number]),
                                       {"spots_after": views[0].spot.pk}, headers={"HX-Request": "true"})
    assert "<html" not in text(fragment) and players[1].get_username() in text(fragment)
    bad = client_for(support).get(reverse("backoffice_round", args=[round.game_number]), {"spots_after": "x"})
    assert bad.status_code == 400


def test_voiding_needs_a_reason_then_a_confirmation_then_refunds(client_for, support, in_play, alice):
    url = reverse("backoffice_round_void", args=[in_play.round.game_number])
    client = client_for(support)
    no_reason = client.post(url, {"step": "review", "reason": "  "}, headers={"HX-Request": "true"})
    assert no_reason.status_code == 400 and "Give a reason" in text(no_reason)
    review = client.post(url, {"step": "review", "reason": "Card misread"}, headers={"HX-Request": "true"})
    assert review.status_code == 200 and "10.00 EUR in stakes go back to 1 player" in text(review)
    assert Round.objects.get(pk=in_play.id).state == RoundState.DECISIONS  # nothing happened yet
    stale = client.post(url, {"step": "confirm", "reason": "Card misread", "expected_state": "dealer"},
                        headers={"HX-Request": "true"})
    assert stale.status_code == 409 and "review it again" in text(stale)
    from tests.helpers import confirm_fields

    done = client.post(url, confirm_fields(review), headers={"HX-Request": "true"})
    assert done.status_code == 200 and "Refunding stakes" in text(done) and 'hx-trigger="every 1s"' in text(done)
    round = Round.objects.get(pk=in_play.id)
    assert (round.state, round.void_reason, round.voided_by_id) == (RoundState.VOIDED, "Card misread", support.pk)
    # The worker refunds (tests/backoffice/test_browser.py watches it happen); done by hand here.
    from rounds.services import round_void_refunds

    round_void_refunds(round_id=round.pk)
    progress = client.get(reverse("backoffice_round_void_progress", args=[round.game_number]),
                          headers={"HX-Request": "true"})
    assert progress.status_code == 286 and "every stake refunded" in text(progress)
    again = client.post(url, {"step": "confirm", "reason": "twice", "expected_state": "voided"})
    assert again.status_code == 409


def test_a_settled_round_is_reversed_with_compensating_transactions(client_for, operator, settled, alice, bob):
    from tests.helpers import cash

    before = cash(alice), cash(bob)
    from tests.helpers import round_void_post

    response = round_void_post(client_for(operator), settled.game_number, reason="Dealer error")
    assert response.status_code == 302
    assert cash(alice) == before[0] - 1000 and cash(bob) == before[1] + 3000
    assert Round.objects.get(pk=settled.pk).void_kind == "reversal"


def test_the_round_page_works_for_a_round_still_in_play_and_hides_nothing_from_staff(client_for, support,
                                                                                       in_play):
    page = text(client_for(support).get(reverse("backoffice_round", args=[in_play.round.game_number])))
    assert "In play" in page and 'aria-label="8 of hearts"' in page and "Review the void" in page


# --- the player page ---------------------------------------------------------------------------------------

def test_the_player_page_shows_balances_histories_open_rounds_grants_and_notes(client_for, support, settled,
                                                                                 in_play, alice, golden):
    page = text(client_for(support).get(reverse("backoffice_player", args=[alice.pk])))
    assert "alice_plays" in page and "Cash EUR" in page and "Golden Chips EUR" in page
    assert in_play.round.game_number in page  # open rounds (and game history)
    assert settled.game_number in page
    assert "Birthday chips" in page and "25.00 EUR" in page
    assert "Deposit" in page and "No notes." in page and "Enabled." in page


def test_an_operator_grants_golden_chips_once_with_a_reason_and_bad_input_grants_nothing(client_for, operator,
                                                                                          support, alice):
    client = client_for(operator)
    page = client.get(reverse("backoffice_player", args=[alice.pk])).content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    grant = reverse("backoffice_player_golden_chips", args=[alice.pk])
    for bad in ({"amount": "", "reason": "x"}, {"amount": "12.345", "reason": "x"}, {"amount": "-5", "reason": "x"},
                {"amount": "25.00", "reason": ""}, {"amount": "25", "reason": "x", "currency": "XXX"},
                {"amount": "9999999", "reason": "typo"}):
        response = client.post(grant, {"currency": "EUR", "idempotency_key": key, **bad}, follow=True)
        assert "Nothing was granted" in text(response), bad
    assert chips(alice) == 0
    # The review shows the amount as read, and moves nothing until it is confirmed.
    review = client.post(grant, {"currency": "EUR", "amount": "25", "reason": "Loyalty week", "idempotency_key": key})
    assert review.status_code == 200 and chips(alice) == 0
    assert "<dt>Golden Chips to grant</dt><dd><strong>25.00 EUR</strong>" in text(review) and "Nothing has been granted yet" in text(review)
    assert "Who will see the reason: the player" in text(review)
    tampered = client.post(grant, {"step": "confirm", "currency": "EUR", "amount_minor": "999999999",
                                   "reason": "typo", "idempotency_key": key}, follow=True)
    assert "Nothing was granted: One grant is at most" in text(tampered) and chips(alice) == 0
    for _ in range(2):  # a double submit of one form grants once
        _, response = golden_chips_grant_post(client, alice, amount="25.00", reason="Loyalty week", key=key)
        assert "25.00 EUR in Golden Chips granted to alice_plays" in text(response)
    assert chips(alice) == 25_00
    page = text(client.get(reverse("backoffice_player", args=[alice.pk])))
    assert "Loyalty week" in page and "olivia_operator" in page
    assert "Grant Golden Chips" not in text(client_for(support).get(reverse("backoffice_player", args=[alice.pk])))


def test_support_disables_and_enables_chat_with_a_reason_and_notes_record_it(client_for, support, alice):
    client = client_for(support)
    chat = reverse("backoffice_player_chat", args=[alice.pk])
    refused = client.post(chat, {"action": "disable", "reason": ""})
    assert refused.status_code == 302 and not PlayerProfile.objects.filter(chat_disabled=True).exists()
    client.post(chat, {"action": "disable", "reason": "Abusive language"})
    profile = PlayerProfile.objects.get(player=alice)
    assert (profile.chat_disabled, profile.chat_disabled_reason, profile.chat_disabled_by) == (
        True, "Abusive language", support)
    page = text(client.get(reverse("backoffice_player", args=[alice.pk])))
    assert "Chat disabled" in page and "Abusive language" in page
    client.post(reverse("backoffice_player_note", args=[alice.pk]), {"body": "Called about a withdrawal."})
    client.post(chat, {"action": "enable", "reason": "Apologised"})
    notes = list(PlayerNote.objects.filter(player=alice).order_by("id").values_list("body", flat=True))
    assert notes == ["Chat disabled: Abusive language", "Called about a withdrawal.", "Chat enabled again: Apologised"]
    assert not PlayerProfile.objects.get(player=alice).chat_disabled


def test_the_transaction_page_lists_entries_and_links_the_round(client_for, support, settled):
    txn = settled.settlement["wallet_transaction"]
    page = text(client_for(support).get(reverse("backoffice_transaction", args=[txn])))
    assert "Payout" in page and settled.game_number in page and "alice_plays" in page and "house" in page


def test_a_common_draw_round_shows_the_shared_cards_the_stream_and_each_players_hands(client_for, support,
                                                                                       play, free_bet_table,
                                                                                       funded):
    hitter, stander = funded(username="hits_on_12"), funded(username="stands_on_12")
    r = play(free_bet_table)
    r.bet(hitter, {"main": 1000})
    r.bet(stander, {"main": 1000})
    r.close()
    r.cards("7h", "Ts", "5d", "7c")  # players 7 5 = 12 against a 10
    r.decide(hitter, "hit")
    r.decide(stander, "stand")
    r.cards("9c")  # the stream's first card: the hitter's 21
    r.complete()
    round = r.settle()
    page = text(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    assert "Players' shared cards" in page and "Extra cards" in page and "S1" in page and "k-th" not in page
    assert page.count("Common draw") == 2 and "hits_on_12" in page and "stands_on_12" in page
    assert "+10.00 EUR" in page and "-10.00 EUR" in page
    mine = text(client_for(hitter).get(reverse("player_game", args=[round.game_number])))
    assert 'aria-label="9 of clubs"' in mine and "stands_on_12" not in mine


def test_search_details_an_hour_alone_and_an_id_like_username(client_for, support, settled, funded):
    opened = settled.opened_at.astimezone(UTC)
    client = client_for(support)
    hour = client.get(reverse("backoffice_search"), {"q": f"LB01 {opened:%Y-%m-%d} {opened.hour}"})
    assert hour.status_code == 302 and settled.game_number in hour.url
    named = funded(username="p999999")
    assert client.get(reverse("backoffice_search"), {"q": "p999999"}).url == reverse(
        "backoffice_player", args=[named.pk])
    assert client.get(reverse("backoffice_search"), {"q": "999999"}).status_code == 404
