"""API keys for game clients: `Authorization: Token <key>`. No CSRF check (no browser sends it by itself), one
statement per request (the key's user and permissions together, accounts.backends), and revocable."""

from __future__ import annotations

import hashlib
import secrets

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from accounts.backends import RoleBackend
from accounts.permissions import is_staff_user

KEY_PREFIX = "cbk_"
KEYWORDS = (b"token", b"bearer")


def api_token_new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def api_token_digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("The Authorization header must be `Token <key>`.")
        try:
            key = parts[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The API key has characters no key has.") from None
        digest = api_token_digest(key)
        user = RoleBackend().get_user_by_api_token(digest)
        if user is None:
            raise exceptions.AuthenticationFailed("This API key is unknown or revoked.")
        if is_staff_user(user):
            # A key cannot carry a second factor: staff use the browser, where they pass one.
            raise exceptions.AuthenticationFailed("Staff accounts cannot use API keys; sign in with the browser.")
        # request.auth is the key's digest: the key's device identity at a table (rounds.presence).
        return user, digest

    def authenticate_header(self, request):
        return self.keyword


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.tokens.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A player's API key, sent as `Token <key>`. Create and revoke keys at /api/auth/tokens/. "
                           "No CSRF token is needed. Staff accounts cannot use keys.",
        }
