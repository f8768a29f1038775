"""Numbers, money, percentages and times as a reader of a language writes them (Babel's CLDR data), for pages
written in that language: "€1,000.50" and "98.45%" in English, "1 000,50 €" and "98,45 %" in Swedish.

Amounts stay integer minor units everywhere else; this module only shows them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

from babel import Locale
from babel.dates import format_datetime, format_timedelta
from babel.numbers import format_currency, format_decimal

from casino.money import currency_get

# Django's language codes to the CLDR locales whose conventions the pages follow.
LOCALES = {"en": "en_GB", "sv": "sv_SE"}


def babel_locale(language: str) -> Locale:
    return Locale.parse(LOCALES.get(language, LOCALES["en"]))


def money_in(amount: int, currency: str, *, language: str) -> str:
    """Minor units as the language writes an amount of that currency."""
    exponent = currency_get(currency).exponent
    return format_currency(Decimal(amount).scaleb(-exponent), currency, locale=babel_locale(language))


def number_in(value: int | float | Decimal, *, language: str) -> str:
    return format_decimal(value, locale=babel_locale(language))


def percent_in(value: Fraction | float, *, language: str, places: int = 2) -> str:
    """A ratio (0.9845) as the language writes a percentage, to `places` decimals, rounded half-up."""
    locale = babel_locale(language)
    pattern = locale.percent_formats[None].pattern.replace("#,##0", "#,##0." + "0" * places if places else "#,##0")
    exact = Decimal(value.numerator) / Decimal(value.denominator) if isinstance(value, Fraction) else Decimal(value)
    # A pattern with a percent sign multiplies by 100 and writes the language's sign and spacing.
    return format_decimal(exact, format=pattern, locale=locale)


def time_in(moment: datetime, *, language: str) -> str:
    """A moment in UTC, as the language writes a date and time, with "UTC" said."""
    return f"{format_datetime(moment.astimezone(UTC), 'medium', tzinfo=UTC, locale=babel_locale(language))} UTC"


def duration_in(seconds: int, *, language: str) -> str:
    """A length of time in the largest whole unit that fits ("24 hours", "2 days"; "24 timmar" in Swedish)."""
    return format_timedelta(timedelta(seconds=seconds), threshold=2, locale=babel_locale(language))
