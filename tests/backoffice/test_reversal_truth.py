"""A reversal is shown as what happened: the confirmation before, the void box, the support and player pages,
the player's CSV and the account history after all say what each player gives back (or gets back) and why.

In the `settled` round alice staked 10.00 and won (paid 20.00); bob staked 30.00 and lost. Reversing takes
10.00 back from alice and gives bob his 30.00 back."""

import csv
import io

from django.urls import reverse

from rounds.services import round_void_refunds


def text(response) -> str:
    return response.content.decode()


def _reverse(client, settled):
    from tests.helpers import round_void_post

    response = round_void_post(client, settled.game_number, reason="Dealer misread the hand")
    assert response.status_code == 302
    round_void_refunds(round_id=settled.pk)


def test_the_reversal_confirmation_says_who_gives_back_what(client_for, operator, settled):
    url = reverse("backoffice_round_void", args=[settled.game_number])
    review = text(client_for(operator).post(url, {"step": "review", "reason": "Dealer misread the hand"},
                                            headers={"HX-Request": "true"}))
    assert "in stakes go back" not in review  # the old, false summary
    assert "alice_plays gives back 10.00 EUR (staked 10.00 EUR and was paid 20.00 EUR" in review
    assert "bob_plays gets back 30.00 EUR (staked 30.00 EUR and was paid 0.00 EUR" in review
    assert "10.00 EUR to be taken back from 1 player account" in review
    assert "Who sees the reason" in review


def test_after_a_reversal_the_void_box_and_round_page_say_what_moved(client_for, operator, support, settled):
    _reverse(client_for(operator), settled)
    page = text(client_for(support).get(reverse("backoffice_round", args=[settled.game_number])))
    assert "every stake refunded" not in page and "(0 of" not in page
    assert "Reversed: the compensating adjustments are done" in page
    assert "alice_plays gave back 10.00 EUR" in page and "bob_plays got back 30.00 EUR" in page


def test_the_players_history_and_csv_show_the_reversal_not_the_win(client_for, operator, settled, alice):
    _reverse(client_for(operator), settled)
    client = client_for(alice)
    games = text(client.get(reverse("player_games")))
    assert "Reversed: gave back 10.00 EUR" in games and "stakes refunded" not in games
    rows = list(csv.reader(io.StringIO(b"".join(client.get(reverse("player_games_csv")).streaming_content)
                                       .decode())))
    header, row = rows[0], next(r for r in rows[1:] if r[0] == settled.game_number)
    record = dict(zip(header, row, strict=False))
    assert record["returned"].startswith("10.00"), record  # the stake back, not the 20.00 paid and taken back
    assert record["result"].startswith("reversed: gave back 10.00 EUR"), record


def test_the_account_history_explains_the_adjustment_and_links_its_round(client_for, operator, support, settled,
                                                                            alice):
    _reverse(client_for(operator), settled)
    mine = text(client_for(alice).get(reverse("wallet_home")))
    assert f"Reversal of round {settled.game_number}: staked 10.00 EUR and was paid 20.00 EUR; the payout taken " \
           "back" in mine
    assert "Reason: Dealer misread the hand" in mine
    assert f'href="{reverse("player_game", args=[settled.game_number])}"' in mine
    staff = text(client_for(support).get(reverse("backoffice_player", args=[alice.pk])))
    assert f"Reversal of round {settled.game_number}" in staff
    assert f'href="{reverse("backoffice_round", args=[settled.game_number])}"' in staff
