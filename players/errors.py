"""Every way a players' request can be refused, each with a stable code the API and the pages show."""

from rest_framework import status

from casino.api_errors import DomainError


class PlayerRequestError(DomainError):
    code = "invalid_player_request"


class NotAtTable(PlayerRequestError):
    code = "not_at_table"
    http_status = status.HTTP_409_CONFLICT


class TableNotOpen(PlayerRequestError):
    code = "table_not_open"
    http_status = status.HTTP_409_CONFLICT
