"""The template filters that format money and percentages: every page loads these (`{% load casino_format %}`),
so an amount or a rate reads the same on every page."""

from django import template

from casino.money import currency_get, format_minor

register = template.Library()


@register.filter
def money(amount, currency: str) -> str:
    """{{ amount|money:currency }} -> "1,212.50 EUR"; empty for a missing amount."""
    if amount is None or amount == "":
        return ""
    currency_get(currency)
    return format_minor(int(amount), currency)


@register.filter
def signed_money(amount, currency: str) -> str:
    """+12.50 EUR / -3.00 EUR / 0.00 EUR; empty for a missing amount."""
    if amount is None or amount == "":
        return ""
    amount = int(amount)
    return ("+" if amount > 0 else "") + money(amount, currency)


@register.filter
def major(amount, currency: str) -> str:
    """Minor units as the plain major-unit text an operator types: 250000|major:"EUR" -> 2500.00."""
    return format_minor(int(amount), currency, with_code=False, grouping=False)


@register.filter
def chips(amounts: list[int], currency: str) -> str:
    return ", ".join(major(amount, currency) for amount in amounts)


@register.filter
def percent(value, places: int = 2) -> str:
    """A fraction as a percentage: 0.98452|percent -> "98.45 %"; a dash when there is none yet."""
    if value is None:
        return "–"
    return f"{float(value) * 100:.{int(places)}f} %"
