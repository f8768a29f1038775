"""The wallet pages: who may open each, what they show, and the cashier's two steps."""

import re

import pytest
from django.urls import reverse

from tests.factories import BetFactory, DepositFactory, new_key
from tests.helpers import confirm_fields, review_field
from wallet import selectors, services
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db

PLAYER_PAGES = ["wallet_home", "wallet_history_csv", "wallet_cashier"]
STAFF_PAGES = ["wallet_players", "wallet_player", "wallet_player_history_csv"]


def url_for(name, personas):
    return reverse(name, args=[personas["player"].pk]) if name in ("wallet_player", "wallet_player_history_csv") \
        else reverse(name)


@pytest.fixture
def funded(personas):
    DepositFactory(player=personas["player"], amount=123_45)
    DepositFactory(player=personas["player2"], amount=777_00)
    return personas


@pytest.mark.parametrize("name", PLAYER_PAGES + STAFF_PAGES)
@pytest.mark.parametrize("persona", ["operator", "support", "player", "player2"])
def test_each_wallet_page_admits_only_its_roles(client_for, funded, name, persona):
    response = client_for(funded[persona]).get(url_for(name, funded))
    allowed = persona.startswith("player") if name in PLAYER_PAGES else not persona.startswith("player")
    assert response.status_code == (200 if allowed else 403)
    if not allowed:
        body = response.content.decode()
        assert "123.45" not in body and "pat_player" not in body.split("</header>")[-1]


@pytest.mark.parametrize("name", PLAYER_PAGES + STAFF_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(client, funded, name):
    response = client.get(url_for(name, funded))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ["wallet_home", "wallet_history_csv"])
def test_a_player_cannot_open_another_players_account_by_guessing_its_id(client_for, funded, name):
    theirs = Account.objects.get(player=funded["player"]).pk
    response = client_for(funded["player2"]).get(reverse(name), {"account": theirs})
    assert response.status_code == 404
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"123.45" not in body and b"12345" not in body
    for guess in (theirs + 1000, "x"):
        assert client_for(funded["player2"]).get(reverse(name), {"account": guess}).status_code == 404


def test_the_account_page_shows_balances_and_history_with_labelled_tables(client_for, funded):
    player = funded["player"]
    BetFactory(player=player, amount=5_00, reference="G-000777", fund=False)
    body = client_for(player).get(reverse("wallet_home")).content.decode()
    assert "118.45 EUR" in body  # 123.45 - 5.00
    assert "G-000777" in body and '<th scope="col">Balance after</th>' in body.replace(' class="num"', "")
    assert "777.00" not in body


def test_history_pages_by_keyset_and_htmx_appends_only_the_older_rows(client_for, player):
    for amount in range(1, 56):
        DepositFactory(player=player, amount=amount * 1_00)
    client = client_for(player)
    first = client.get(reverse("wallet_home")).content.decode()
    assert first.count("<tr>\n  <td data-label=\"Date (UTC)\"><time") == 50
    older = re.search(r'hx-get="([^"]+)"', first).group(1).replace("&amp;", "&")
    fragment = client.get(older, HTTP_HX_REQUEST="true")
    text = fragment.content.decode()
    assert "<html" not in text and text.count("<time") == 5
    assert "5.00 EUR" in text and "55.00 EUR" not in text and 'id="history-older"' not in text
    full = client.get(older).content.decode()  # the same link without htmx is a whole page
    assert "<html" in full and full.count("<time") == 5 and "Back to the newest entries" in full
    assert client.get(reverse("wallet_home"), {"before": "abc"}).status_code == 400


def test_history_csv_streams_every_entry_newest_first(client_for, player):
    for amount in (1_00, 2_50, 1000_00):
        DepositFactory(player=player, amount=amount)
    response = client_for(player).get(reverse("wallet_history_csv"))
    assert response.streaming and response["Content-Type"].startswith("text/csv")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[0].startswith("date,type,game,game number,currency,bet,payout,amount,balance after")
    assert [line.split(",")[7:9] for line in lines[1:]] == [["1000.00", "1003.50"], ["2.50", "3.50"],
                                                             ["1.00", "1.00"]]


