"""Amounts are read by the reader's locale (Babel, strictly): "10,50" is never 1,050.00; an ambiguous amount is
refused, not guessed; only the digits 0-9 count; the cashier shows the amount it read before money moves."""

import pytest
from django.urls import reverse

from casino.money import AmountError, parse_major
from tests.factories import new_key
from wallet.models import LedgerTransaction


@pytest.mark.parametrize(("language", "text", "minor"), [
    ("en", "10.50", 10_50), ("en", "1,050.00", 1050_00), ("en", "25", 25_00),
    ("sv", "10,50", 10_50), ("sv", "1 050,50", 1050_50), ("sv", "1\u00a0050,50", 1050_50),
])
def test_amounts_are_read_as_their_reader_writes_them(language, text, minor):
    assert parse_major(text, "EUR", language=language) == minor


@pytest.mark.parametrize(("language", "text", "message"), [
    ("en", "10,50", "is not an amount as written here"),  # never 1,050.00
    ("sv", "1,050", "is not exact"),  # a Swede's 1.050 or an English thousand: refused
    ("en", "1e5", "is not an amount"), ("en", "NaN", "is not an amount"),
    ("en", "١٢", "digits 0-9"), ("en", "1²", "digits 0-9"),
])
def test_ambiguous_or_foreign_amounts_are_refused(language, text, message):
    with pytest.raises(AmountError, match=message):
        parse_major(text, "EUR", language=language)


def test_a_three_decimal_currency_refuses_a_text_two_conventions_read_differently():
    from babel import Locale

    from casino.untrusted import InputError, amount_major_parse

    with pytest.raises(InputError, match="could be"):
        amount_major_parse("1,050", exponent=3, locale=Locale.parse("en"))


def test_the_cashier_refuses_a_decimal_comma_in_english_and_moves_nothing(client_for, player):
    response = client_for(player).post(reverse("wallet_cashier"), {
        "step": "review", "operation": "deposit", "currency": "EUR", "amount": "10,50",
        "idempotency_key": new_key()})
    body = response.content.decode()
    assert response.status_code == 400 and "is not an amount as written here" in body
    assert "1,050.00" not in body and not LedgerTransaction.objects.exists()
