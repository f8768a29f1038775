"""A common-draw cash bet placed in one round trip: the database function `rounds_bet_place`.

The busiest request of a live table is a player's bet at a common-draw (Free Bet) table. Through the services it
is a dozen statements in one transaction, and each round trip costs the web process more CPU than the database's
work (docs/benchmarks.md). This function runs the same steps, in the same order, as one statement (one round
trip and, in autocommit, its own durable transaction):

1. the request row (rounds.idempotency): a concurrent twin waits on its unique key;
2. the round FOR SHARE, then the player's common-draw spot FOR UPDATE (the lock order round -> spot -> account),
   or a new spot;
3. under those locks: betting open, its deadline, the table open, the spot's currency and confirmation, the
   stakes already on the spot (read after the lock) within the table's limits, and a side bet only beside a main
   bet;
4. the responsible-gambling state empty (responsible.checks.bet_allowed's common case: no limit, exclusion or
   reality check);
5. the hold, by the wallet's own function `wallet_bet_hold_one_account` (wallet.sql HOLD_FUNCTION_SQL, which
   bet_hold runs too): the transaction row with the wallet's key and fingerprint, the balance taken only if it
   covers the stakes, both entries, the bets;
6. the round bets, the `bets_placed` audit event and the request's result.

It takes only the common case. Whatever the services would refuse, explain or treat specially (any check above
failing, a twin's key or spot, a missing account, a player with limits) makes it undo everything it wrote and
return NULL; the caller then runs the services' path, which gives the answer and the error message exactly as
before. So the function never has to word a refusal, and the rules it does check are checked again by the
path that explains them. The database's own guards (balance CHECK, zero-sum check at commit, append-only
triggers, unique keys) apply to its rows as to any others.

What the caller (rounds.services.betting) must have checked from the round's frozen config before calling:
the table is a common draw, the currency is one of its currencies, every side bet is offered, the main bet is
even, and the limits passed (min, max per bet) are the table's for that currency.
"""

from __future__ import annotations

from wallet.sql import POINT_LOOKUPS

# The wallet's fingerprint of the hold names the spot in each bet's meta, which only the function learns: the
# caller passes the fingerprint's text with this placeholder, replaced by the spot's id before it is hashed.
SPOT_PLACEHOLDER = -987654321987

FUNCTION_SQL = """
CREATE OR REPLACE FUNCTION rounds_bet_place(
    p_round_id bigint, p_game_number text, p_opened_at timestamptz, p_player_id integer,
    p_request_key text, p_request_fingerprint text, p_now timestamptz, p_written_at timestamptz,
    p_currency text, p_confirm_blocks boolean,
    p_kinds text[], p_amounts bigint[], p_mins bigint[], p_maxs bigint[],
    p_wallet_key text, p_wallet_fingerprint_text text, p_wallet_meta jsonb
) RETURNS jsonb LANGUAGE plpgsql %(point_lookups)s AS $fn$
DECLARE
    v_request bigint;
    v_round record;
    v_spot bigint;
    v_spot_currency text;
    v_spot_confirmed boolean;
    v_stakes jsonb;
    v_main_after bigint;
    v_account bigint;
    v_wallet_bets bigint[];
    v_bet_ids bigint[];
    v_result jsonb;
    v_hold record;
BEGIN
    BEGIN  -- a block with an exception handler: leaving it by 'fallback' undoes every row written in it
        INSERT INTO rounds_roundrequest (user_id, key, operation, fingerprint, round_id, result, created_at)
        VALUES (p_player_id, p_request_key, 'bets_place', p_request_fingerprint, p_round_id, '{}', p_written_at)
        RETURNING id INTO v_request;

        SELECT r.state, r.deadline, r.game_number, r.opened_at, t.state AS table_state INTO v_round
          FROM (SELECT id, state, deadline, game_number, opened_at, table_id FROM rounds_round
                 WHERE id = p_round_id FOR SHARE) r
          JOIN tables_table t ON t.id = r.table_id;
        IF NOT FOUND OR v_round.game_number <> p_game_number OR v_round.opened_at <> p_opened_at
           OR v_round.state <> 'betting_open' OR (v_round.deadline IS NOT NULL AND p_now >= v_round.deadline)
           OR v_round.table_state <> 'open' THEN
            RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';
        END IF;

        SELECT id, currency, confirmed_through IS NOT NULL INTO v_spot, v_spot_currency, v_spot_confirmed
          FROM rounds_spot
         WHERE round_id = p_round_id AND player_id = p_player_id AND seat IS NULL AND voided_at IS NULL
         ORDER BY id FOR UPDATE;
        IF v_spot IS NULL THEN
            -- A twin creating the same spot makes this wait on the unique index, then fail: the services'
            -- path places the bet on the twin's spot.
            INSERT INTO rounds_spot (round_id, player_id, seat, behind, currency, created_at, void_reason, status)
            VALUES (p_round_id, p_player_id, NULL, false, p_currency, p_now, '', 'waiting')
            RETURNING id INTO v_spot;
            v_stakes := '{}';
        ELSE
            IF v_spot_currency <> p_currency OR (p_confirm_blocks AND v_spot_confirmed) THEN
                RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';
            END IF;
            -- Read by its own statement, after the lock: it sees every bet committed while this one waited.
            SELECT coalesce(jsonb_object_agg(kind, total), '{}') INTO v_stakes
              FROM (SELECT b.kind, sum(b.amount) AS total FROM rounds_roundbet b
                     WHERE b.spot_id = v_spot
                       AND NOT EXISTS (SELECT 1 FROM rounds_betreturn x WHERE x.bet_id = b.id)
                     GROUP BY b.kind) s;
        END IF;

        IF 'main' = ANY(p_kinds) AND coalesce((v_stakes->>'golden_chip')::bigint, 0) > 0 THEN
            RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';  -- a main bet is cash or Golden Chips
        END IF;
        v_main_after := coalesce((v_stakes->>'main')::bigint, 0) + coalesce((v_stakes->>'golden_chip')::bigint, 0)
                        + coalesce((v_stakes->>'bet_behind')::bigint, 0)
                        + coalesce((SELECT sum(a) FROM unnest(p_kinds, p_amounts) u(k, a) WHERE k = 'main'), 0);
        IF v_main_after = 0 OR EXISTS (
            SELECT 1 FROM unnest(p_kinds, p_amounts, p_mins, p_maxs) u(k, a, lo, hi)
             WHERE coalesce((v_stakes->>k)::bigint, 0) + a NOT BETWEEN lo AND hi
        ) THEN
            RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';
        END IF;

        IF EXISTS (SELECT 1 FROM responsible_limitchange WHERE player_id = p_player_id)
           OR EXISTS (SELECT 1 FROM responsible_exclusion WHERE player_id = p_player_id AND starts_at <= p_now
                        AND (ends_at IS NULL OR ends_at > p_now))
           OR EXISTS (SELECT 1 FROM responsible_playersettings WHERE player_id = p_player_id
                        AND coalesce(reality_check_minutes, 0) <> 0) THEN
            RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';
        END IF;

        -- The hold: the wallet's own function (wallet.sql HOLD_FUNCTION_SQL), as the wallet's bet_hold runs it,
        -- with the wallet's key and the fingerprint bet_hold gives these bets (their meta names the spot). An
        -- assignment, not a SELECT: PL/pgSQL evaluates it without starting an executor.
        v_hold := wallet_bet_hold_one_account(
                   p_wallet_key,
                   encode(sha256(convert_to(replace(p_wallet_fingerprint_text, '"spot":' || %(placeholder)s,
                                                    '"spot":' || v_spot), 'UTF8')), 'hex'),
                   p_written_at, p_game_number, NULL, p_wallet_meta, p_player_id, 'player_cash',
                   'house_bets_in_play', p_currency, p_amounts, p_kinds,
                   array_fill(p_game_number, ARRAY[cardinality(p_kinds)]),
                   array_fill(jsonb_build_object('round', p_round_id, 'spot', v_spot), ARRAY[cardinality(p_kinds)]));
        v_account := v_hold.o_account;
        v_wallet_bets := v_hold.o_bets;
        IF v_account IS NULL THEN
            -- No house account yet (the wallet's general path opens it), or the player's is short or missing
            -- (the wallet explains).
            RAISE EXCEPTION 'fallback' USING ERRCODE = 'RB001';
        END IF;

        -- Identity values rise in insertion order, so sorting the ids restores the order of the bets.
        WITH b AS (
            INSERT INTO rounds_roundbet
                (round_id, spot_id, kind, hand_index, amount, currency, funding, wallet_bet_id, created_at)
            SELECT p_round_id, v_spot, u.k, 0, u.a, p_currency, 'cash', u.w, p_now
              FROM unnest(p_kinds, p_amounts, v_wallet_bets) WITH ORDINALITY u(k, a, w, n)
             ORDER BY u.n
            RETURNING id
        ) SELECT array_agg(id ORDER BY id) INTO v_bet_ids FROM b;

        INSERT INTO rounds_roundevent (round_id, at, kind, actor_kind, actor_id, payload)
        SELECT p_round_id, p_now, 'bets_placed', 'player', p_player_id, jsonb_build_object(
            'spot', jsonb_build_object('id', v_spot, 'player', p_player_id, 'seat', NULL, 'behind', false,
                                       'currency', p_currency),
            'bets', jsonb_agg(jsonb_build_object('id', u.b, 'kind', u.k, 'hand', 0, 'amount', u.a,
                                                 'funding', 'cash', 'wallet_bet', u.w) ORDER BY u.n))
          FROM unnest(v_bet_ids, p_kinds, p_amounts, v_wallet_bets) WITH ORDINALITY u(b, k, a, w, n);

        v_result := jsonb_build_object('spot', v_spot, 'bets', to_jsonb(v_bet_ids));
        UPDATE rounds_roundrequest SET result = v_result WHERE id = v_request;
        RETURN v_result;
    EXCEPTION
        WHEN SQLSTATE 'RB001' OR unique_violation THEN
            RETURN NULL;
    END;
END
$fn$

""".replace("%(placeholder)s", f"'{SPOT_PLACEHOLDER}'").replace("%(point_lookups)s", POINT_LOOKUPS)

DROP_SQL = "DROP FUNCTION IF EXISTS rounds_bet_place(bigint, text, timestamptz, integer, text, text, timestamptz, " \
    "timestamptz, text, boolean, text[], bigint[], bigint[], bigint[], text, text, jsonb)"

CALL_SQL = "SELECT rounds_bet_place(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::text[], %s::bigint[], " \
    "%s::bigint[], %s::bigint[], %s, %s, %s::jsonb)"
