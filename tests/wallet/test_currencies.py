import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.untrusted import MAX_AMOUNT_MINOR
from wallet.currencies import CURRENCIES, currency_get, money_format, money_parse
from wallet.errors import InvalidAmount, UnknownCurrency


@pytest.mark.parametrize(
    ("amount", "currency", "text"),
    [(1234567, "EUR", "12,345.67 EUR"), (-5, "EUR", "-0.05 EUR"), (0, "GBP", "0.00 GBP"), (1500, "JPY", "1,500 JPY")],
)
def test_money_format_uses_the_currencys_exponent(amount, currency, text):
    assert money_format(amount, currency) == text


@given(amount=st.integers(min_value=-MAX_AMOUNT_MINOR, max_value=MAX_AMOUNT_MINOR),
       currency=st.sampled_from(sorted(CURRENCIES)))
def test_formatting_then_parsing_gives_back_the_same_minor_units(amount, currency):
    assert money_parse(money_format(amount, currency, with_code=False), currency) == amount


def test_an_amount_beyond_the_systems_maximum_is_refused():
    with pytest.raises(InvalidAmount, match="more than any amount"):
        money_parse(money_format(MAX_AMOUNT_MINOR + 1, "EUR", with_code=False), "EUR")


@pytest.mark.parametrize(("text", "currency"), [("1.005", "EUR"), ("1.5", "JPY"), ("abc", "EUR"), ("NaN", "EUR"),
                                                ("Infinity", "USD")])
def test_inexact_or_non_numeric_amounts_are_refused(text, currency):
    with pytest.raises(InvalidAmount):
        money_parse(text, currency)


def test_the_registry_has_the_required_currencies_and_refuses_others():
    assert {"EUR", "USD", "GBP", "CAD", "SEK", "JPY"} <= set(CURRENCIES)
    assert currency_get("JPY").exponent == 0
    for code in ("XXX", "eur", None):
        with pytest.raises(UnknownCurrency):
            currency_get(code)


def test_an_absurdly_large_amount_is_refused_before_it_is_computed():
    with pytest.raises(InvalidAmount, match="too large"):
        money_parse("1e999999999", "EUR")
