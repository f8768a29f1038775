from django import template

from wallet.currencies import money_format

register = template.Library()


@register.filter
def money(amount, currency):
    """{{ amount|money:currency }} -> "12.50 EUR"; empty for a missing amount."""
    if amount is None or amount == "":
        return ""
    return money_format(int(amount), currency)
