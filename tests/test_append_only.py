"""The append-only guards: which tables PostgreSQL refuses to UPDATE or DELETE, and that each guard the
migrations built is exactly what casino.append_only builds (so the builder's output, which old migrations
call, stays what every database has).

Each app's own tests rewrite real rows of its tables (tests/wallet/test_database_guards.py, tests/chat, ...);
here every guard is compared with the builder's statement run again on a scratch table, whose one row the
builder's function must refuse to change, with the guard's own message and error."""

import re

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction

from casino import append_only

# table -> (trigger, function, RAISE message, its arguments, SQLSTATE or None for PL/pgSQL's default)
ROUND = "% is append-only: % refused; a round's record is never rewritten"
LEDGER = "% is append-only: % refused; correct it with a new transaction"
TWO = "TG_TABLE_NAME, TG_OP"
REFUSED = "integrity_constraint_violation"
APPEND_ONLY_TABLES = {
    "accounts_loginrecord": ("accounts_loginrecord_append_only", "accounts_login_record_refuse_change",
                             "% is append-only: % refused; a login record is never rewritten", TWO, REFUSED),
    "accounts_staffaction": ("accounts_staffaction_append_only", "accounts_staffaction_refuse_change",
                             "accounts_staffaction is append-only: % refused; a staff action is never rewritten",
                             "TG_OP", REFUSED),
    "chat_chatmessage": ("chat_chatmessage_append_only", "chat_chatmessage_refuse_change",
                         "chat_chatmessage is append-only: % refused; a chat message is never rewritten",
                         "TG_OP", REFUSED),
    "responsible_jurisdictionchange": ("responsible_jurisdictionchange_immutable",
                                       "responsible_jurisdictionchange_immutable",
                                       "jurisdiction history is immutable: % on responsible_jurisdictionchange refused",
                                       "TG_OP", None),
    "rounds_roundevent": ("rounds_roundevent_append_only", "rounds_refuse_change", ROUND, TWO, REFUSED),
    "rounds_cardrecord": ("rounds_cardrecord_append_only", "rounds_refuse_change", ROUND, TWO, REFUSED),
    "rounds_decision": ("rounds_decision_append_only", "rounds_refuse_change", ROUND, TWO, REFUSED),
    "rounds_roundbet": ("rounds_roundbet_append_only", "rounds_refuse_change", ROUND, TWO, REFUSED),
    "rounds_betreturn": ("rounds_betreturn_append_only", "rounds_refuse_change", ROUND, TWO, REFUSED),
    "tables_tablechange": ("tables_tablechange_immutable", "tables_tablechange_immutable",
                           "table history is immutable: % on tables_tablechange refused", "TG_OP", None),
    "wallet_entry": ("wallet_entry_append_only", "wallet_refuse_change", LEDGER, TWO, REFUSED),
    "wallet_ledgertransaction": ("wallet_ledgertransaction_append_only", "wallet_refuse_change", LEDGER, TWO,
                                 REFUSED),
    "wallet_bet": ("wallet_bet_append_only", "wallet_refuse_change", LEDGER, TWO, REFUSED),
    "wallet_betresolution": ("wallet_betresolution_append_only", "wallet_refuse_change", LEDGER, TWO, REFUSED),
}

pytestmark = pytest.mark.django_db


