"""The names staff read for the codes a table's configuration stores (`classic_eu`, `perfect_pairs`, `deal_now`,
`suited_21`...). Every staff page, the configuration history and the round page name a code here, so a code
reads the same everywhere and never reaches a page raw. (The player's help pages have their own translated
wording in players.help.)"""

from __future__ import annotations

from tables.models import BetType, Dealing, DisconnectPolicy, Profile, TableState, TimeoutRule

FEATURE_LABELS = {"bet_behind": "Bet Behind", "multi_seat": "Multi Seat", "deal_now": "Deal Now",
                  "auto_confirm": "auto-confirmed bets", "golden_chips": "Golden Chips",
                  "multiple_bets": "Multiple Bets", "multi_game": "playable alongside other tables"}

LINE_LABELS = {
    "suited_pair": "Suited pair", "pair": "Pair",
    "suited_trips": "Suited trips", "straight_flush": "Straight flush", "three_of_a_kind": "Three of a kind",
    "straight": "Straight", "flush": "Flush",
    "777": "7-7-7", "suited_21": "Suited 21", "21": "21", "20": "20", "19": "19",
    "perfect": "Perfect pair", "coloured": "Coloured pair", "mixed": "Mixed pair",
}

# The engine's rule-set names (rounds.engine.rules.SCRIPT_RULE_NAMES) as a person says them.
RULES_LABELS = {
    "free_bet": "Free Bet Blackjack, common draw", "free_bet_seated": "Live Free Bet Blackjack, seven seats",
    "classic": "Live Blackjack", "classic_eu": "Live Blackjack, European dealing",
    "classic_us_peek_before": "Live Blackjack, US dealing (peek before the action)",
    "classic_us_peek_after": "Live Blackjack, US dealing (hole card checked after the action)",
}

# A setting's name in a sentence ("Decks changed from 8 to 6").
SETTING_LABELS = {
    "name": "Name", "profile": "Game", "state": "State", "dealing": "Dealing", "decks": "Decks",
    "charlie_cards": "Charlie rule", "dealer_22_push": "Dealer 22", "double_after_split": "Double after split",
    "timeout_rule": "Timeout rule", "new_shoe_burn": "Burn at a new shoe", "disconnect_policy": "Disconnection",
    "non_live_deadline": "Non-live continuation deadline", "seats": "Seats", "bet_behind": "Bet Behind",
    "multi_seat": "Multi Seat", "deal_now": "Deal Now", "auto_confirm": "Auto-confirmed bets",
    "golden_chips": "Golden Chips", "multiple_bets": "Multiple Bets",
    "deal_now_players": "Deal Now offered up to this many seated players",
    "multi_game": "Playable alongside other tables", "betting_seconds": "Betting time", "decision_seconds": "Decision time",
    "currencies": "Currencies", "side_bets": "Side bets offered",
}


def _choice(choices, code) -> str:
    try:
        return str(choices(code).label)
    except ValueError:
        return str(code)


def profile_label(code: str) -> str:
    return _choice(Profile, code)


def dealing_label(code: str) -> str:
    return _choice(Dealing, code)


def timeout_rule_label(code: str) -> str:
    return _choice(TimeoutRule, code)


def disconnect_policy_label(code: str) -> str:
    return _choice(DisconnectPolicy, code)


def table_state_label(code: str) -> str:
    return _choice(TableState, code)


def bet_type_label(code: str) -> str:
    """main -> "Main bet", perfect_pairs -> "Perfect Pairs", golden_chip -> "Golden Chip"."""
    if code == "golden_chip":
        return "Golden Chip"
    return _choice(BetType, code)


def rules_label(code: str) -> str:
    return RULES_LABELS.get(code, code.replace("_", " "))


def feature_label(code: str) -> str:
    return FEATURE_LABELS.get(code, code.replace("_", " "))


def line_label(code: str) -> str:
    return LINE_LABELS.get(code, code.replace("_", " "))


def setting_label(code: str) -> str:
    return SETTING_LABELS.get(code, code.replace("_", " ").capitalize())
