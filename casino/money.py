"""The one list of ISO currencies the system knows, shared by tables (limits) and the wallet (accounts).

Amounts are integers in minor units everywhere; text in major units ("12.50") exists only at the edges (forms,
display) and is converted with Decimal, never float. Each app wraps these errors in its own error types.
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from casino.untrusted import MAX_AMOUNT_MINOR, InputError, ascii_digits_check, shown

# Far beyond any real amount; refusing earlier keeps "1e999999999" from becoming a billion-digit integer.
MAX_MAJOR_DIGITS = 16
MAX_TEXT_LENGTH = 64


class AmountError(ValueError):
    """An unknown currency or an amount that is not exact in the currency's minor units."""


# Limits proposed for a new table and the cashier's per-transaction limits are written for EUR (in cents); a
# currency worth about 1/scale EUR multiplies them by its scale.
_EUR_CASHIER_MIN, _EUR_CASHIER_MAX = 100, 1_000_000


@dataclass(frozen=True)
class Currency:
    code: str
    exponent: int
    name: str
    scale: int

    def _from_eur_cents(self, cents: int) -> int:
        return cents * self.scale * 10**self.exponent // 100

    @property
    def cashier_min(self) -> int:
        return self._from_eur_cents(_EUR_CASHIER_MIN)

    @property
    def cashier_max(self) -> int:
        return self._from_eur_cents(_EUR_CASHIER_MAX)


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("EUR", 2, "Euro", 1),
        Currency("USD", 2, "US dollar", 1),
        Currency("GBP", 2, "Pound sterling", 1),
        Currency("CHF", 2, "Swiss franc", 1),
        Currency("CAD", 2, "Canadian dollar", 1),
        Currency("AUD", 2, "Australian dollar", 1),
        Currency("NZD", 2, "New Zealand dollar", 1),
        Currency("SEK", 2, "Swedish krona", 10),
        Currency("NOK", 2, "Norwegian krone", 10),
        Currency("DKK", 2, "Danish krone", 10),
        Currency("PLN", 2, "Polish złoty", 5),
        Currency("CZK", 2, "Czech koruna", 25),
        Currency("HUF", 2, "Hungarian forint", 400),
        Currency("RON", 2, "Romanian leu", 5),
        Currency("BGN", 2, "Bulgarian lev", 2),
        Currency("TRY", 2, "Turkish lira", 40),
        Currency("ZAR", 2, "South African rand", 20),
        Currency("BRL", 2, "Brazilian real", 5),
        Currency("MXN", 2, "Mexican peso", 20),
        Currency("INR", 2, "Indian rupee", 100),
        Currency("CNY", 2, "Chinese yuan", 10),
        Currency("JPY", 0, "Japanese yen", 100),
        Currency("KRW", 0, "South Korean won", 1000),
    )
}


def currency_get(code: object) -> Currency:
    currency = CURRENCIES.get(code) if isinstance(code, str) else None
    if currency is None:
        raise AmountError(f"{code!r} is not a known currency (known: {', '.join(sorted(CURRENCIES))})")
    return currency


def parse_major(text: object, currency: str) -> int:
    """Read an amount in major units ("12.50", "1,000") into minor units, refusing anything inexact."""
    exponent = currency_get(currency).exponent
    given = str(text).strip()
    # Decimal() reads any script's digits ("١٢" is 12) and any length; an amount is short and written 0-9.
    if len(given) > MAX_TEXT_LENGTH:
        raise AmountError(f"{shown(given)} is not an amount")
    try:
        ascii_digits_check(given, field="amount")
    except InputError as error:
        raise AmountError(error.message) from None
    cleaned = given.replace(",", "").replace(" ", "").replace("_", "")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise AmountError(f"{given!r} is not an amount") from None
    if not amount.is_finite():
        raise AmountError(f"{given!r} is not an amount")
    if amount and amount.adjusted() >= MAX_MAJOR_DIGITS:
        raise AmountError(f"{given} {currency} is too large")
    minor = amount.scaleb(exponent)
    if minor != minor.to_integral_value():
        places = f"{exponent} decimal place{'s' if exponent != 1 else ''}" if exponent else "no decimals"
        raise AmountError(f"{currency} amounts have {places}; {given} is not exact")
    if abs(minor) > MAX_AMOUNT_MINOR:
        raise AmountError(f"{given} {currency} is more than any amount the system accepts")
    return int(minor)


def format_minor(amount: int, currency: str, *, with_code: bool = True, grouping: bool = True) -> str:
    """1234567 EUR -> "12,345.67 EUR"; integer arithmetic only, so no amount is ever rounded."""
    exponent = currency_get(currency).exponent
    sign = "-" if amount < 0 else ""
    major, minor = divmod(abs(amount), 10**exponent)
    text = f"{sign}{major:,}" if grouping else f"{sign}{major}"
    if exponent:
        text += f".{minor:0{exponent}d}"
    return f"{text} {currency}" if with_code else text
