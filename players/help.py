"""A table's help page for players, written from the table's configuration as it is now: the rules in force
(profile, decks, dealing, features, timers and what they decide), the paytables, the limits per currency and the
RTP of each bet as the rules engine computes it. Plain words from docs/rules.md, in the reader's language.

`table_help` returns the facts (language-neutral, minor units and ratios) and the same facts as sections of text
in the active language; the player's page renders them and the game-client API sends them as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from casino.locale_formats import duration_in, money_in, number_in, percent_in, time_in
from casino.reader_language import UnknownLanguage, language_of  # noqa: F401  (the help API's)
from tables import rtp, rtp_exact
from tables import selectors as table_selectors
from tables.models import BetType, Profile, Table

# Side-bet lines in the order a paytable is read (best first), with their names for players.
LINE_NAMES = {
    "any_pair": {"suited_pair": lambda: _("Suited pair (two identical cards)"),
                 "pair": lambda: _("Pair (the same rank)")},
    "21+3": {"suited_trips": lambda: _("Suited three of a kind"), "straight_flush": lambda: _("Straight flush"),
             "three_of_a_kind": lambda: _("Three of a kind"), "straight": lambda: _("Straight"),
             "flush": lambda: _("Flush")},
    "hot3": {"777": lambda: _("Three sevens"), "suited_21": lambda: _("21 in one suit"),
             "21": lambda: _("Total of 21"), "20": lambda: _("Total of 20"), "19": lambda: _("Total of 19")},
    "perfect_pairs": {"perfect": lambda: _("Perfect pair (two identical cards)"),
                      "coloured": lambda: _("Coloured pair (the same rank and colour)"),
                      "mixed": lambda: _("Mixed pair (the same rank, two colours)")},
}


def bet_name(bet_type: str) -> str:
    return {
        BetType.MAIN: _("Main bet"), BetType.ANY_PAIR: _("Any Pair"), BetType.TWENTY_ONE_PLUS_THREE: _("21+3"),
        BetType.HOT3: _("Hot 3"), BetType.PERFECT_PAIRS: _("Perfect Pairs"), BetType.BET_BEHIND: _("Bet Behind"),
        BetType.TIP: _("Tip for the dealer"),
    }[bet_type]


def game_name(profile: str) -> str:
    return {Profile.FREE_BET: _("Free Bet Blackjack"), Profile.FREE_BET_SEATED: _("Live Free Bet Blackjack"),
            Profile.CLASSIC: _("Live Blackjack")}[profile]


def side_bet_rule(side_bet: str) -> str:
    return {
        "any_pair": _("Any Pair wins when your first two cards are of the same rank."),
        "21+3": _("21+3 scores your first two cards and the dealer's up card as a poker hand; it pays once, at "
                  "the best line."),
        "hot3": _("Hot 3 scores your first two cards and the dealer's up card as a blackjack total (an ace "
                  "counts 1 or 11)."),
        "perfect_pairs": _("Perfect Pairs wins when your first two cards are of the same rank."),
    }[side_bet]


@dataclass
class Section:
    key: str
    heading: str
    paragraphs: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "heading": self.heading, "paragraphs": self.paragraphs}


def _sections(document: dict[str, Any], *, main_rtp: float, insurance: Any, beats_blackjack: bool,
              language: str) -> list[Section]:
    decks, seats = document["decks"], document["seats"]
    profile, dealing = document["profile"], document["dealing"]
    free_bet = profile in (Profile.FREE_BET, Profile.FREE_BET_SEATED)
    sections = []

    game = Section("game", _("The game"))
    if profile == Profile.FREE_BET:
        game.paragraphs.append(_("Any number of players share one hand's first two cards and the dealer's cards; "
                                 "each player decides for themselves. The k-th card you ask for is the k-th card "
                                 "dealt after the deal, whatever the others do."))
    else:
        game.paragraphs.append(ngettext("The table has %(seats)s seat; each seat is dealt its own cards.",
                                        "The table has %(seats)s seats; each seat is dealt its own cards in seat "
                                        "order.", seats) % {"seats": number_in(seats, language=language)})
    game.paragraphs.append(ngettext("The cards come from a shoe of %(decks)s deck of 52 cards.",
                                    "The cards come from a shoe of %(decks)s decks of 52 cards.", decks)
                           % {"decks": number_in(decks, language=language)})
    if document["new_shoe_burn"]:
        game.paragraphs.append(_("When a new shoe starts, its first card is shown and as many cards are burned "
                                 "as its value (ace 1, tens 10)."))
    game.paragraphs.append(_("Blackjack (an ace and a ten-value card as your first two cards, not after a split) "
                             "pays 3 to 2. Any other win pays 1 to 1. Equal totals push: your stake comes back."))
    sections.append(game)

    dealer = Section("dealer", _("The dealer"))
    dealer.paragraphs.append(_("The dealer draws to 16 and stands on every 17, soft 17 included."))
    dealer.paragraphs.append({
        "ace_peek": _("The dealer takes a face-down second card and checks it for blackjack only when the up "
                      "card is an ace; a dealer blackjack then ends the round."),
        "eu": _("The dealer takes no second card until every player has acted (European dealing)."),
        "us_peek_before": _("The dealer takes a face-down second card and checks it for blackjack before you act "
                            "when the up card is an ace or a ten-value card; a dealer blackjack ends the round."),
        "us_peek_after": _("The dealer takes a face-down second card, which is turned over after every player "
                           "has acted."),
    }[dealing])
    if dealing == "ace_peek":
        dealer.paragraphs.append(_("With a ten-value up card there is no check: a dealer blackjack found at the end "
                                   "takes the real money on every hand that is not a blackjack or a Charlie; free "
                                   "bets lose nothing."))
    if dealing == "eu" or dealing == "us_peek_after":
        dealer.paragraphs.append(_("A dealer blackjack then takes every stake on a live hand, except that with a "
                                   "ten-value up card the doubled part of a doubled hand is returned."))
    if document["dealer_22_push"]:
        dealer.paragraphs.append(_("A dealer total of 22 pushes every hand still in play; a player blackjack "
                                   "still wins 3 to 2."))
    dealer.paragraphs.append(_("Insurance is offered when the dealer's up card is an ace. It costs half your main "
                               "bet and pays 2 to 1 if the dealer has blackjack."))
    sections.append(dealer)

    decide = Section("decisions", _("Your decisions"))
    decide.paragraphs.append(_("Hit, stand, double (one more card, the bet doubled) or split a pair of equal "
                               "value into two hands. A hand is split once; split aces get one card each."))
    if free_bet:
        decide.paragraphs.append(_("Free Double: on a hard total of 9, 10 or 11 with two cards, you double for "
                                   "free. A win pays twice your bet; a loss costs only your bet."))
        decide.paragraphs.append(_("Free Split: a pair (aces to nines) is split for free; the second hand's "
                                   "free bet wins 1 to 1 and loses nothing. Ten-value pairs are split with "
                                   "real money."))
    decide.paragraphs.append(_("You may double after a split.") if document["double_after_split"]
                             else _("You may not double after a split."))
    if document["charlie_cards"]:
        cards = {"cards": number_in(document["charlie_cards"], language=language)}
        if beats_blackjack:
            decide.paragraphs.append(_("Charlie: a hand of %(cards)s cards that has not gone over 21 wins 1 to 1 "
                                       "at once, even against a dealer 22 or a dealer blackjack found at the "
                                       "end.") % cards)
        else:
            decide.paragraphs.append(_("Charlie: a hand of %(cards)s cards that has not gone over 21 wins 1 to 1, "
                                       "except against a dealer blackjack.") % cards)
    sections.append(decide)

    features = Section("features", _("At this table"))
    if document["bet_behind"]:
        features.paragraphs.append(_("Bet Behind: bet on another player's seat and follow their decisions. It "
                                     "is paid in cash, never insured, and refunded if the seat places no bet."))
    if document["multi_seat"]:
        features.paragraphs.append(_("Multi Seat: you may play several seats in one round."))
    if document["deal_now"]:
        features.paragraphs.append(_("Deal Now: when every seated player has confirmed their bets, betting "
                                     "closes before the timer ends."))
    if document["golden_chips"]:
        features.paragraphs.append(_("Golden Chips: chips the casino gives you, usable as a seat's main bet. A "
                                     "win pays the winnings in cash and spends the chips; a push gives them "
                                     "back; a loss spends them. A double or split on them is paid in cash."))
    if not features.paragraphs:
        features.paragraphs.append(_("This table has no Bet Behind, Multi Seat, Deal Now or Golden Chips."))
    # Older configurations (history, snapshots) have no multi_game: they were all playable alongside others.
    if not document.get("multi_game", True):
        features.paragraphs.append(_("This table is played on its own: while you sit here you cannot join "
                                     "other tables, and you come here from another table by switching to it."))
    sections.append(features)

    timers = Section("timers", _("Timers and automatic decisions"))
    timers.paragraphs.append(ngettext("Betting is open for %(seconds)s second.",
                                      "Betting is open for %(seconds)s seconds.", document["betting_seconds"])
                             % {"seconds": number_in(document["betting_seconds"], language=language)})
    timers.paragraphs.append(ngettext("You have %(seconds)s second for each decision.",
                                      "You have %(seconds)s seconds for each decision.",
                                      document["decision_seconds"])
                             % {"seconds": number_in(document["decision_seconds"], language=language)})
    timers.paragraphs.append({
        "hit_11_or_less": _("If the time runs out, your hand hits on a total of 11 or less and stands above 11. "
                            "It never doubles or splits."),
        "stand": _("If the time runs out, your hand stands. It never doubles or splits."),
    }[document["timeout_rule"]])
    timers.paragraphs.append(_("An insurance question not answered in time counts as declined."))
    timers.paragraphs.append({
        "void_while_betting": _("If you lose your connection while betting is open, your bets are returned to you. "
                                "After betting has closed they stand, and the timer decides for you."),
        "bets_stand": _("If you lose your connection, your bets stand, betting time included, and the timer "
                        "decides for you."),
        "non_live": _("If you lose your connection while betting is open, your bets are returned to you. After "
                      "betting has closed, your hands leave the live round: when you come back you finish them "
                      "yourself, with cards the system draws from a full shoe less the cards already dealt, within "
                      "%(deadline)s; after that the timer's rule finishes them. Your side bets are settled on the "
                      "live cards.") % {"deadline": duration_in(document["non_live_deadline"], language=language)},
    }[document["disconnect_policy"]])
    sections.append(timers)

    returns = Section("rtp", _("Return to player"))
    returns.paragraphs.append(_("The main game returns %(rtp)s of the stakes with the best play, on the first "
                                "hand of a full shoe, as this system computes it exactly for these rules.")
                              % {"rtp": percent_in(main_rtp, language=language)})
    returns.paragraphs.append(_("Insurance returns %(rtp)s.") % {"rtp": percent_in(insurance, language=language)})
    returns.paragraphs.append(_("A round that cannot be completed correctly (a malfunction) is void: every stake "
                                "in it is refunded and no payout of it stands."))
    sections.append(returns)
    return sections


def table_help(*, table: Table, language: str) -> dict[str, Any]:
    """The help of `table` in `language` ("en" or "sv"): facts and text, from its configuration now."""
    document = table_selectors.table_document(table)
    rules = table_selectors.document_rules(document)
    # The exact finite-shoe figure the operator's table page shows too (cached per configuration).
    main_rtp = rtp_exact.main_game_figures(rtp_exact.rtp_rules_from_engine(rules))["rtp"]
    insurance = rtp.insurance_rtp(document["decks"])
    with translation.override(language):
        paytables = []
        for row in table_selectors.table_paytable_rtps(table=table):
            if row.paytable.side_bet not in document["side_bets"]:
                continue
            names = LINE_NAMES[row.paytable.side_bet]
            paytables.append({
                "bet": row.paytable.side_bet, "name": bet_name(row.paytable.side_bet),
                "rule": side_bet_rule(row.paytable.side_bet),
                "rtp": float(row.rtp), "rtp_text": percent_in(row.rtp, language=language),
                "lines": [{"line": line, "name": names[line]() if line in names else line, "pays": pays,
                           "pays_text": _("%(pays)s to 1") % {"pays": number_in(pays, language=language)}}
                          for line, pays in sorted(row.paytable.paytable.items(), key=lambda item: (
                              list(names).index(item[0]) if item[0] in names else len(names), item[0]))],
            })
        limits = []
        offered = set(table_selectors.table_bet_types(table))
        for limit in table_selectors.table_bet_limits(table=table):
            if limit.bet_type not in offered:
                continue
            limits.append({"bet": limit.bet_type, "name": bet_name(limit.bet_type), "currency": limit.currency,
                           "min": limit.min, "max": limit.max,
                           "min_text": money_in(limit.min, limit.currency, language=language),
                           "max_text": money_in(limit.max, limit.currency, language=language)})
        sections = _sections(document, main_rtp=main_rtp, insurance=insurance, language=language,
                             beats_blackjack=rules.charlie_beats_dealer_blackjack)
        return {
            "table": table.code, "name": table.name, "language": language,
            "game": game_name(document["profile"]), "profile": document["profile"],
            "config_version": table.config_version,
            "rules_since": table.updated_at, "rules_since_text": time_in(table.updated_at, language=language),
            "facts": {
                "decks": document["decks"], "dealing": document["dealing"], "seats": document["seats"],
                "common_draw": document["profile"] == Profile.FREE_BET,
                "dealer_22_push": document["dealer_22_push"], "double_after_split": document["double_after_split"],
                "charlie_cards": document["charlie_cards"], "new_shoe_burn": document["new_shoe_burn"],
                "features": {name: document[name] for name in
                             ("bet_behind", "multi_seat", "deal_now", "auto_confirm", "golden_chips",
                              "multi_game")},
                "timers": {"betting_seconds": document["betting_seconds"],
                           "decision_seconds": document["decision_seconds"], "timeout_rule": document["timeout_rule"]},
                "rtp": {"main": main_rtp, "main_infinite_deck": rtp.main_game_infinite_rtp(rules),
                        "insurance": float(insurance)},
                "disconnect_policy": document["disconnect_policy"],
                "non_live_deadline_seconds": document["non_live_deadline"],
                "currencies": list(document["currencies"]),
            },
            "sections": [section.as_dict() for section in sections],
            "paytables": paytables,
            "limits": limits,
        }
