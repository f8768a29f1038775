"""The migrations write the known jurisdictions from copies frozen in them; responsible.jurisdictions.DEFAULTS
writes them again on a database emptied by a flush. Both must give the same rows."""

import importlib

from responsible.jurisdictions import DEFAULTS


def test_the_migrations_write_the_jurisdictions_of_defaults():
    rows = importlib.import_module("responsible.migrations.0002_jurisdictions").JURISDICTIONS
    rules = importlib.import_module("responsible.migrations.0003_jurisdiction_rules_history_exclusion_ends").RULES
    written = {code: {**values, **rules.get(code, {})} for code, values in rows.items()}
    assert written == DEFAULTS, (
        "responsible.jurisdictions.DEFAULTS differs from the rows the migrations write (a new database and one "
        "restored after a flush would differ): write a new migration that writes the new values")
