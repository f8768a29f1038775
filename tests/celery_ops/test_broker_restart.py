"""A real worker on a Redis server of the test's own, killed (SIGKILL, nothing persisted) and started again: the
worker finds it again and the settlement the broker lost is queued again and run, with no beat running, so
neither the periodic recovery sweep nor any timer can be what brought it back (casino.worker_consumer)."""

import json
import os
import shutil
import signal
import subprocess
import time
import uuid

import pytest

from casino.worker_process import CeleryWorker
from rounds.models import RoundState
from tests.helpers import OUTPUT, cash, free_port, wait_for
from tests.rounds.test_worker_recovery import at_the_dealer

pytestmark = [pytest.mark.worker]



class OwnRedis:
    """A redis-server persisting nothing, on a port nobody else uses."""

    def __init__(self, *extra: str, auth: tuple[str, str] | None = None):
        self.port = free_port()
        self.extra = extra
        self.auth = auth
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", *self.extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self.answers, timeout=20, interval=0.05, what="the test's redis-server to answer")

    def answers(self) -> bool:
        import redis

        username, password = self.auth or (None, None)
        try:
            return bool(redis.Redis(port=self.port, username=username, password=password,
                                    socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


def _worker_on(redis: OwnRedis, database_url: str, *, credentials: str = "") -> CeleryWorker:
    queue = f"broker-restart-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, DATABASE_URL=database_url, CELERY_TASK_DEFAULT_QUEUE=queue,
               CELERY_BROKER_URL=f"redis://{credentials}127.0.0.1:{redis.port}/0",
               CELERY_RESULT_BACKEND=f"redis://{credentials}127.0.0.1:{redis.port}/1")
    worker = CeleryWorker(name=queue, queue=queue, env=env, log_path=OUTPUT / f"celery-worker-{queue}.log",
                          pool=None, extra=("--concurrency", "1", "--without-heartbeat"), own_group=False)
    worker.start()
    return worker


@pytest.fixture
def own_broker_worker(celery_worker, django_db_blocker):
    """A worker (prefork, as in production) of its own on the test database, its broker a Redis of its own."""
    from tests.fixtures.worker import _database_url_for_worker

    redis = OwnRedis()
    redis.start()
    with django_db_blocker.unblock():
        database_url = _database_url_for_worker()
    worker = _worker_on(redis, database_url)
    try:
        yield redis, worker
    finally:
        worker.stop(timeout=20)
        redis.kill()


def test_a_settlement_the_restarted_broker_lost_is_run_once_a_worker_is_back_without_the_beat(
        own_broker_worker, play, classic_table, funded, monkeypatch):
    redis, worker = own_broker_worker
    player = funded()
    r = at_the_dealer(play, classic_table, player)
    # The settlement's message never reaches a queue, as if the broker had taken it down with it.
    monkeypatch.setattr("rounds.services.settlement._queue", lambda *args, **kwargs: None)
    r.complete()
    assert r.refresh().state == RoundState.SETTLING

    redis.kill()
    time.sleep(1.5)  # the worker notices and tries again while the broker is away
    assert worker.alive()
    redis.start()

    wait_for(lambda: r.refresh().state == RoundState.SETTLED, timeout=60, interval=0.1,
             what=f"the round to settle once the worker is back on the broker; see {worker.log_path}")
    assert cash(player) == 1_000_00 + 1000
    log = worker.log()
    assert "Back on the broker after losing it" in log
    assert "rounds_recovery_sweep" in log


def test_a_broker_behind_the_documented_acl_user_and_password_serves_the_worker(celery_worker_process,
                                                                                django_db_blocker):
    # docs/operations.md, "Redis: authentication and TLS": the ACL user it gives, with a password needing
    # percent-encoding, is enough for a worker, its result backend and a client sending it a task.
    from redis import StrictRedis

    from casino.celery import app
    from tests.fixtures.worker import _database_url_for_worker

    password = "s3cret@with:odd/chars"
    acl = ["--user", "default", "off", "--user", "casino", "on", f">{password}", "~*", "&*", "+@all", "-@admin",
           "-@dangerous", "+info"]
    redis = OwnRedis(*acl, auth=("casino", password))
    redis.start()
    try:
        with django_db_blocker.unblock():
            database_url = _database_url_for_worker()
        credentials = "casino:" + password.replace("@", "%40").replace(":", "%3A").replace("/", "%2F") + "@"
        worker = _worker_on(redis, database_url, credentials=credentials)
        try:
            # The CELERY_* variables of this process name the shared broker and outrank any app's own: publish
            # on a connection of our own, and read the result where the worker stored it.
            with app.connection_for_write(f"redis://{credentials}127.0.0.1:{redis.port}/0") as connection:
                task_id = app.send_task("accounts.tasks.worker_ping", queue=worker.queue,
                                        producer=app.amqp.Producer(connection)).id
            results = StrictRedis(port=redis.port, db=1, username="casino", password=password)
            stored = wait_for(lambda: results.get(f"celery-task-meta-{task_id}"), timeout=60,
                              what=f"the worker's answer in its result backend; see {worker.log_path}")
            assert json.loads(stored)["result"].startswith("celery@")
            assert ":**@" in worker.log() and password not in worker.log()
        finally:
            worker.stop(timeout=20)
    finally:
        redis.kill()
