import json

from django import template

from tables.currencies import minor_to_major

register = template.Library()


@register.filter
def major(amount: int, currency: str) -> str:
    """Minor units shown in major units of their currency: 250000|major:"EUR" -> 2500.00."""
    return minor_to_major(int(amount), currency)


@register.filter
def chips(amounts: list[int], currency: str) -> str:
    return ", ".join(minor_to_major(int(amount), currency) for amount in amounts)


@register.filter
def percent(value: float | None, places: int = 2) -> str:
    """A fraction of the stake as a percentage: 0.98452|percent:3 -> 98.452."""
    if value is None:
        return ""
    return f"{value * 100:.{int(places)}f}"


@register.filter
def pretty_json(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True)


@register.filter
def paytable_text(paytable: dict[str, int]) -> str:
    """"Suited pair 25, Pair 8": lines in docs/paytables.md order (JSON storage does not keep key order)."""
    from tables.forms import LINE_LABELS

    order = list(LINE_LABELS)
    lines = sorted(paytable.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    return ", ".join(f"{LINE_LABELS.get(line, line)} {pay}" for line, pay in lines)
