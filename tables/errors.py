from rest_framework import status

from casino.api_errors import DomainError


class TableConfigError(DomainError):
    """A table, limit or paytable setting that breaks a rule; `field` names the form field to show it on."""

    code = "invalid_table_config"

    def __init__(self, message: str, *, field: str | None = None, code: str | None = None):
        super().__init__(message, code=code)
        self.field = field


class TableConflictError(DomainError):
    """Someone else changed the table between the moment a form was loaded and the moment it was saved."""

    code = "table_changed"
    http_status = status.HTTP_409_CONFLICT
