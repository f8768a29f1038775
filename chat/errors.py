"""Every way a chat request can be refused, each with a stable code the API and the pages show. Not at the
table and a table that is not open are the players app's refusals (players.errors), raised here too."""

from rest_framework import status

from casino.api_errors import DomainError


class ChatRequestError(DomainError):
    code = "invalid_chat_message"


class ChatDisabled(ChatRequestError):
    """Support disabled this player's chat; the message says why, so the player can answer it."""

    code = "chat_disabled"
    http_status = status.HTTP_403_FORBIDDEN


class ChatMessageNotFound(ChatRequestError):
    code = "not_found"
    http_status = status.HTTP_404_NOT_FOUND
