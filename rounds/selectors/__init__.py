"""Reads of rounds: the live view of a round, its record, its replay, its full record, and lookups.

One module per responsibility; callers import from here (`from rounds import selectors`), which names every read:

    lookup       a round by game number, the one in play at a table, the latest, its rules, lists, last bets
    record       the round as the engine needs it, from its tables or rebuilt from its audit trail alone
    replay       round_replay: the audit trail through the engine, compared with what was settled and paid
    full_record  round_full_record: everything about one round (the staff API)
    live_view    round_view (studio and game client), the hole-card rule, the offers a position has
    stats        a common draw's decisions so far, the spots' statuses

The back office (support desk, regulator) uses `round_by_game_number`, `round_full_record` and `round_replay`;
the game client API uses `round_view` and `decision_stats`; a player's game history is rounds.game_history.
"""

from rounds.selectors.full_record import round_full_record
from rounds.selectors.live_view import (
    dealer_cards_shown,
    hole_card_hidden,
    offer_cash,
    offer_funded,
    round_view,
    spot_view,
)
from rounds.selectors.lookup import (
    last_bets,
    player_in_round,
    round_active_for_table,
    round_by_game_number,
    round_id_by_game_number,
    round_latest_for_table,
    round_rules,
    rounds_list,
)
from rounds.selectors.record import (
    BET_RECORD_FIELDS,
    DECISION_RECORD_FIELDS,
    AuditedRound,
    bet_record,
    decision_record,
    round_record_from_events,
    round_record_load,
)
from rounds.selectors.replay import RoundReplay, round_replay
from rounds.selectors.stats import decision_stats, round_share, spot_play_rows, spot_statuses

__all__ = [
    "BET_RECORD_FIELDS",
    "DECISION_RECORD_FIELDS",
    "AuditedRound",
    "RoundReplay",
    "bet_record",
    "dealer_cards_shown",
    "decision_record",
    "decision_stats",
    "hole_card_hidden",
    "last_bets",
    "offer_cash",
    "offer_funded",
    "player_in_round",
    "round_active_for_table",
    "round_by_game_number",
    "round_full_record",
    "round_id_by_game_number",
    "round_latest_for_table",
    "round_record_from_events",
    "round_record_load",
    "round_replay",
    "round_rules",
    "round_share",
    "round_view",
    "rounds_list",
    "spot_play_rows",
    "spot_statuses",
    "spot_view",
]
