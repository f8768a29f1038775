"""The one writer of the PostgreSQL guards that make a table append-only: a row trigger that refuses UPDATE
and DELETE, even from raw SQL, so a fact once written (a ledger entry, a card, an audit event, a chat line, a
staff action) can only be corrected by a new row.

Every migration that guards a table builds its SQL here:

    operations = [append_only.on_postgres(*append_only.guard("chat_chatmessage",
                                                            function="chat_chatmessage_refuse_change",
                                                            message="..."))]

SQLite (development only) gets no trigger: there the models' and querysets' guards and the services stand
alone, and the test suite, which runs on PostgreSQL, proves the triggers (tests/test_append_only.py). Row
triggers do not fire on TRUNCATE, which is how test databases are flushed.

Old migrations call these functions, so what they return is frozen: changing a statement here changes what a
fresh database gets from a migration that has already run elsewhere. The test pins the output against the
database the migrations built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import migrations

# The SQLSTATE of the refusal: psycopg raises IntegrityError for it, as for any other constraint.
REFUSED = "integrity_constraint_violation"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def refuse_function(name: str, *, message: str, args: str = "TG_TABLE_NAME, TG_OP", errcode: str | None = REFUSED,
                    replace: bool = False) -> str:
    """CREATE FUNCTION `name`() that raises `message` (a RAISE format: each % takes the next of `args`).

    `errcode=None` raises PL/pgSQL's default (raise_exception, a DatabaseError), as the table history's guard
    always has; `replace` writes CREATE OR REPLACE."""
    using = f"\n            USING ERRCODE = {_literal(errcode)}" if errcode else ""
    return (
        f"\n    CREATE {'OR REPLACE ' if replace else ''}FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"    BEGIN\n"
        f"        RAISE EXCEPTION {_literal(message)}, {args}{using};\n"
        f"    END $$\n    "
    )


def trigger_name(table: str) -> str:
    return f"{table}_append_only"


def refuse_trigger(table: str, *, function: str, name: str | None = None) -> str:
    """CREATE TRIGGER: every UPDATE and DELETE of a row of `table` runs `function` (which refuses it)."""
    return (
        f"\n    CREATE TRIGGER {name or trigger_name(table)} BEFORE UPDATE OR DELETE ON {table}\n"
        f"        FOR EACH ROW EXECUTE FUNCTION {function}()\n    "
    )


def drop_trigger(table: str, *, name: str | None = None) -> str:
    return f"DROP TRIGGER IF EXISTS {name or trigger_name(table)} ON {table}"


def drop_function(name: str) -> str:
    return f"DROP FUNCTION IF EXISTS {name}()"


def guards(tables: Sequence[str], *, function: str, message: str, args: str = "TG_TABLE_NAME, TG_OP",
           errcode: str | None = REFUSED, trigger: str | None = None,
           replace: bool = False) -> tuple[list[str], list[str]]:
    """(forward, backward) statements: one refusing function shared by `tables`, a trigger on each.

    `trigger` names the trigger when there is a single table (the table history's predates the
    `<table>_append_only` convention)."""
    if trigger and len(tables) != 1:
        raise ValueError("a trigger name is for a single table")
    forward = [refuse_function(function, message=message, args=args, errcode=errcode, replace=replace)]
    forward += [refuse_trigger(table, function=function, name=trigger) for table in tables]
    backward = [drop_trigger(table, name=trigger) for table in tables] + [drop_function(function)]
    return forward, backward


def guard(table: str, *, function: str, message: str, args: str = "TG_TABLE_NAME, TG_OP",
          errcode: str | None = REFUSED, trigger: str | None = None,
          replace: bool = False) -> tuple[list[str], list[str]]:
    """(forward, backward) statements for one table with a refusing function of its own."""
    return guards([table], function=function, message=message, args=args, errcode=errcode, trigger=trigger,
                  replace=replace)


def on_postgres(forward: Sequence[str], backward: Sequence[str] = ()) -> migrations.RunPython:
    """A migration operation running `forward` (and `backward` when unapplied) on PostgreSQL only."""
    return migrations.RunPython(_run(forward), _run(backward))


def _run(statements: Sequence[str]) -> Callable:
    statements = list(statements)

    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            # params=None: the PL/pgSQL bodies use % as RAISE placeholders, not driver parameters.
            schema_editor.execute(statement, params=None)

    return run
