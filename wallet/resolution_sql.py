"""Resolving and voiding bets on PostgreSQL as set-based SQL: the work is done where the rows are.

A common-draw round of 10,000 players resolves 40,000 bets at once. Loading each bet into Python, adding up its
legs there and sending the rows back cost ten times more CPU than the database's own writes
(docs/benchmarks.md). Here Python sends only what it knows, (bet, cash return, chips return), and PostgreSQL
does the rest in two statements:

1. `check_and_lock`: the bets joined with their accounts and resolutions; what is wrong with the request comes
   back (unknown bets, bets already resolved, chips a bet cannot return, a Golden Chip winner without a cash
   account yet), and the player accounts are locked in primary-key order in the same statement;
2. `write`: each bet's legs (the same rules as `wallet.services.bets._settle`'s loop, which SQLite runs: the
   player's per bet, the house's summed per currency), summed per account, the running balances, the entries
   and the resolutions, in one statement.

The requests travel as three bigint arrays for a small batch; from `STAGE_MIN_ROWS` on, they are streamed
with COPY (binary) into a temporary staging table dropped again at the end, which PostgreSQL reads faster
than it parses a long array literal. Every guard stays with the database either way: the unique bet key of a
resolution (exactly once), the foreign keys, the checks on amounts and balances, the append-only triggers and
the zero-sum check at commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from wallet.models import AccountKind, Outcome
from wallet.sql import LedgerStatements, pg_array

STAGE_MIN_ROWS = 2_000
STAGE = "wallet_resolution_stage"
WORK_MEM_MAX_MB = 128  # per sort or hash of the write; about 1 MB per 1,000 bets is enough

CASH = AccountKind.PLAYER_CASH.value
CHIPS = AccountKind.PLAYER_GOLDEN_CHIPS.value
SETTLEMENT_HOUSE_KINDS = (AccountKind.HOUSE_BANKROLL.value, AccountKind.HOUSE_BETS_IN_PLAY.value,
               AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY.value, AccountKind.HOUSE_PROMOTIONS.value)


def set_based(db: LedgerStatements) -> bool:
    """Whether this resolution runs here: on PostgreSQL. (tests/wallet/test_set_based_resolution.py turns it
    off to compare it with the loop of `_settle` on the same database.)"""
    return db.postgres


class Checked(NamedTuple):
    unknown: list[int]
    resolved: list[int]
    # (bet_id, account kind, stake, chips asked back) of bets whose chips return cannot be
    chips: list[tuple[int, str, int, int]]
    currencies: set[str]
    cashless: set[tuple[int, str]]  # (player, currency): a Golden Chip winner with no cash account yet
    locked: int


class SetBasedResolution:
    """One resolution's statements on one LedgerStatements cursor: stage, check and lock, write, clean up."""

    def __init__(self, db: LedgerStatements, rows: Sequence[tuple[int, int, int]]):
        self.db = db
        self.staged = len(rows) >= STAGE_MIN_ROWS
        if self.staged:
            # The write's bets (materialised once, read by five parts of the statement) and its sorts spilled to
            # temporary files at the default 4 MB: room for them in memory, for this transaction only.
            db.cursor.execute("SELECT set_config('work_mem', %s, true)",
                              [f"{min(WORK_MEM_MAX_MB, max(4, len(rows) // 1_000))}MB"])
            db.cursor.execute(f"CREATE TEMPORARY TABLE {STAGE} (bet_id bigint NOT NULL, cash_return bigint NOT "
                              "NULL, chips_return bigint NOT NULL) ON COMMIT DROP")
            with db.cursor.cursor.copy(f"COPY {STAGE} (bet_id, cash_return, chips_return) FROM STDIN "
                                       "(FORMAT BINARY)") as copy:
                copy.set_types(["int8", "int8", "int8"])
                for row in rows:
                    copy.write_row(row)
            self.source, self.params = f"{STAGE} s", []
        else:
            columns = list(zip(*rows, strict=True))
            self.source = "unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS s(bet_id, cash_return, chips_return)"
            self.params = [pg_array(column) for column in columns]

    def close(self) -> None:
        if self.staged:
            # Dropped now rather than at commit: a second resolution in the same transaction stages again.
            self.db.cursor.execute(f"DROP TABLE {STAGE}")

    def check_and_lock(self) -> Checked:
        self.db.cursor.execute(
            f"""
            WITH b AS (
                SELECT s.bet_id, s.cash_return, s.chips_return, w.amount, w.account_id, a.player_id, a.kind,
                       a.currency, r.bet_id IS NOT NULL AS resolved
                  FROM {self.source}
                  LEFT JOIN wallet_bet w ON w.id = s.bet_id
                  LEFT JOIN wallet_account a ON a.id = w.account_id
                  LEFT JOIN wallet_betresolution r ON r.bet_id = s.bet_id
            ), winners AS (
                SELECT DISTINCT player_id, currency FROM b WHERE kind = '{CHIPS}' AND cash_return > 0
            ), locked AS (
                -- One IN over a UNION, not two joined by OR: an OR keeps each IN a subplan, which PostgreSQL
                -- runs once per account when its hash does not fit in work_mem (at 100,000 players and the
                -- default 4 MB: 100,000 accounts x 400,000 bets, minutes); a plain IN is a semi-join.
                SELECT id FROM wallet_account
                 WHERE player_id IS NOT NULL
                   AND id IN (SELECT account_id FROM b
                              UNION SELECT c.id FROM winners w JOIN wallet_account c ON c.player_id = w.player_id
                                       AND c.kind = '{CASH}' AND c.currency = w.currency)
                 ORDER BY id FOR UPDATE
            )
            SELECT 'unknown'::text, bet_id, NULL::bigint, NULL::bigint, NULL::text FROM b WHERE amount IS NULL
            UNION ALL SELECT 'resolved', bet_id, NULL, NULL, NULL FROM b WHERE resolved
            UNION ALL SELECT 'chips', bet_id, amount, chips_return, kind FROM b
             WHERE (kind = '{CASH}' AND chips_return <> 0)
                OR (kind = '{CHIPS}' AND chips_return <> 0 AND chips_return <> amount)
            UNION ALL SELECT 'currency', NULL, NULL, NULL, currency
              FROM (SELECT DISTINCT currency FROM b WHERE currency IS NOT NULL) c
            UNION ALL SELECT 'cashless', w.player_id, NULL, NULL, w.currency FROM winners w
             WHERE NOT EXISTS (SELECT 1 FROM wallet_account c WHERE c.player_id = w.player_id
                               AND c.kind = '{CASH}' AND c.currency = w.currency)
            UNION ALL SELECT 'locked', count(*), NULL, NULL, NULL FROM locked
            """,
            self.params,
        )
        checked = Checked([], [], [], set(), set(), 0)
        for tag, number, amount, chips, text in self.db.cursor.fetchall():
            if tag == "unknown":
                checked.unknown.append(number)
            elif tag == "resolved":
                checked.resolved.append(number)
            elif tag == "chips":
                checked.chips.append((number, text, amount, chips))
            elif tag == "currency":
                checked.currencies.add(text)
            elif tag == "cashless":
                checked.cashless.add((number, text))
            else:
                checked = checked._replace(locked=number)
        checked.unknown.sort()
        checked.resolved.sort()
        checked.chips.sort()
        return checked

    def write(self, *, transaction_id: int, created_at, voiding: bool) -> int:
        """Legs, balances, entries and resolutions in one statement; returns the number of entries written.
        The player accounts must be locked (check_and_lock) and the house accounts must exist."""
        when = self.db._datetime(created_at)
        self.db.cursor.execute(
            f"""
            WITH b AS (
                SELECT s.bet_id, w.amount, w.account_id, a.player_id, a.kind, a.currency,
                       CASE WHEN NOT %s THEN s.cash_return WHEN a.kind = '{CASH}' THEN w.amount ELSE 0 END AS cash,
                       CASE WHEN NOT %s THEN s.chips_return WHEN a.kind = '{CASH}' THEN 0 ELSE w.amount END AS chips
                  FROM {self.source}
                  JOIN wallet_bet w ON w.id = s.bet_id
                  JOIN wallet_account a ON a.id = w.account_id
            ), h AS (
                SELECT id, kind, currency FROM wallet_account
                 WHERE player_id IS NULL AND kind = ANY(%s::text[])
            ), house (currency, kind, amount) AS (
                -- The house's legs summed per currency in one pass over the bets, rather than a leg per bet to
                -- be sorted and summed with the players' (120,000 legs for 40,000 bets, now 40,000 and a few).
                SELECT currency, k.kind, CASE k.kind
                        WHEN '{AccountKind.HOUSE_BETS_IN_PLAY}' THEN t.in_play
                        WHEN '{AccountKind.HOUSE_BANKROLL}' THEN t.bankroll
                        WHEN '{AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY}' THEN t.chips_in_play
                        ELSE t.promotions END
                  FROM (SELECT currency,
                               -- Cash bets: the stake leaves the bets in play; the bankroll keeps what is not
                               -- returned. Golden Chip bets: the chips come back whole or go to promotions; a win
                               -- is paid in cash from the bankroll.
                               sum(CASE WHEN kind = '{CASH}' THEN -amount ELSE 0 END) AS in_play,
                               sum(CASE WHEN kind = '{CASH}' THEN amount - cash ELSE -cash END) AS bankroll,
                               sum(CASE WHEN kind = '{CHIPS}' THEN -amount ELSE 0 END) AS chips_in_play,
                               sum(CASE WHEN kind = '{CHIPS}' AND chips = 0 THEN amount ELSE 0 END) AS promotions
                          FROM b GROUP BY currency) t
                 CROSS JOIN unnest(%s::text[]) AS k(kind)
            ), legs (account_id, amount) AS (
                SELECT b.account_id, b.cash FROM b WHERE b.kind = '{CASH}'
                UNION ALL SELECT b.account_id, b.amount FROM b WHERE b.kind = '{CHIPS}' AND b.chips > 0
                UNION ALL SELECT c.id, b.cash FROM b JOIN wallet_account c ON c.player_id = b.player_id
                   AND c.kind = '{CASH}' AND c.currency = b.currency WHERE b.kind = '{CHIPS}' AND b.cash > 0
                UNION ALL SELECT h.id, house.amount FROM house JOIN h ON h.kind = house.kind
                   AND h.currency = house.currency
            ), sums AS (
                SELECT account_id, sum(amount)::bigint AS amount FROM legs GROUP BY account_id HAVING sum(amount) <> 0
            ), u AS (
                UPDATE wallet_account SET balance = wallet_account.balance + sums.amount FROM sums
                 WHERE wallet_account.id = sums.account_id AND wallet_account.player_id IS NOT NULL
                RETURNING wallet_account.id, wallet_account.balance
            ), e AS (
                INSERT INTO wallet_entry (transaction_id, account_id, amount, balance_after, created_at)
                SELECT %s, sums.account_id, sums.amount, u.balance, %s FROM sums LEFT JOIN u ON u.id = sums.account_id
                 ORDER BY sums.account_id
                RETURNING 1
            ), r AS (
                INSERT INTO wallet_betresolution (bet_id, outcome, cash_return, chips_return, transaction_id,
                                                  created_at)
                SELECT bet_id, CASE
                    WHEN %s THEN '{Outcome.VOIDED}'
                    WHEN kind = '{CASH}' THEN CASE WHEN cash = 0 THEN '{Outcome.LOST}'
                        WHEN cash < amount THEN '{Outcome.PARTIAL}' WHEN cash = amount THEN '{Outcome.PUSHED}'
                        ELSE '{Outcome.WON}' END
                    WHEN cash > 0 THEN '{Outcome.WON}' WHEN chips > 0 THEN '{Outcome.PUSHED}'
                    ELSE '{Outcome.LOST}' END,
                    cash, chips, %s, %s
                  FROM b ORDER BY bet_id
            )
            SELECT count(*) FROM e
            """,
            [voiding, voiding, *self.params, pg_array(SETTLEMENT_HOUSE_KINDS), pg_array(SETTLEMENT_HOUSE_KINDS),
             transaction_id, when, voiding, transaction_id, when],
        )
        return self.db.cursor.fetchone()[0]
