"""Deprecated: import from tests.factories. Kept so branches written before the move still import."""

from tests.factories import (  # noqa: F401
    PROFILE_OPTIONS,
    QUIET_TIMERS,
    FundedPlayerFactory,
    RoundFactory,
    RoundTableFactory,
    new_key,
)
