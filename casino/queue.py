"""Queueing Celery work after commit, by task name.

A service queues its task by the name the task is registered under, so no app's services import its tasks
(which import the services). Sent only after COMMIT: a worker never sees a row its transaction has not made
visible, and a rolled-back transaction queues nothing. Outside a transaction it is sent at once.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)


def task_queue(*, name: str, args: tuple = (), retry_policy: dict | None = None) -> None:
    """Send the task registered as `name` (e.g. "rounds.tasks.round_settle") with `args` once this commits;
    with a `retry_policy`, a broker that is briefly away is waited for (kombu's publish retries)."""

    def send() -> None:
        try:
            if retry_policy is None:
                current_app.send_task(name, args=args)
            else:
                current_app.send_task(name, args=args, retry=True, retry_policy=retry_policy)
        except Exception:
            # The state is committed; each app's recovery sweep queues lost work again.
            logger.exception("could not queue %s%r", name, args)

    transaction.on_commit(send)
