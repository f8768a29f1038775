"""Every movement of money. Nothing else writes the ledger.

Each service is one database transaction (`durable=True` unless a caller such as `rounds` must put a round's
state change and its money into one transaction) and takes an idempotency key: repeating a call with the
same key and content returns the first result and moves nothing; the same key with other content is refused.

The order inside every service is the same, and it matters:
1. check the input (no database access), so bad input writes nothing;
2. insert the transaction row first: its unique idempotency key makes a concurrent twin wait here, before
   either holds an account lock, and turns a repeat into a replay;
3. read the house accounts (never locked; on PostgreSQL in the same statement as 2) and lock the player
   accounts in primary-key order (wallet.locks);
4. check that the legs balance and every player can pay, then write the running balances, the entries and
   the bets or resolutions (one statement on PostgreSQL, wallet.sql), whatever the number of bets.

One module per responsibility; callers import from here (`from wallet import services`), which names every
service, its specs and the limits it checks:

    ledger   input checks, the idempotent transaction, account locks, the balanced posting (the core)
    cashier  account_for_player, deposit, withdraw, tip, golden_chips_grant, adjust
    bets     BetHoldSpec, BetResolutionSpec, bet_hold, bet_hold_many, bet_resolve, bet_void
"""

from wallet.services.bets import (
    BetHoldSpec,
    BetResolutionSpec,
    bet_hold,
    bet_hold_fingerprint_text,
    bet_hold_many,
    bet_resolve,
    bet_void,
)
from wallet.services.cashier import account_for_player, adjust, deposit, golden_chips_grant, tip, withdraw
from wallet.services.ledger import BET_KIND_MAX_LENGTH, KEY_MAX_LENGTH, MAX_AMOUNT, REFERENCE_MAX_LENGTH

__all__ = [
    "BET_KIND_MAX_LENGTH",
    "KEY_MAX_LENGTH",
    "MAX_AMOUNT",
    "REFERENCE_MAX_LENGTH",
    "BetHoldSpec",
    "BetResolutionSpec",
    "account_for_player",
    "adjust",
    "bet_hold",
    "bet_hold_fingerprint_text",
    "bet_hold_many",
    "bet_resolve",
    "bet_void",
    "deposit",
    "golden_chips_grant",
    "tip",
    "withdraw",
]
