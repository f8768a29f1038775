"""The ledger's trigger functions and its one-account hold plan their statements as index look-ups, whatever
the size of the tables when a session first runs them.

PL/pgSQL plans each statement of a function once per session and keeps the plan. A statement without
parameters (the statement triggers' checks over their transition tables) keeps it until the table's statistics
change; with statistics that are stale or missing (autovacuum off, a new database, a table that has grown
since it was last analysed) the planner sees a small table and picks a sequential scan feeding a hash join,
and the session goes on scanning the whole table on every insert as it grows: a bet hold cost 0.97 ms of
PostgreSQL CPU after 3,000 holds and more after each (77 % of it in these checks), 0.54 ms with the look-ups by
index (docs/benchmarks.md). Every statement of these functions looks rows up by key, so the functions run with
sequential scans, hash joins and merge joins priced out: the planner takes the indexes, and a check costs what
its own rows cost, never the table's size. A settlement's statement checks tens of thousands of rows at once
the same way, by index (measured in the same place).
"""

from django.db import migrations

FUNCTIONS = ["wallet_entry_references_check", "wallet_betresolution_references_check", "wallet_zero_sum_queue",
             "wallet_zero_sum_check", "wallet_bet_hold_one_account"]
SETTINGS = "SET enable_seqscan = off SET enable_hashjoin = off SET enable_mergejoin = off"
UNDO = "RESET enable_seqscan RESET enable_hashjoin RESET enable_mergejoin"


def _alter(clause: str):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        names = ", ".join(f"'{name}'" for name in FUNCTIONS)
        schema_editor.execute(f"""
            DO $$
            DECLARE
                f regprocedure;
            BEGIN
                FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
                          WHERE p.proname IN ({names}) AND p.pronamespace = current_schema()::regnamespace
                LOOP
                    EXECUTE format('ALTER FUNCTION %s {clause}', f);
                END LOOP;
            END $$""", params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("wallet", "0010_entry_account_checked_per_statement"),
    ]

    operations = [migrations.RunPython(_alter(SETTINGS), _alter(UNDO))]
