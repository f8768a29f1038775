"""A real worker process, with the project's Celery settings, survives items on its Redis queue that are not
messages it can run: each test pushes one onto the queue's list, then sends a real task behind it and waits for
the answer. Before casino.broker, the first item that was not JSON made the worker exit."""

import base64
import json
import os
import time
import uuid

import pytest

from casino.worker_process import CeleryWorker
from tests.fixtures.worker import _database_url_for_worker
from tests.helpers import OUTPUT

# It starts a real worker of its own, so `make check` (no worker) leaves it to `make test`; its tests share that
# worker, so they run on one xdist worker (make test's loadgroup). django_db: the session then sets up the test
# database that worker runs on, even when this module runs alone (the tests themselves write nothing).
pytestmark = [pytest.mark.worker, pytest.mark.xdist_group("malformed-messages-worker"), pytest.mark.django_db]


@pytest.fixture(scope="module")
def worker(django_db_setup, django_db_blocker):
    """A worker of its own (prefork, as in production) on a queue of its own, on the test database (anything it
    runs, such as the recovery sweep it queues after a reconnection, finds the tables)."""
    from casino.celery import app

    queue = f"malformed-{uuid.uuid4().hex[:8]}"
    with django_db_blocker.unblock():
        env = dict(os.environ, DATABASE_URL=_database_url_for_worker(), CELERY_TASK_DEFAULT_QUEUE=queue)
    worker = CeleryWorker(name=queue, queue=queue, env=env,
                          log_path=OUTPUT / f"celery-worker-{queue}.log", pool=None,
                          extra=("--concurrency", "1", "--without-heartbeat"), own_group=False)
    worker.start()
    with app.connection_for_write() as connection:
        redis = connection.default_channel.client
        yield {"proc": worker.proc, "queue": queue, "redis": redis, "log": worker.log_path}
        redis.delete(queue)
    worker.stop(timeout=20)


def _envelope(body: str, *, headers: dict, encoding: str = "base64") -> str:
    """The JSON kombu's Redis transport keeps on a queue's list for one message."""
    return json.dumps({
        "body": body, "content-encoding": "utf-8", "content-type": "application/json", "headers": headers,
        "properties": {"body_encoding": encoding, "delivery_tag": str(uuid.uuid4()), "priority": 0,
                       "delivery_info": {"exchange": "", "routing_key": "x"}},
    })


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


GARBAGE = {
    "not JSON": b"this is not json",
    "not UTF-8": b"\xff\xfe\x00garbage",
    "a JSON list": b"[1, 2, 3]",
    "a JSON string": b'"settle round 7"',
    "an object without properties": b'{"body": "e30=", "headers": {}}',
    "properties without a delivery tag": b'{"body": "", "properties": {"body_encoding": "base64"}}',
    "a body that is not base64": _envelope("!!! not base64 !!!", headers={"task": "accounts.tasks.worker_ping",
                                                                          "id": str(uuid.uuid4())}).encode(),
    "a body that is not JSON": _envelope(_b64("not json"), headers={"task": "accounts.tasks.worker_ping",
                                                                    "id": str(uuid.uuid4())}).encode(),
    "a known task with no id or arguments": _envelope(_b64("{}"), headers={"task": "accounts.tasks.worker_ping"})
    .encode(),
    "headers that are a list": _envelope(_b64("[[], {}, {}]"), headers=None).replace('"headers": null',
                                                                                     '"headers": [1]').encode(),
}


def _ping_answered(worker) -> str:
    """A real task sent behind the item: its answer, once the worker has run it; fails at once if it exited."""
    from accounts.tasks import worker_ping

    result = worker_ping.apply_async(queue=worker["queue"])
    deadline = time.monotonic() + 20
    while not result.ready():
        assert worker["proc"].poll() is None, f"the worker exited; see {worker['log']}"
        assert time.monotonic() < deadline, f"the worker did not run the task behind the item; see {worker['log']}"
        time.sleep(0.05)
    return result.get()


@pytest.mark.parametrize("item", GARBAGE.values(), ids=GARBAGE.keys())
def test_worker_survives_an_item_that_is_not_a_message(worker, item):
    log_before = worker["log"].read_text(errors="replace")
    worker["redis"].lpush(worker["queue"], item)
    assert _ping_answered(worker).startswith("celery@")
    assert worker["redis"].llen(worker["queue"]) == 0
    # Dropped, not mistaken for a lost broker: a reconnection puts the item back on the queue (it was taken,
    # unacknowledged) and makes the apps queue a recovery sweep for nothing.
    added = worker["log"].read_text(errors="replace")[len(log_before):]
    assert "Connection to broker lost" not in added, f"the item was taken for a lost connection; see {worker['log']}"


def test_worker_survives_a_task_nobody_registered(worker):
    from casino.celery import app

    app.send_task("casino.no_such_task", args=[1], queue=worker["queue"])
    assert _ping_answered(worker).startswith("celery@")
    assert "unregistered task of type 'casino.no_such_task'" in worker["log"].read_text(errors="replace")


@pytest.mark.parametrize("payload", [b"not json", b'{"a": 1}', b"[1, 2]", b'[{"body": 1}, "", "x"]'],
                         ids=["not JSON", "an object", "a short list", "a message without properties"])
def test_worker_survives_an_unacknowledged_entry_that_is_not_a_message(worker, payload):
    # kombu keeps a taken message in the `unacked` hash until it is acknowledged, and a worker puts entries older
    # than the visibility timeout back on their queue: one it cannot read must not stop the worker or the restores.
    redis, tag = worker["redis"], f"garbage-{uuid.uuid4()}"
    redis.hset("unacked", tag, payload)
    redis.zadd("unacked_index", {tag: 1.0})  # taken in 1970: long past the visibility timeout
    deadline = time.monotonic() + 60
    while redis.hexists("unacked", tag):
        assert worker["proc"].poll() is None, f"the worker exited; see {worker['log']}"
        assert time.monotonic() < deadline, f"the entry was never dealt with; see {worker['log']}"
        time.sleep(0.2)
    assert _ping_answered(worker).startswith("celery@")
    assert not redis.zscore("unacked_index", tag)
