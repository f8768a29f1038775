"""With Redis as the cache (as in production), a rate-limited request is counted in one script call (one round trip),
and its windows behave as the cache API's do."""

import uuid

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache

from casino import ratelimit

pytestmark = pytest.mark.django_db


@pytest.fixture
def key():
    if not isinstance(caches["default"], RedisCache):
        pytest.skip("REDIS_URL is not set: the cache is not Redis")
    name = f"test:{uuid.uuid4().hex}"
    yield name
    cache.delete(ratelimit.window_key(name, 60))


def test_with_redis_the_counts_go_through_one_script_call_and_refuse_past_the_limit(key, monkeypatch):
    monkeypatch.setattr(ratelimit, "_count_cache", lambda keys: pytest.fail("counted through the cache API"))
    verdicts = [ratelimit.hits_count(limits=[(key, (2, 60))]) for _ in range(3)]
    assert [v.allowed for v in verdicts] == [True, True, False]
    assert 1 <= verdicts[2].retry_after <= 60
    assert cache.get(ratelimit.window_key(key, 60)) == 3  # the same key the cache API reads and clears
    client = caches["default"]._cache.get_client()
    assert 0 < client.ttl(cache.make_and_validate_key(ratelimit.window_key(key, 60))) <= 60
