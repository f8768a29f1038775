"""The tables' view of the shared currency registry (casino.money): operators type and read major units."""

from casino.money import CURRENCIES, AmountError, Currency, currency_get, format_minor, parse_major

__all__ = ["CURRENCIES", "AmountError", "Currency", "currency_get", "major_to_minor", "minor_to_major"]


def major_to_minor(text: str, currency: str) -> int:
    return parse_major(text, currency)


def minor_to_major(amount: int, currency: str) -> str:
    """The plain form-field text of an amount ("12.50"), without grouping or currency code."""
    return format_minor(amount, currency, with_code=False, grouping=False)
