import pytest
from hypothesis import given
from hypothesis import strategies as st

from casino.untrusted import MAX_AMOUNT_MINOR
from tables.currencies import CURRENCIES, AmountError, major_to_minor, minor_to_major


@given(amount=st.integers(min_value=-MAX_AMOUNT_MINOR, max_value=MAX_AMOUNT_MINOR),
       currency=st.sampled_from(sorted(CURRENCIES)))
def test_amounts_shown_in_major_units_read_back_exactly(amount, currency):
    assert major_to_minor(minor_to_major(amount, currency), currency) == amount


@pytest.mark.parametrize(
    ("text", "currency", "minor"),
    [("12.5", "EUR", 1250), (" 1 000.10 ", "GBP", 100010), ("2500", "JPY", 2500), ("0.01", "USD", 1)],
)
def test_operators_type_major_units(text, currency, minor):
    assert major_to_minor(text, currency) == minor


@pytest.mark.parametrize(
    ("text", "currency", "message"),
    [("1.001", "EUR", "2 decimal places; 1.001 is not exact"), ("1.5", "JPY", "no decimals; 1.5 is not exact"),
     ("abc", "EUR", "is not an amount"), ("NaN", "EUR", "is not an amount"), ("1e999999999", "EUR", "too large"),
     ("5", "XYZ", "not a known currency")],
)
def test_inexact_or_unreadable_amounts_are_refused(text, currency, message):
    with pytest.raises(AmountError, match=message):
        major_to_minor(text, currency)
