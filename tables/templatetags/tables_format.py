import json

from django import template

register = template.Library()


@register.filter
def pretty_json(value) -> str:
    return json.dumps(value, indent=2, sort_keys=True)


@register.filter
def paytable_text(paytable: dict[str, int]) -> str:
    """"Suited pair 25, Pair 8": lines in docs/paytables.md order (JSON storage does not keep key order)."""
    from tables.labels import LINE_LABELS

    order = list(LINE_LABELS)
    lines = sorted(paytable.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    return ", ".join(f"{LINE_LABELS.get(line, line)} {pay}" for line, pay in lines)


@register.filter
def change_sentences(change) -> list[str]:
    """A TableChange as the plain sentences of tables.change_words (its stored summary is the raw diff)."""
    from tables.change_words import change_sentences as sentences

    return sentences(change.before, change.after)
