"""The Redis broker transport, made to survive an item on a queue that it cannot read.

Kombu's Redis transport decodes each item it pops from a queue's list inside the worker's event loop: one item
that is not JSON, or JSON that is not a message envelope, or a message Celery's consumer chokes on, raises out of
the loop and the worker exits ("Unrecoverable error"), then exits again on the next such item after every
restart. Anyone who can write to Redis can do that, and so can a half-written item or a client of another
version. This transport logs such an item at ERROR (with its start, so an operator can see what and where it
came from) and drops it; the worker carries on with the next message. Settings select it for redis:// and
rediss:// broker URLs (CELERY_BROKER_TRANSPORT)."""

from __future__ import annotations

import logging

from kombu.transport import redis

logger = logging.getLogger("casino.broker")

SHOWN = 500  # characters of a dropped item kept in the log


def _shown(item) -> str:
    text = repr(item)
    return text if len(text) <= SHOWN else text[:SHOWN] + f"... ({len(text):,} characters)"


class QoS(redis.QoS):
    def restore_by_tag(self, tag, client=None, leftmost=False):
        # A worker puts messages taken longer ago than the visibility timeout back on their queue, from the
        # `unacked` hash. An entry there that is not a message (written by hand, by another client, half-written)
        # made every restore pass fail at it ("Error in timer", every few seconds, for ever) and left the entries
        # behind it in the same pass where they were. It is logged and removed; the pass goes on.
        try:
            return super().restore_by_tag(tag, client, leftmost)
        except self.channel.connection_errors:
            raise
        except (ValueError, TypeError) as error:  # not JSON, or not the [message, exchange, routing key] triple
            with self.channel.conn_or_acquire(client) as connection:
                logger.error("Dropped an unacknowledged broker entry %r that is not a message (%s): %s", tag, error,
                             _shown(connection.hget(self.unacked_key, tag)))
                self._remove_from_indices(tag, connection.pipeline()).execute()
            return None


class Channel(redis.Channel):
    QoS = QoS

    def _brpop_read(self, **options):
        try:
            return super()._brpop_read(**options)
        except (redis.Empty, *self.connection_errors):
            raise
        except ValueError as error:
            # Raised by the JSON decoding of the item, which kombu has already popped off the list: it is gone,
            # and what it was is only in the error (a JSONDecodeError carries the text it failed on).
            logger.error("Dropped an item on a broker queue that is not JSON: %s (%s)",
                         _shown(getattr(error, "doc", "")), error)
            return True


class Transport(redis.Transport):
    Channel = Channel

    def _deliver(self, message, queue):
        problem = _envelope_problem(message, self.channels)
        if problem:
            logger.error("Dropped an item on broker queue %r that is not a message (%s): %s",
                         queue, problem, _shown(message))
            return
        try:
            super()._deliver(message, queue)
        except Exception as error:
            # Kombu counts KeyError among the Redis connection errors (a stale descriptor firing after a broker
            # restart, raised by its poller), but a KeyError out of delivering a message is Celery's consumer
            # failing on its content: a task message without an `id` header. Re-raised, it made the consumer
            # take the broker for lost, reconnect, put the message back on its queue and queue a recovery sweep.
            if isinstance(error, self.connection_errors) and not isinstance(error, KeyError):
                raise
            # A well-formed envelope whose content Celery's consumer could not handle (it raises instead of
            # rejecting only for content it never expected). The message was taken (unacknowledged): reject it
            # without requeueing, or the visibility timeout would bring it back to fail again.
            logger.exception("Dropped a message on broker queue %r that the worker could not handle: %s",
                             queue, _shown(message))
            tag = message["properties"]["delivery_tag"]
            for channel in self.channels:
                if tag in channel.qos._delivered:
                    channel.qos.reject(tag, requeue=False)


def _envelope_problem(message, channels) -> str:
    """Why an item decoded from a queue is not a message kombu can build, or '' if it is one."""
    if not isinstance(message, dict):
        return f"a JSON {type(message).__name__}, not an object"
    properties = message.get("properties")
    if not isinstance(properties, dict) or not isinstance(properties.get("delivery_tag"), str):
        return "no properties with a delivery tag"
    if not isinstance(message.get("headers", {}), dict | None):
        return "headers are not an object"
    channel = next((c for c in channels if c is not None), None)
    if channel is not None:
        try:
            channel.Message(message, channel=channel)  # decodes the body as the consumer will
        except Exception as error:
            return f"{type(error).__name__}: {error}"
    return ""