def test_staff_see_any_players_wallet_and_find_players(client_for, funded):
    client = client_for(funded["support"])
    page = client.get(reverse("wallet_player", args=[funded["player"].pk])).content.decode()
    assert "123.45 EUR" in page and "pat_player" in page and "777.00" not in page
    found = client.get(reverse("wallet_players"), {"q": "pat"}).content.decode()
    assert reverse("wallet_player", args=[funded["player"].pk]) in found
    assert reverse("wallet_player", args=[funded["player2"].pk]) not in found
    assert client.get(reverse("wallet_player", args=[987654])).status_code == 404
    theirs = Account.objects.get(player=funded["player2"]).pk
    wrong = client.get(reverse("wallet_player", args=[funded["player"].pk]), {"account": theirs})
    assert wrong.status_code == 404


def cashier_key(body: str) -> str:
    return re.search(r'name="idempotency_key" value="([^"]+)"', body).group(1)


def test_cashier_form_has_labelled_fields_and_a_key_made_when_rendered(client_for, player):
    client = client_for(player)
    first, second = (client.get(reverse("wallet_cashier")).content.decode() for _ in range(2))
    for field in ("id_currency", "id_amount"):
        assert f'<label for="{field}"' in first
    assert "Deposit" in first and "Withdraw" in first
    assert cashier_key(first) != cashier_key(second)


def test_cashier_deposit_needs_a_confirmation_and_a_double_submit_moves_money_once(client_for, player):
    client = client_for(player)
    key = cashier_key(client.get(reverse("wallet_cashier")).content.decode())
    review = client.post(reverse("wallet_cashier"), {"step": "review", "operation": "deposit", "currency": "EUR",
                                                     "amount": "25.50", "idempotency_key": key})
    body = review.content.decode()
    assert review.status_code == 200 and "Confirm your deposit" in body and "25.50 EUR" in body
    assert not LedgerTransaction.objects.exists()
    confirm = {name: re.search(rf'name="{name}" value="([^"]+)"', body).group(1)
               for name in ("step", "operation", "currency", "amount_minor", "idempotency_key")}
    assert confirm == {"step": "confirm", "operation": "deposit", "currency": "EUR", "amount_minor": "2550",
                       "idempotency_key": key}
    confirm["review"] = review_field(review)
    done = client.post(reverse("wallet_cashier"), confirm, follow=True)
    again = client.post(reverse("wallet_cashier"), confirm, follow=True)
    assert "Deposited 25.50 EUR." in done.content.decode()
    assert "already carried out" in again.content.decode()
    assert selectors.player_balance(player=player, currency="EUR") == 25_50
    assert LedgerTransaction.objects.count() == 1


@pytest.mark.parametrize(
    ("amount", "message"),
    [("12.345", "not exact"), ("abc", "is not an amount"), ("0.50", "between 1.00 EUR and 10,000.00 EUR"),
     ("-5", "between"), ("", "required")],
)
def test_cashier_refuses_bad_amounts_at_review_with_a_message(client_for, player, amount, message):
    response = client_for(player).post(reverse("wallet_cashier"), {
        "step": "review", "operation": "deposit", "currency": "EUR", "amount": amount, "idempotency_key": new_key()})
    assert response.status_code == 400 and message in response.content.decode()
    assert not LedgerTransaction.objects.exists()


def test_cashier_withdrawal_beyond_the_balance_is_refused_and_moves_nothing(client_for, player):
    DepositFactory(player=player, amount=10_00)
    # At review, in the player's words: no account number, no ledger talk.
    review = client_for(player).post(reverse("wallet_cashier"), {
        "step": "review", "operation": "withdraw", "currency": "EUR", "amount": "10.01", "idempotency_key": new_key()})
    page = review.content.decode()
    assert review.status_code == 400 and "You have 10.00 EUR in cash, so you can withdraw at most that." in page
    assert "Confirm your withdrawal" not in page and "account holds" not in page
    # A confirmation reviewed when the money was there is refused in the same words.
    from casino.review_token import review_token

    key = new_key()
    token = review_token(user=player, action="cashier", reviewed={
        "operation": "withdraw", "currency": "EUR", "amount": 10_01, "key": key})
    response = client_for(player).post(reverse("wallet_cashier"), {
        "step": "confirm", "operation": "withdraw", "currency": "EUR", "amount_minor": "10_01".replace("_", ""),
        "idempotency_key": key, "review": token})
    page = response.content.decode()
    assert response.status_code == 409 and "You have 10.00 EUR in cash" in page and "account holds" not in page
    assert selectors.player_balance(player=player, currency="EUR") == 10_00
    assert LedgerTransaction.objects.count() == 1
    tampered = client_for(player).post(reverse("wallet_cashier"), {
        "step": "confirm", "operation": "withdraw", "currency": "EUR", "amount_minor": "-5", "idempotency_key": "k"})
    assert tampered.status_code == 400


