"""Every way a players' request can be refused, each with a stable code the API and the pages show."""

from rest_framework import status

from casino.api_errors import DomainError
from rounds.presence import NotAtTable, SessionReplaced  # noqa: F401 - the play gate's refusals, named here too


class PlayerRequestError(DomainError):
    code = "invalid_player_request"


class TableNotOpen(PlayerRequestError):
    code = "table_not_open"
    http_status = status.HTTP_409_CONFLICT


class NotAlongsideOthers(PlayerRequestError):
    """A table not played alongside others (multi_game off), or a join while sitting at one."""

    code = "not_alongside_others"
    http_status = status.HTTP_409_CONFLICT
