"""Currencies a table may accept, with their minor-unit exponent and a rough scale for default limits.

Amounts are always stored in integer minor units. The exponent lets pages show and read amounts in major units
(operators think in euros, not cents) without floats. The scale is only used to propose default limits of a
similar real value when a table is created; operators are expected to review them.
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


@dataclass(frozen=True)
class Currency:
    code: str
    exponent: int
    # Default limits are written for EUR; a currency worth ~1/scale EUR multiplies them by scale.
    default_scale: int


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("EUR", 2, 1),
        Currency("USD", 2, 1),
        Currency("GBP", 2, 1),
        Currency("CHF", 2, 1),
        Currency("CAD", 2, 1),
        Currency("AUD", 2, 1),
        Currency("NZD", 2, 1),
        Currency("SEK", 2, 10),
        Currency("NOK", 2, 10),
        Currency("DKK", 2, 10),
        Currency("PLN", 2, 5),
        Currency("CZK", 2, 25),
        Currency("HUF", 2, 400),
        Currency("RON", 2, 5),
        Currency("BGN", 2, 2),
        Currency("TRY", 2, 40),
        Currency("ZAR", 2, 20),
        Currency("BRL", 2, 5),
        Currency("MXN", 2, 20),
        Currency("INR", 2, 100),
        Currency("CNY", 2, 10),
        Currency("JPY", 0, 100),
        Currency("KRW", 0, 1000),
    )
}


MAX_MAJOR_DIGITS = 16


class AmountError(ValueError):
    pass


def currency_get(code: str) -> Currency:
    try:
        return CURRENCIES[code]
    except KeyError:
        raise AmountError(
            f"{code!r} is not a currency tables accept (known: {', '.join(sorted(CURRENCIES))})"
        ) from None


def major_to_minor(text: str, currency: str) -> int:
    """Parse an operator's amount in major units ("12.50") into minor units, refusing anything inexact."""
    exponent = currency_get(currency).exponent
    cleaned = text.strip().replace(" ", "").replace("_", "")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise AmountError(f"{text.strip()!r} is not an amount") from None
    if not amount.is_finite():
        raise AmountError(f"{text.strip()!r} is not an amount")
    # Refuse before scaling: "1e999999999" would otherwise become an enormous integer.
    if amount and amount.adjusted() >= MAX_MAJOR_DIGITS:
        raise AmountError(f"{text.strip()} {currency} is too large")
    minor = amount.scaleb(exponent)
    if minor != minor.to_integral_value():
        raise AmountError(f"{text.strip()} {currency} has more than {exponent} decimal places")
    return int(minor)


def minor_to_major(amount: int, currency: str) -> str:
    exponent = currency_get(currency).exponent if currency in CURRENCIES else 2
    if exponent == 0:
        return str(amount)
    return str(Decimal(amount).scaleb(-exponent).quantize(Decimal(1).scaleb(-exponent)))
