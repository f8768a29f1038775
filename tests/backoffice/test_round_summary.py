"""The round summary at the top of the round page (support) and of the player's game page: each player's stake,
return and net in the currency, the outcome in one sentence, and what happened in order with times (UTC)."""

import re

from django.urls import reverse
from django.utils import translation

from rounds import services as round_services
from rounds.round_summary import round_summary


def text(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def plain(html: str) -> str:
    import html as h

    return re.sub(r"\s+", " ", h.unescape(re.sub(r"<[^>]+>", " ", html)))


def summary_of(page: str) -> str:
    return plain(page[page.index('id="summary-heading"'):page.index("</section>", page.index('id="summary-heading"'))])


def test_support_reads_each_players_money_and_the_steps_in_order_above_the_detail(client_for, support, settled):
    page = text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number])))
    assert page.index('id="summary-heading"') < page.index('id="spots-heading"') < page.index('id="audit-heading"')
    summary = summary_of(page)
    assert "Settled: the dealer had 19 (9♣ 10♠)" in summary
    assert "alice_plays seat 1 +10.00 EUR Won 10.00 EUR 20.00 EUR" in summary
    assert "bob_plays seat 2 -30.00 EUR Lost 30.00 EUR 0.00 EUR" in summary
    assert "2 players staked 40.00 EUR in 2 bets." in summary
    steps = re.findall(r"\d\d:\d\d:\d\d ([^<]+?)(?= \d\d:\d\d:\d\d | In order|$)", summary.split("(times in UTC)")[1])
    assert steps[0] == "The round opened (shoe 1)."
    joined = " | ".join(steps)
    order = ["alice_plays (seat 1) bet Main 10.00 EUR.", "Betting closed.",
             "Cards dealt: seat 1 10♥, seat 2 10♠, dealer 9♣, seat 1 K♦, seat 2 6♣.",
             "alice_plays (seat 1), hand 1: stand.", "bob_plays (seat 2), hand 1: stand.", "The dealer's turn.",
             "Cards dealt: dealer 10♠.", "Settled: every bet was paid or lost."]
    positions = [joined.index(step) for step in order]
    assert positions == sorted(positions)


def test_the_player_reads_only_their_own_money_and_steps(client_for, settled, alice):
    page = text(client_for(alice).get(reverse("player_game", args=[settled.game_number])))
    summary = summary_of(page)
    assert "Where seat 1 Staked 10.00 EUR Returned 20.00 EUR Net +10.00 EUR Result Won" in summary
    assert "You (seat 1) bet Main 10.00 EUR." in summary and "You (seat 1), hand 1: stand." in summary
    assert "bob_plays" not in page and "30.00" not in summary and "seat 2" not in summary  # not another's


def test_a_reversed_round_says_what_each_player_kept(client_for, operator, settled, alice):
    round_services.round_reverse(round_id=settled.pk, actor=operator, reason="Wrong paytable")
    summary = summary_of(text(client_for(operator).get(reverse("backoffice_round", args=[settled.game_number]))))
    assert "Reversed after it was settled: every payout was taken back and every stake returned." in summary
    assert "alice_plays seat 1 0.00 EUR Reversed" in summary
    assert "The settled round was reversed: Wrong paytable" in summary
    mine = summary_of(text(client_for(alice).get(reverse("player_game", args=[settled.game_number]))))
    assert "Staked 10.00 EUR Returned 10.00 EUR Net 0.00 EUR Result Reversed" in mine and "stakes refunded" not in mine.lower()


def test_a_hole_card_stays_face_down_in_the_players_steps_while_they_play(client_for, play, funded):
    from tests.factories import RoundTableFactory

    table = RoundTableFactory(profile="classic", dealing="us_peek_after")
    player = funded(username="holecard", cash=100_00)
    r = play(table)
    r.bet(player, {"main": 1000}, seat=1)
    r.close()
    r.cards("Th", "9c", "7d", "Kd")  # seat 1, dealer up, seat 1, the dealer's hole card
    summary = summary_of(text(client_for(player).get(reverse("player_game", args=[r.round.game_number]))))
    assert "dealer a face-down card" in summary and "K♦" not in summary


def test_the_summary_is_in_swedish_for_a_swedish_reader(settled, alice):
    with translation.override("sv"):
        summary = round_summary(round=settled, player=alice)
    assert summary.steps[0].text == "Rundan öppnades (sko 1)."
    assert "Spelet stängdes för insatser." in [step.text for step in summary.steps]
    assert "Du (plats 1) satsade Huvudinsats 10,00" in summary.steps[1].text


def test_the_players_game_page_names_its_cards_and_seats_in_swedish_for_a_swedish_browser(client_for, support,
                                                                                           settled, alice):
    """Below the Swedish summary the cards and the seat were English ("Seat 1", "The deal, card by card"); the
    back office stays English whatever the browser says."""
    url = reverse("player_game", args=[settled.game_number])
    swedish = plain(text(client_for(alice).get(url, HTTP_ACCEPT_LANGUAGE="sv")))
    for words in ("Korten", "Dealern", "Plats 1", "Given, kort för kort (", "Registrerat (UTC)",
                  "Insatser", "Belopp", "Utfall", "Beslut", "När (UTC)", "Begärt", "Utfört"):
        assert words in swedish, words
    # The card-by-card table names where each card went: "plats 1", "dealern".
    assert re.search(r"plats 1 \d\d:\d\d:\d\d", swedish) and re.search(r"dealern \d\d:\d\d:\d\d", swedish)
    for words in ("Seat 1", "The deal, card by card", "Recorded (UTC)", "Decisions", "Outcome", "Stake"):
        assert words not in swedish, words
    english = plain(text(client_for(alice).get(url)))
    assert "Seat 1" in english and "The deal, card by card" in english and "Plats 1" not in english
    staff = plain(text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number]),
                                              HTTP_ACCEPT_LANGUAGE="sv")))
    assert "Seat 1" in staff and "Recorded (UTC)" in staff and "Plats 1" not in staff


