"""The worker's consumer (CELERY_WORKER_CONSUMER): back on the broker within a second of it returning, and telling
the apps when it is, so they can queue again what the broker may have lost.

Celery's consumer reconnects through kombu's `ensure_connection` with its defaults: waits of 2, 4, 6 ... up to 30 s
between attempts, so a worker found the broker again up to 30 s after it was back (3 s after a 3 s outage, 12 s
after a 30 s one). Here the attempts are a second apart at most: one cheap TCP connect a second while the broker
is away costs nothing, and every second a worker is not consuming is a second a round waits.

A broker that restarted may have lost every message it held (Redis persisting nothing, or a failover to a replica
behind): the settlements queued before it went are gone, and the recovery sweep would find them only once they are
`RECOVERY_GRACE_SECONDS` old and only at its next beat. So once a worker is connected again after losing the broker,
`broker_reconnected` is sent (in the worker's main process; receivers must only queue work, never block), and the
rounds app queues a sweep that takes every round waiting, however recent (rounds.tasks).
"""

from __future__ import annotations

import functools
import logging

from celery.utils.dispatch import Signal
from celery.worker.consumer import Consumer as CeleryConsumer

logger = logging.getLogger("casino.worker_consumer")

# Seconds between two attempts to reach the broker again: the first at once, then half a second, then one.
RECONNECT_INTERVAL_START = 0.0
RECONNECT_INTERVAL_STEP = 0.5
RECONNECT_INTERVAL_MAX = 1.0

broker_reconnected = Signal(name="broker_reconnected", providing_args=["consumer"])


class Consumer(CeleryConsumer):
    _connected_before = False

    def ensure_connected(self, conn):
        conn.ensure_connection = functools.partial(
            conn.ensure_connection, interval_start=RECONNECT_INTERVAL_START,
            interval_step=RECONNECT_INTERVAL_STEP, interval_max=RECONNECT_INTERVAL_MAX)
        conn = super().ensure_connected(conn)
        if self._connected_before:
            logger.warning("Back on the broker after losing it: telling the apps to queue lost work again")
            broker_reconnected.send(sender=self.__class__, consumer=self)  # a receiver's error is logged, not raised
        self._connected_before = True
        return conn
