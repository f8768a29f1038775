"""The template filters and tags that format what pages show: money, percentages, playing cards, audit payloads.
Every page loads these (`{% load casino_format %}`), so an amount, a rate or a card reads the same on every page."""

from django import template
from django.conf import settings
from django.utils import translation
from django.utils.html import format_html
from django.utils.translation import gettext, pgettext, pgettext_lazy

from casino.money import currency_get, format_minor

register = template.Library()


@register.filter
def money(amount, currency: str) -> str:
    """{{ amount|money:currency }} -> "1,212.50 EUR"; empty for a missing amount. On a page in another
    language (a player's, in Swedish) as that language writes it: "1 212,50 €"."""
    if amount is None or amount == "":
        return ""
    currency_get(currency)
    if (translation.get_language() or settings.LANGUAGE_CODE) != settings.LANGUAGE_CODE:
        return money_here(amount, currency)
    return format_minor(int(amount), currency)


@register.filter
def money_here(amount, currency: str) -> str:
    """Money as the page's language writes it (player pages in English or Swedish): "1,00 €" in Swedish."""
    if amount is None or amount == "":
        return ""
    from django.utils import translation

    from casino.locale_formats import money_in

    return money_in(int(amount), currency, language=translation.get_language() or "en")


@register.filter
def time_here(moment) -> str:
    """A moment as the page's language writes a date and time, with "UTC" said (player pages)."""
    if not moment:
        return ""
    from django.utils import translation

    from casino.locale_formats import time_in

    return time_in(moment, language=translation.get_language() or "en")


def _signed(amount, currency: str, written) -> str:
    if amount is None or amount == "":
        return ""
    amount = int(amount)
    return ("+" if amount > 0 else "") + written(amount, currency)


@register.filter
def signed_money_here(amount, currency: str) -> str:
    """signed_money in the page's language: "+12,50 €" in Swedish."""
    return _signed(amount, currency, money_here)


@register.filter
def signed_money(amount, currency: str) -> str:
    """+12.50 EUR / -3.00 EUR / 0.00 EUR; empty for a missing amount."""
    return _signed(amount, currency, money)


@register.filter
def major(amount, currency: str) -> str:
    """Minor units as the plain major-unit text an operator types: 250000|major:"EUR" -> 2500.00; on a page in
    another language as its reader types it (casino.money.parse_major reads it back): "2500,00" in Swedish."""
    text = format_minor(int(amount), currency, with_code=False, grouping=False)
    if (translation.get_language() or settings.LANGUAGE_CODE) != settings.LANGUAGE_CODE:
        from casino.locale_formats import babel_locale

        return text.replace(".", babel_locale(translation.get_language()).number_symbols["latn"]["decimal"])
    return text


@register.filter
def chips(amounts: list[int], currency: str) -> str:
    return ", ".join(major(amount, currency) for amount in amounts)


@register.filter
def percent(value, places: int = 2) -> str:
    """A fraction as a percentage: 0.98452|percent -> "98.45 %"; a dash when there is none yet."""
    if value is None:
        return "–"
    return f"{float(value) * 100:.{int(places)}f} %"


# A card's name for a screen reader, in the page's language ("Queen of hearts", "hjärter dam").
RANK_NAMES = {"A": pgettext_lazy("card", "Ace"), "T": "10", "J": pgettext_lazy("card", "Jack"),
              "Q": pgettext_lazy("card", "Queen"), "K": pgettext_lazy("card", "King")}
RANK_FACES = {"T": "10"}
SUITS = {"s": ("♠", pgettext_lazy("card", "spades")), "h": ("♥", pgettext_lazy("card", "hearts")),
         "d": ("♦", pgettext_lazy("card", "diamonds")), "c": ("♣", pgettext_lazy("card", "clubs"))}


@register.simple_tag
def card(text: str, hidden: bool = False):
    """<span class="pcard red" role="img" aria-label="Queen of hearts">Q♥</span>; "??" is a face-down card."""
    text = str(text)
    if hidden or text == "??" or len(text) != 2 or text[1] not in SUITS:
        return format_html('<span class="pcard back" role="img" aria-label="{}"></span>', gettext("face-down card"))
    rank, suit = text[0], text[1]
    symbol, suit_name = SUITS[suit]
    name = pgettext("card", "%(rank)s of %(suit)s") % {"rank": RANK_NAMES.get(rank, rank), "suit": suit_name}
    return format_html(
        '<span class="pcard {}" role="img" aria-label="{}"><span class="rank" aria-hidden="true">{}</span>'
        '<span class="suit" aria-hidden="true">{}</span></span>',
        "red" if suit in "hd" else "black", name, RANK_FACES.get(rank, rank), symbol,
    )


@register.filter
def reversal_sentence(entry, done) -> str:
    """A rounds.reversal.PlayerReversal in words, before (done False) or after the money moved."""
    return entry.sentence(done=bool(done))


@register.filter
def get(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def payload_text(payload) -> str:
    """An audit payload as compact JSON (the template folds long ones away)."""
    import json

    return json.dumps(payload, sort_keys=True, separators=(", ", ": "), default=str)
