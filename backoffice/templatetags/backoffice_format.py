"""Cards drawn as cards (with a spoken name for screen readers) and audit payloads; money and percentages are
casino_format's."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

RANK_NAMES = {"A": "Ace", "T": "10", "J": "Jack", "Q": "Queen", "K": "King"}
RANK_FACES = {"T": "10"}
SUITS = {"s": ("♠", "spades"), "h": ("♥", "hearts"), "d": ("♦", "diamonds"), "c": ("♣", "clubs")}


@register.simple_tag
def card(text: str, hidden: bool = False):
    """<span class="pcard red" role="img" aria-label="Queen of hearts">Q♥</span>; "??" is a face-down card."""
    text = str(text)
    if hidden or text == "??" or len(text) != 2 or text[1] not in SUITS:
        return mark_safe('<span class="pcard back" role="img" aria-label="face-down card"></span>')
    rank, suit = text[0], text[1]
    symbol, suit_name = SUITS[suit]
    return format_html(
        '<span class="pcard {}" role="img" aria-label="{} of {}"><span class="rank" aria-hidden="true">{}</span>'
        '<span class="suit" aria-hidden="true">{}</span></span>',
        "red" if suit in "hd" else "black", RANK_NAMES.get(rank, rank), suit_name, RANK_FACES.get(rank, rank),
        symbol,
    )


@register.filter
def get(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def payload_text(payload) -> str:
    """An audit payload as compact JSON (the template folds long ones away)."""
    import json

    return json.dumps(payload, sort_keys=True, separators=(", ", ": "), default=str)