def _moves_and_returns(play, classic_table, funded):
    """A player on seat 2 moves to seat 5, adds a bet and undoes it, takes seat 1 and gives it up."""
    from rounds.services import bets_undo, seat_give_up, seat_move
    from tests.factories import new_key

    player = funded(username="mover", cash=100_00)
    r = play(classic_table)
    r.bet(player, {"main": 1000}, seat=2)
    seat_move(round_id=r.id, player=player, from_seat=2, to_seat=5, idempotency_key=new_key())
    r.bet(player, {"main": 500}, seat=5)
    bets_undo(round_id=r.id, player=player, idempotency_key=new_key())
    r.bet(player, {"main": 2000}, seat=1)
    seat_give_up(round_id=r.id, player=player, seat=1, idempotency_key=new_key())
    return r, player


def test_the_steps_say_which_bets_went_back_and_where_the_player_moved(client_for, support, play, classic_table,
                                                                       funded):
    r, player = _moves_and_returns(play, classic_table, funded)
    summary = round_summary(round=r.round, player=player)
    assert summary.headline == "Still in play (betting is open): nothing is won or lost yet."
    assert [step.text for step in summary.steps] == [
        "The round opened (shoe 1).",
        "You (seat 2) bet Main 10.00 EUR.",
        "You moved from seat 2 to seat 5.",
        "You (seat 5) bet Main 5.00 EUR.",
        "You (seat 5) got Main 5.00 EUR back (undone).",
        "You (seat 1) bet Main 20.00 EUR.",
        "You (seat 1) got Main 20.00 EUR back (seat 1 given up).",
    ]
    mine = summary_of(text(client_for(player).get(reverse("player_game", args=[r.round.game_number]))))
    assert "You moved from seat 2 to seat 5." in mine and "You (seat 5) got Main 5.00 EUR back (undone)." in mine
    staff = summary_of(text(client_for(support).get(reverse("backoffice_round", args=[r.round.game_number]))))
    assert "mover moved from seat 2 to seat 5." in staff and "mover (seat 1) got Main 20.00 EUR back" in staff


def test_bets_going_back_and_seat_moves_read_in_swedish(client_for, play, classic_table, funded):
    r, player = _moves_and_returns(play, classic_table, funded)
    with translation.override("sv"):
        summary = round_summary(round=r.round, player=player)
    steps = [step.text for step in summary.steps]
    # The state in play was the English code's name in the Swedish sentence ("Spelas fortfarande (betting open)").
    assert summary.headline == "Spelas fortfarande (insatser kan läggas): ännu är inget vunnet eller förlorat."
    assert steps[2] == "Du flyttade från plats 2 till plats 5."
    assert steps[4] == "Du (plats 5) fick tillbaka Huvudinsats 5,00\xa0€ (ångrad)."
    assert steps[6] == "Du (plats 1) fick tillbaka Huvudinsats 20,00\xa0€ (plats 1 lämnad)."
    # Below the summary, the seat given up says why in Swedish too (the spot's stored reason is English).
    page = plain(text(client_for(player).get(reverse("player_game", args=[r.round.game_number]),
                                             HTTP_ACCEPT_LANGUAGE="sv")))
    assert "UTC: plats 1 lämnad" in page and "gave up seat" not in page


def test_the_players_game_page_names_bets_results_decisions_hands_and_cards_in_swedish(client_for, settled, alice):
    """Inside the Swedish sections the names were English: "Main", "Won", "Stand", "Player", hand titles, and the
    cards' alt texts ("10 of hearts")."""
    url = reverse("player_game", args=[settled.game_number])
    page = text(client_for(alice).get(url, HTTP_ACCEPT_LANGUAGE="sv"))
    swedish = plain(page)
    assert "Avräknad" in swedish and "Huvudinsats 10,00 € Vunnen 20,00 €" in swedish
    assert "Plats 1 Vinst +10,00 €" in swedish and "Vann +10,00 €" in swedish
    assert "Stanna Stanna Spelare" in swedish
    assert 'aria-label="hjärter 10"' in page and 'aria-label="ruter kung"' in page
    for words in ("Main", "Won", "Stand", "Player", "Settled", "of hearts", "EUR"):
        assert words not in swedish and words not in page.split("<main")[1], words
    english = plain(text(client_for(alice).get(url)))
    assert "Main 10.00 EUR Won 20.00 EUR" in english and "Stand Stand Player" in english


def test_a_reversed_round_reads_in_swedish_on_the_players_pages(client_for, operator, settled, alice):
    from rounds.services import round_void_refunds

    round_services.round_reverse(round_id=settled.pk, actor=operator, reason="Wrong paytable")
    round_void_refunds(round_id=settled.pk)
    games = plain(text(client_for(alice).get(reverse("player_games"), HTTP_ACCEPT_LANGUAGE="sv")))
    assert ("Återförd: gav tillbaka 10,00 € (satsade 10,00 € och fick 20,00 € utbetalt; återföringen ger tillbaka "
            "varje insats och tar tillbaka varje utbetalning)") in games
    english = plain(text(client_for(alice).get(reverse("player_games"))))
    assert "Reversed: gave back 10.00 EUR (staked 10.00 EUR and was paid 20.00 EUR;" in english
