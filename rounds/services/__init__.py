"""Every write of a round: opening, bets, cards, insurance, decisions, timers, settlement, voids and reversals.

Each public service is one `transaction.atomic(durable=True)`: the round's state change, its audit events
(rounds.audit) and the wallet's money movements (called with `durable=False`) commit together or not at all.
Transitions are compare-and-set updates (`filter(state=old).update(state=new)`); Celery work is queued with
`transaction.on_commit`, carrying the round id only. Rows are locked round -> spots -> accounts (rounds.locks);
the services players call run once per (user, idempotency key) (rounds.idempotency).

One module per responsibility; callers import from here (`from rounds import services`), which names every
service and the limits they check:

    opening      shoes, round_open, game numbers
    betting      bets_place / bets_repeat / bets_double, player_disconnect
    returns      stakes given back while betting is open (undo, unconfirmed at the close, a seat given up)
    undo         bets_undo (the last placement, or everything)
    confirmation bets_confirm, betting_confirm (Deal Now)
    seats        seat_move, seat_give_up (Multi Seat)
    dealing      round_betting_close, card_record, the deal order
    insurance    insurance_decide, the end of the insurance phase and the dealer's peek
    continuation the non-live continuation: reconnect, decide, the deadline's sweep
    play         decision_make, Bet Behinds following their seat, whose turn it is
    timers       round_advance, timeouts, rounds_timers_sweep
    settlement   dealer_complete, round_settle
    voids        round_void, round_void_refunds, round_reverse, spot refunds
    table_state  table_open / table_pause / table_resume / table_close, table_state_change (page, admin)
    sweeps       rounds_recovery_sweep
    attention    round_attention_flag (the worker gave up), round_attention_retry (staff)
"""

from rounds.idempotency import KEY_MAX_LENGTH
from rounds.services._common import REASON_MAX_LENGTH
from rounds.services.attention import round_attention_flag, round_attention_retry
from rounds.services.betting import (
    BET_NAMES,
    MAX_STAKE,
    bets_double,
    bets_place,
    bets_repeat,
    player_disconnect,
)
from rounds.services.confirmation import bets_confirm, betting_confirm
from rounds.services.continuation import (
    continuation_complete,
    continuation_decide,
    continuation_reconnect,
    continuation_view,
    continuations_sweep,
)
from rounds.services.dealing import card_record, round_betting_close
from rounds.services.insurance import insurance_decide
from rounds.services.opening import round_open, shoe_cut_card, shoe_start
from rounds.services.play import PLAYER_ACTIONS, STATUS_OF, decision_make
from rounds.services.seats import seat_give_up, seat_move
from rounds.services.settlement import dealer_complete, round_settle
from rounds.services.sweeps import RECOVERY_GRACE_SECONDS, rounds_recovery_sweep
from rounds.services.table_state import table_close, table_open, table_pause, table_resume, table_state_change
from rounds.services.timers import round_advance, rounds_timers_sweep
from rounds.services.undo import bets_undo
from rounds.services.voids import round_reverse, round_void, round_void_refunds

__all__ = [
    "BET_NAMES",
    "KEY_MAX_LENGTH",
    "MAX_STAKE",
    "PLAYER_ACTIONS",
    "REASON_MAX_LENGTH",
    "RECOVERY_GRACE_SECONDS",
    "STATUS_OF",
    "bets_confirm",
    "bets_double",
    "bets_place",
    "bets_repeat",
    "bets_undo",
    "betting_confirm",
    "card_record",
    "dealer_complete",
    "decision_make",
    "insurance_decide",
    "player_disconnect",
    "continuation_complete",
    "continuation_decide",
    "continuation_reconnect",
    "continuation_view",
    "continuations_sweep",
    "round_advance",
    "round_attention_flag",
    "round_attention_retry",
    "round_betting_close",
    "round_open",
    "round_reverse",
    "round_settle",
    "round_void",
    "round_void_refunds",
    "rounds_recovery_sweep",
    "rounds_timers_sweep",
    "seat_give_up",
    "seat_move",
    "shoe_cut_card",
    "shoe_start",
    "table_close",
    "table_open",
    "table_pause",
    "table_resume",
    "table_state_change",
]