def _rows(sql: str, params=None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _trigger_def(name: str, table: str) -> str:
    return _rows("SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE t.tgname = %s AND t.tgrelid = %s::regclass",
                 [name, table])[0][0]


def _body(function: str) -> str:
    # Compared with runs of white space as one: the table history's guard, written before the builder, was
    # indented otherwise in databases made before it.
    return re.sub(r"\s+", " ", _rows("SELECT prosrc FROM pg_proc WHERE proname = %s", [function])[0][0]).strip()


def test_these_tables_and_no_others_refuse_update_and_delete():
    """Every table with a row trigger that runs before UPDATE and DELETE and raises: the list above."""
    guarded = _rows("""
        SELECT c.relname, t.tgname, p.proname FROM pg_trigger t
          JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
         WHERE NOT t.tgisinternal AND t.tgtype & 1 = 1          -- FOR EACH ROW
           AND t.tgtype & 2 = 2                                 -- BEFORE
           AND t.tgtype & 8 = 8 AND t.tgtype & 16 = 16          -- DELETE and UPDATE
           AND p.prosrc LIKE '%RAISE EXCEPTION%'
    """)
    assert {table: (trigger, function) for table, trigger, function in guarded} == {
        table: (trigger, function) for table, (trigger, function, *_rest) in APPEND_ONLY_TABLES.items()}


@pytest.mark.parametrize("table", APPEND_ONLY_TABLES)
def test_each_guard_is_what_the_builder_writes_and_refuses_as_it_says(table):
    trigger, function, message, args, errcode = APPEND_ONLY_TABLES[table]
    # psycopg: IntegrityError for integrity_constraint_violation, ProgrammingError for raise_exception.
    expected_error = IntegrityError if errcode else ProgrammingError
    with transaction.atomic():
        with connection.cursor() as cursor:
            # The builder's statements again, on a scratch table and a scratch copy of the function.
            cursor.execute("CREATE TEMP TABLE append_only_probe (id int, note text)")
            cursor.execute("INSERT INTO append_only_probe VALUES (1, 'written')")
            cursor.execute(append_only.refuse_function(f"{function}_probe", message=message, args=args,
                                                       errcode=errcode, replace=errcode is None), params=None)
            cursor.execute(append_only.refuse_trigger("append_only_probe", function=f"{function}_probe",
                                                      name=f"{trigger}_probe"), params=None)
        assert _body(f"{function}_probe") == _body(function)
        expected = (f"CREATE TRIGGER {trigger} BEFORE DELETE OR UPDATE ON public.{table} FOR EACH ROW "
                    f"EXECUTE FUNCTION {function}()")
        assert _trigger_def(trigger, table) == expected
        probe = re.sub(r"ON pg_temp(_\d+)?\.append_only_probe", f"ON public.{table}",
                       _trigger_def(f"{trigger}_probe", "append_only_probe"))
        assert probe.replace(f"{function}_probe()", f"{function}()").replace(f"{trigger}_probe", trigger) == expected
        for statement, operation in (("UPDATE append_only_probe SET note = 'rewritten'", "UPDATE"),
                                     ("DELETE FROM append_only_probe", "DELETE")):
            said = message
            for arg in args.split(","):
                said = said.replace("%", {"TG_TABLE_NAME": "append_only_probe", "TG_OP": operation}[arg.strip()], 1)
            with pytest.raises(expected_error, match=re.escape(said)), transaction.atomic(), \
                    connection.cursor() as cursor:
                cursor.execute(statement)
        assert _rows("SELECT note FROM append_only_probe") == [("written",)]
        transaction.set_rollback(True)


def test_a_guard_for_several_tables_shares_one_function_and_drops_it_last():
    forward, backward = append_only.guards(["a_one", "a_two"], function="a_refuse", message="% refused", args="TG_OP")
    assert [statement.split()[:3] for statement in forward] == [
        ["CREATE", "FUNCTION", "a_refuse()"], ["CREATE", "TRIGGER", "a_one_append_only"],
        ["CREATE", "TRIGGER", "a_two_append_only"]]
    assert backward == ["DROP TRIGGER IF EXISTS a_one_append_only ON a_one",
                        "DROP TRIGGER IF EXISTS a_two_append_only ON a_two", "DROP FUNCTION IF EXISTS a_refuse()"]
    with pytest.raises(ValueError, match="single table"):
        append_only.guards(["a_one", "a_two"], function="a_refuse", message="%", trigger="shared")


def test_the_builder_writes_byte_for_byte_what_the_migrations_wrote_before_it():
    """A fresh database is built by the same builder, so the tests above cannot see a change of layout; this
    pins the statements as the ledger's and the chat's migrations spelled them before they called it."""
    forward, backward = append_only.guard("chat_chatmessage", function="chat_chatmessage_refuse_change",
                                          args="TG_OP", message="chat_chatmessage is append-only: % refused; a chat "
                                          "message is never rewritten")
    assert forward == [
        """
    CREATE FUNCTION chat_chatmessage_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'chat_chatmessage is append-only: % refused; a chat message is never rewritten', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
        """
    CREATE TRIGGER chat_chatmessage_append_only BEFORE UPDATE OR DELETE ON chat_chatmessage
        FOR EACH ROW EXECUTE FUNCTION chat_chatmessage_refuse_change()
    """,
    ]
    assert backward == ["DROP TRIGGER IF EXISTS chat_chatmessage_append_only ON chat_chatmessage",
                        "DROP FUNCTION IF EXISTS chat_chatmessage_refuse_change()"]
    assert append_only.refuse_function("rounds_refuse_change", message=ROUND) == """
    CREATE FUNCTION rounds_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% is append-only: % refused; a round''s record is never rewritten', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """
