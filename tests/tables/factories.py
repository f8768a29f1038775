"""Deprecated: import from tests.factories. Kept so branches written before the move still import."""

from tests.factories import TableFactory  # noqa: F401
