"""The currencies a wallet may hold: minor-unit exponent and the cashier's per-transaction limits.

Amounts are integers in minor units everywhere; text in major units ("12.50") only exists at the edges
(forms and display) and is converted with Decimal, never float.
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from wallet.errors import InvalidAmount, UnknownCurrency


@dataclass(frozen=True)
class Currency:
    code: str
    exponent: int
    name: str
    # Cashier limits per deposit or withdrawal, in minor units.
    cashier_min: int
    cashier_max: int


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("EUR", 2, "Euro", 100, 1_000_000),
        Currency("USD", 2, "US dollar", 100, 1_000_000),
        Currency("GBP", 2, "Pound sterling", 100, 1_000_000),
        Currency("CAD", 2, "Canadian dollar", 100, 1_500_000),
        Currency("SEK", 2, "Swedish krona", 1_000, 10_000_000),
        Currency("JPY", 0, "Japanese yen", 100, 1_500_000),
    )
}


def currency_get(code: str) -> Currency:
    try:
        return CURRENCIES[code]
    except (KeyError, TypeError):
        raise UnknownCurrency(
            f"{code!r} is not a wallet currency (known: {', '.join(sorted(CURRENCIES))})"
        ) from None


def money_format(amount: int, currency: str, *, with_code: bool = True, grouping: bool = True) -> str:
    """1234567 EUR -> "12,345.67 EUR"; integer arithmetic only, so no amount is ever rounded."""
    exponent = currency_get(currency).exponent
    sign = "-" if amount < 0 else ""
    major, minor = divmod(abs(amount), 10**exponent)
    text = f"{sign}{major:,}" if grouping else f"{sign}{major}"
    if exponent:
        text += f".{minor:0{exponent}d}"
    return f"{text} {currency}" if with_code else text


def money_parse(text: str, currency: str) -> int:
    """Read a player's amount in major units ("12.50", "1,000") into minor units, refusing anything inexact."""
    exponent = currency_get(currency).exponent
    cleaned = str(text).strip().replace(",", "").replace(" ", "").replace("_", "")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise InvalidAmount(f"{str(text).strip()!r} is not an amount") from None
    if not amount.is_finite():
        raise InvalidAmount(f"{str(text).strip()!r} is not an amount")
    minor = amount.scaleb(exponent)
    if minor != minor.to_integral_value():
        places = f"{exponent} decimal place{'s' if exponent != 1 else ''}" if exponent else "no decimals"
        raise InvalidAmount(f"{currency} amounts have {places}; {str(text).strip()} is not exact")
    return int(minor)