def test_navigation_offers_wallet_pages_to_the_right_roles(client_for, personas):
    player_nav = client_for(personas["player"]).get(reverse("home")).content.decode()
    support_nav = client_for(personas["support"]).get(reverse("home")).content.decode()
    assert reverse("wallet_home") in player_nav and reverse("wallet_cashier") in player_nav
    assert reverse("wallet_players") not in player_nav
    assert reverse("wallet_players") in support_nav and reverse("wallet_cashier") not in support_nav


def test_a_tip_shows_in_history_with_its_table(client_for, player):
    DepositFactory(player=player, amount=10_00)
    services.tip(player=player, currency="EUR", amount=1_00, table_ref="T-9", idempotency_key=new_key())
    body = client_for(player).get(reverse("wallet_home")).content.decode()
    assert "Tip" in body and "T-9" in body and "9.00 EUR" in body


def test_a_swedish_player_uses_the_cashier_in_swedish_and_types_amounts_as_swedes_do(client_for, player):
    """The cashier page and its review are Swedish for a Swedish browser; "25,50" is 25.50 EUR, read back as
    "25,50 €", and the review's confirmation deposits exactly that."""
    client = client_for(player)
    sv = {"HTTP_ACCEPT_LANGUAGE": "sv"}
    page = client.get(reverse("wallet_cashier"), **sv).content.decode()
    assert "Kassa" in page and "t.ex. 25,00" in page and "Insättning" in page
    key = cashier_key(page)
    review = client.post(reverse("wallet_cashier"), {"step": "review", "operation": "deposit", "currency": "EUR",
                                                     "amount": "25,50", "idempotency_key": key}, **sv)
    body = review.content.decode()
    assert review.status_code == 200 and "Bekräfta din insättning" in body and "25,50\xa0€" in body
    done = client.post(reverse("wallet_cashier"), {**confirm_fields(review)}, follow=True, **sv)
    assert "Insatt 25,50\xa0€." in done.content.decode()
    assert selectors.player_balance(player=player, currency="EUR") == 25_50


def test_a_tip_line_links_to_its_table_never_to_a_game(client_for, player, personas):
    # A tip's reference is the table's code: it was linked as a game number (a 404 page for the player).
    DepositFactory(player=player, amount=10_00)
    services.tip(player=player, currency="EUR", amount=1_00, table_ref="T-9", idempotency_key=new_key())
    body = client_for(player).get(reverse("wallet_home")).content.decode()
    assert f'href="{reverse("player_table", args=["T-9"])}"' in body
    assert reverse("player_game", args=["T-9"]) not in body
    staff = client_for(personas["support"]).get(reverse("wallet_player", args=[player.pk])).content.decode()
    assert "Table T-9" in staff and reverse("backoffice_round", args=["T-9"]) not in staff
    support_page = client_for(personas["support"]).get(reverse("backoffice_player", args=[player.pk])).content.decode()
    assert "Tip at table T-9" in support_page and reverse("backoffice_round", args=["T-9"]) not in support_page


def test_a_deposit_reference_is_not_linked_as_a_game(client_for, player):
    services.deposit(player=player, currency="EUR", amount=5_00, reference="BANK-77", idempotency_key=new_key())
    client = client_for(player)
    body = client.get(reverse("wallet_home")).content.decode()
    assert reverse("player_game", args=["BANK-77"]) not in body
    csv_text = b"".join(client.get(reverse("wallet_history_csv")).streaming_content).decode()
    assert "BANK-77" not in csv_text.splitlines()[1]  # the CSV's game number column is a round's only
