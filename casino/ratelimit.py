"""Request rate limits: sign-in attempts per user name and per address, bets and chat messages per player
and per address.

Each key counts requests in a fixed window that starts with its first request. With Redis (REDIS_URL, as in
production) every key of one request is counted in a single script call (INCR, EXPIRE NX, TTL per key), so
the bet path pays one cache round trip and no SQL; without Redis (`make run`'s file cache) Django's cache add + incr
do the same, less exactly. Limits are settings ("count/seconds"). A refused request is a 429 with Retry-After.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.redis import RedisCache
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from rest_framework.throttling import BaseThrottle

from casino.client_address import client_address as address_of

PREFIX = "ratelimit"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: int  # seconds until the fullest window ends; 0 when allowed


def client_address(request) -> str:
    """The caller's address as every door reads it (casino.client_address), for a rate-limit key."""
    return (address_of(request.META) or "")[:64]


def window_key(key: str, seconds: int) -> str:
    return f"{PREFIX}:{key}:{seconds}"


_clients: dict[int, tuple[Any, Any]] = {}


def _redis_client(backend: RedisCache):
    """A client on the cache's own connection pool, made once per pool: RedisCache makes a new one on every call,
    which cost more CPU than the round trip itself on the bet path."""
    pool = backend._cache._get_connection_pool(True)
    found = _clients.get(id(pool))
    if found is None or found[0] is not pool:
        found = _clients[id(pool)] = (pool, backend._cache._client(connection_pool=pool))
    return found[1]


# Every key of one request counted in one script run: a pipeline of three commands a key cost the bet path more
# Python (packing six commands, parsing six replies) than the round trip. EXPIRE NX: only the window's first
# request starts its clock. Redis runs the script atomically; the pipeline's commands could interleave with
# another request's, with the same counts.
_COUNT_SCRIPT = """
local out = {}
for i, key in ipairs(KEYS) do
  out[2 * i - 1] = redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[i], 'NX')
  out[2 * i] = redis.call('TTL', key)
end
return out
"""
_scripts: dict[int, tuple[Any, Any]] = {}


def _count_redis(backend: RedisCache, keys: list[tuple[str, int]]) -> list[tuple[int, int]]:
    client = _redis_client(backend)
    found = _scripts.get(id(client))
    if found is None or found[0] is not client:
        found = _scripts[id(client)] = (client, client.register_script(_COUNT_SCRIPT))
    replies = found[1](keys=[key for key, _seconds in keys], args=[seconds for _key, seconds in keys])
    return [(replies[2 * i], max(replies[2 * i + 1], 1)) for i in range(len(keys))]


def _count_cache(keys: list[tuple[str, int]]) -> list[tuple[int, int]]:
    counts = []
    for key, seconds in keys:
        cache.add(key, 0, seconds)
        try:
            counts.append((cache.incr(key), seconds))
        except ValueError:  # expired between add and incr: this request starts a new window
            cache.set(key, 1, seconds)
            counts.append((1, seconds))
    return counts


def hits_count(*, limits: list[tuple[str, tuple[int, int]]]) -> Verdict:
    """Count one request against each (key, (count, seconds)); refused when any key is over its count."""
    keys = [(window_key(key, seconds), seconds) for key, (_count, seconds) in limits]
    # `cache` is a proxy: the backend behind it is what says whether Redis is there.
    backend = caches[DEFAULT_CACHE_ALIAS]
    if isinstance(backend, RedisCache):
        full_keys = [(backend.make_and_validate_key(key), seconds) for key, seconds in keys]
        counted = _count_redis(backend, full_keys)
    else:
        counted = _count_cache(keys)
    over = [ttl for (hits, ttl), (_key, (count, _s)) in zip(counted, limits, strict=True) if hits > count]
    return Verdict(allowed=not over, retry_after=max(over, default=0))


def _hashed(text: str) -> str:
    return hashlib.sha256(text.strip().lower().encode("utf-8", "replace")).hexdigest()[:32]


# --- bets (DRF) -------------------------------------------------------------------------------------------

class BetRateThrottle(BaseThrottle):
    """Bets per player and per address; DRF answers a refusal with 429 and Retry-After."""

    def allow_request(self, request, view) -> bool:
        self.verdict = hits_count(limits=[
            (f"bets:user:{request.user.pk}", settings.RATE_LIMIT_BETS_PER_USER),
            (f"bets:address:{client_address(request)}", settings.RATE_LIMIT_BETS_PER_ADDRESS),
        ])
        return self.verdict.allowed

    def wait(self) -> int:
        return self.verdict.retry_after


class ChatRateThrottle(BaseThrottle):
    """Chat messages per player and per address (reads are not counted): one line every few seconds is talk,
    more is flooding the table."""

    def allow_request(self, request, view) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            self.verdict = Verdict(allowed=True, retry_after=0)
            return True
        self.verdict = hits_count(limits=[
            (f"chat:user:{request.user.pk}", settings.RATE_LIMIT_CHAT_PER_USER),
            (f"chat:address:{client_address(request)}", settings.RATE_LIMIT_CHAT_PER_ADDRESS),
        ])
        return self.verdict.allowed

    def wait(self) -> int:
        return self.verdict.retry_after


# --- sign-in (a middleware, so it holds whatever view the login URL is given) ---------------------------------

def _too_many(request, retry_after: int):
    message = (f"Too many sign-in attempts for this user name or from this address. Try again in {retry_after} "
               f"second{'s' if retry_after != 1 else ''}.")
    if "text/html" in request.headers.get("Accept", ""):
        response = render(request, "errors/429.html", {"message": message}, status=429)
    else:
        response = JsonResponse({"code": "rate_limited", "message": message}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


class LoginRateLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method == "POST" and request.path_info == reverse("login"):
            verdict = hits_count(limits=[
                (f"login:user:{_hashed(request.POST.get('username', ''))}", settings.RATE_LIMIT_LOGIN_PER_USERNAME),
                (f"login:address:{client_address(request)}", settings.RATE_LIMIT_LOGIN_PER_ADDRESS),
            ])
            if not verdict.allowed:
                return _too_many(request, verdict.retry_after)
        return self.get_response(request)
