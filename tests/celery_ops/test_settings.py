"""The Celery settings that decide how fast work comes back after a failure, and that a backlog cannot pile up."""

from django.conf import settings


def test_every_periodic_task_expires_within_a_few_periods():
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        expires = entry.get("options", {}).get("expires")
        assert expires, f"{name} has no expiry: an outage would queue one per period"
        assert 0 < expires <= 5 * entry["schedule"], f"{name}: expires {expires} s for a period of {entry['schedule']} s"


def test_a_killed_workers_task_is_back_on_the_queue_within_a_minute():
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    worst = options["visibility_timeout"] + options["unacked_restore_interval"] * options["unacked_restore_throttle"]
    assert worst <= 60, f"up to {worst} s before another worker takes a killed worker's task over"


def test_workers_are_a_pool_that_notices_a_lost_child():
    # reject_on_worker_lost only acts in the prefork pool; the solo pool has no child process to lose.
    assert settings.CELERY_WORKER_POOL == "prefork"
    assert settings.CELERY_TASK_ACKS_LATE and settings.CELERY_TASK_REJECT_ON_WORKER_LOST
    assert settings.CELERY_BROKER_TRANSPORT == "casino.broker:Transport"


def test_a_worker_tries_the_broker_again_every_second_and_queues_lost_work_once_back():
    # Celery's own consumer waits 2, 4, 6 ... up to 30 s between attempts (tests/celery_ops/test_broker_restart.py
    # shows the work a restarted broker lost coming back).
    from casino import worker_consumer

    assert settings.CELERY_WORKER_CONSUMER == "casino.worker_consumer:Consumer"
    assert worker_consumer.RECONNECT_INTERVAL_MAX <= 1.0
