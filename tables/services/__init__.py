"""Every write to a table's configuration, and the checks that guard them.

    validation      settings, limits and paytables checked (pure: forms call them too)
    configuration   table_create, table_update, bet_limits_set, paytable_set, table_state_set
    rtp_runs        rtp_run_start (queues), rtp_run_execute (the worker's run)

Reads (a table as one document, its engine Rules, the snapshot a round freezes) are in tables.selectors;
they are named here too, so callers of `tables.services.table_document` and the like keep working.
The table's state is changed for the doors (page, admin, API) by rounds.services.table_state, which voids
the round in play when closing: tables never imports rounds.
"""

from tables.models import FLAG_FIELDS, SETTING_FIELDS
from tables.selectors import (
    SNAPSHOT_FORMAT,
    table_bet_types,
    table_config_snapshot,
    table_document,
    table_rules,
)
from tables.services.configuration import (
    CREATE_ONLY_OPTIONS,
    bet_limits_set,
    change_summary,
    paytable_set,
    table_create,
    table_state_set,
    table_update,
)
from tables.services.rtp_runs import PROGRESS_WRITE_SECONDS, RTP_RUN_MAX_HANDS, rtp_run_execute, rtp_run_start
from tables.services.validation import (
    BETTING_SECONDS_RANGE,
    BOOL_FIELDS,
    CHARLIE_RANGE,
    DECISION_SECONDS_RANGE,
    DECKS_RANGE,
    DEFAULT_LIMITS,
    EVEN_BET_TYPES,
    MAX_AMOUNT,
    MAX_CHIPS,
    MAX_CURRENCIES,
    PAY_RANGE,
    REASON_MAX_LENGTH,
    SEAT_FEATURES,
    bet_limit_validate,
    default_bet_limit,
    paytable_validate,
    profile_defaults,
    reason_clean,
    table_settings_validate,
)

__all__ = [
    "BETTING_SECONDS_RANGE", "BOOL_FIELDS", "CHARLIE_RANGE", "CREATE_ONLY_OPTIONS", "DECISION_SECONDS_RANGE",
    "DECKS_RANGE", "DEFAULT_LIMITS", "EVEN_BET_TYPES", "FLAG_FIELDS", "MAX_AMOUNT", "MAX_CHIPS", "MAX_CURRENCIES",
    "PAY_RANGE", "REASON_MAX_LENGTH", "PROGRESS_WRITE_SECONDS", "RTP_RUN_MAX_HANDS", "SEAT_FEATURES", "SETTING_FIELDS",
    "SNAPSHOT_FORMAT", "bet_limit_validate", "bet_limits_set", "change_summary", "default_bet_limit",
    "paytable_set", "paytable_validate", "profile_defaults", "reason_clean", "rtp_run_execute", "rtp_run_start",
    "table_bet_types", "table_config_snapshot", "table_create", "table_document", "table_rules",
    "table_settings_validate", "table_state_set", "table_update",
]
