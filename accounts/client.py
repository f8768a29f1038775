"""Who is asking: the address and browser a login record and the lockout count, read one way everywhere."""

from casino.client_address import client_address

USER_AGENT_LENGTH = 300


def client_ip(request) -> str | None:
    return client_address(request.META)


def client_user_agent(request) -> str:
    return request.META.get("HTTP_USER_AGENT", "")[:USER_AGENT_LENGTH]
