"""The back office says what happened in plain words (issue #16, raw internals on pages): no codes, no doubled
words, a natural called a blackjack, seats in seat order. Each test failed before its change."""

from django.urls import reverse

from rounds import services as round_services
from rounds.models import Round, RoundState
from tests.backoffice.scenarios import settle_classic


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def test_a_natural_is_titled_blackjack_not_soft_21(client_for, support, play, classic_table, alice):
    r = play(classic_table)
    r.bet(alice, {"main": 1000}, seat=1)
    r.close()
    r.cards("Ah", "9c", "Kd")  # seat 1, dealer up, seat 1: a natural
    r.cards("Ts")  # the dealer's 19: the blackjack wins
    r.complete()
    round = r.settle()
    page = text(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    assert "<small>Blackjack" in page and "soft 21" not in page
    mine = text(client_for(alice).get(reverse("player_game", args=[round.game_number])))
    assert "<small>Blackjack" in mine and "soft 21" not in mine


def test_seats_are_listed_in_seat_order_not_in_bet_order(client_for, support, play, classic_table, alice, bob):
    r = play(classic_table)
    r.bet(bob, {"main": 1000}, seat=5)  # bets first
    r.bet(alice, {"main": 1000}, seat=2)
    page = text(client_for(support).get(reverse("backoffice_round", args=[r.round.game_number])))
    spots = page[page.index('id="spots-heading"'):]
    assert spots.index("Seat 2") < spots.index("Seat 5")


def test_a_staff_void_says_who_once_with_their_role(client_for, support, in_play):
    round_services.round_void(round_id=in_play.id, actor=support, reason="Card misread")
    round = Round.objects.get(pk=in_play.id)
    page = text(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    assert f"Voided by {support.get_username()} (support)" in page
    assert "Voided by staff by" not in page


def test_a_malfunction_says_malfunction_once_on_the_dashboard_and_round_page(client_for, operator, play,
                                                                              classic_table, alice):
    r = play(classic_table)
    r.bet(alice, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "9c", "Kd")
    r.decide(alice, "stand", seat=1)
    r.cards("Ts")  # the dealer's 19
    r.cards("5c")  # a draw on 19: a malfunction voids the round
    round = r.refresh()
    assert (round.state, round.void_kind) == (RoundState.VOIDED, "malfunction")
    dashboard = text(client_for(operator).get(reverse("backoffice_dashboard")))
    assert "Malfunction: Malfunction" not in dashboard and "Malfunction: " in dashboard
    page = text(client_for(operator).get(reverse("backoffice_round", args=[round.game_number])))
    assert "Malfunction: Malfunction" not in page and "Voided by the system: a malfunction" in page


def test_the_round_page_names_codes_and_shows_limits_in_money(client_for, support, settled):
    page = text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number])))
    config = page[page.index('id="config-heading"'):]
    assert "Live Blackjack, European dealing" in config and "classic_eu" not in config
    assert "Perfect Pairs (pays to 1:" in config and "perfect_pairs" not in config
    assert "Deal Now" in config and "deal_now" not in config and "minor units" not in config
    assert "5,000.00 EUR" in config  # the main bet's maximum, in money


def test_the_audit_trail_reads_as_sentences_in_money(client_for, support, play, classic_table, alice, bob):
    round = settle_classic(play, classic_table, alice, bob)
    page = text(client_for(support).get(reverse("backoffice_round", args=[round.game_number])))
    audit = page[page.index('id="audit-heading"'):page.index('id="config-heading"')]
    assert "alice_plays (seat 1) placed Main 10.00 EUR." in audit
    assert "K♦ to seat 1 (card 2 there)." in audit and "alice_plays (seat 1), hand 1: stand." in audit
    lines = [chunk.split("<details>")[0] for chunk in audit.split("<tr>")[1:]]
    assert not any('"amount"' in line or "bets_placed" in line for line in lines)  # raw only in the folded record


def test_the_search_lists_the_rounds_of_one_second_newest_first_by_their_real_order(client_for, support, play,
                                                                                   classic_table):
    """Game numbers of one second end -2 ... -12; as text "-9" sorted above "-12", so "the 50 newest" was wrong."""
    from datetime import UTC, datetime

    at = datetime(2026, 11, 30, 14, 22, 5, tzinfo=UTC)
    numbers = []
    for _ in range(12):
        r = play(classic_table, now=at)
        numbers.append(r.round.game_number)
        round_services.round_void(round_id=r.id, actor=support, reason="search order test")
    assert numbers[-1].endswith("-12") and numbers[8].endswith("-9")
    page = text(client_for(support).get(reverse("backoffice_search"), {"q": f"{classic_table.code} 2026-11-30 14:22:05"}))
    shown = sorted(numbers, key=lambda number: page.index(f"{number}</a>"))
    assert shown == list(reversed(numbers))


def test_an_operator_may_use_the_search_the_round_page_breadcrumb_links_to(client_for, operator, settled):
    round_page = text(client_for(operator).get(reverse("backoffice_round", args=[settled.game_number])))
    assert f'href="{reverse("backoffice_search")}"' in round_page
    response = client_for(operator).get(reverse("backoffice_search"), {"q": "alice"})
    assert response.status_code in (200, 302)


def test_the_audit_trail_tells_undo_seat_moves_and_returns_in_words(client_for, support, play, classic_table, alice):
    from tests.factories import new_key

    r = play(classic_table)
    r.bet(alice, {"main": 1000}, seat=1)
    r.bet(alice, {"main": 1000}, seat=1)
    round_services.bets_undo(round_id=r.id, player=alice, idempotency_key=new_key())
    round_services.seat_move(round_id=r.id, player=alice, from_seat=1, to_seat=4, idempotency_key=new_key())
    page = text(client_for(support).get(reverse("backoffice_round", args=[r.round.game_number])))
    audit = page[page.index('id="audit-heading"'):page.index('id="config-heading"')]
    assert "1 bet given back (undone)." in audit
    assert "moved from seat 1 to seat 4." in audit and "Seat changed" in audit


def test_no_template_comment_leaks_onto_a_page(client_for, support, settled):
    """A {# #} comment spanning two lines is not a comment in Django: it was printed above every page."""
    page = text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number])))
    assert "{#" not in page and "#}" not in page
