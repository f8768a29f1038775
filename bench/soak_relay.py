"""A TCP relay that adds a fixed delay each way: network latency between the soak's test hosts on a kernel
without the netem qdisc (bench/soak_hosts.py, --relay-rtt-ms).

    .venv/bin/python bench/soak_relay.py --delay-ms 0.5 LISTEN_HOST:PORT=TARGET_HOST:PORT [...]

It runs inside a worker host's network namespace, listens on that host's own address and forwards every
connection to the database host, so PostgreSQL and Redis still see the worker host's address and every byte
still crosses the veth links and the bridge. Each chunk read from one side is written to the other `delay`
seconds after it was read, in order; chunks are not held back behind each other (a pipelined client pays the
delay once, not once per chunk), so the relay adds latency, not a bandwidth limit. A round trip through it pays
the delay twice. Threads with time.sleep rather than asyncio: an event loop's timers wait in whole milliseconds
(epoll), which turned 0.5 ms into more than 1 ms; a thread's sleep overshoots by tens of microseconds.
TCP_NODELAY on both sockets, so small writes (a PostgreSQL query, a Redis command) are not held back by Nagle's
algorithm. When either side closes or fails, both are closed; a target that does not answer (the database being
restarted) closes the client's connection at once, as the server itself would.

It prints "relay ready" once it listens, and on SIGTERM a line with the connections and bytes it relayed.
No Django import here.
"""

from __future__ import annotations

import argparse
import queue
import signal
import socket
import sys
import threading
import time
from collections import Counter

CHUNK = 65536
counts: Counter = Counter()


def pump(source: socket.socket, target: socket.socket, delay: float, done: threading.Event) -> None:
    """Copy source to target, each chunk `delay` seconds after it arrived: one thread reads, one writes, so a
    slow write never delays the reading time of the chunks behind it."""
    chunks: queue.SimpleQueue[tuple[float, bytes]] = queue.SimpleQueue()

    def read() -> None:
        try:
            while data := source.recv(CHUNK):
                chunks.put((time.monotonic() + delay, data))
        except OSError:
            pass
        chunks.put((time.monotonic() + delay, b""))

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            due, data = chunks.get()
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            if not data:
                break
            target.sendall(data)
            counts["bytes"] += len(data)
    except OSError:
        pass
    done.set()


def relay(client: socket.socket, target: tuple[str, int], delay: float) -> None:
    try:
        server = socket.create_connection(target, timeout=5)
    except OSError:
        counts["refused"] += 1
        client.close()
        return
    server.settimeout(None)
    counts["connections"] += 1
    for sock in (client, server):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    done = threading.Event()
    for source, sink in ((client, server), (server, client)):
        threading.Thread(target=pump, args=(source, sink, delay, done), daemon=True).start()
    # A half-closed connection is a closed one for PostgreSQL and Redis clients: end at the first side done.
    done.wait()
    for sock in (client, server):
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def serve(listen: tuple[str, int], target: tuple[str, int], delay: float) -> socket.socket:
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(listen)
    server.listen(128)

    def accept() -> None:
        while True:
            client, _ = server.accept()
            threading.Thread(target=relay, args=(client, target, delay), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return server


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
    return host, int(port)


def route(text: str) -> tuple[tuple[str, int], tuple[str, int]]:
    listen, sep, target = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not LISTEN_HOST:PORT=TARGET_HOST:PORT")
    return address(listen), address(target)


def main() -> None:
    parser = argparse.ArgumentParser(description="A TCP relay adding a fixed delay each way.")
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay, milliseconds")
    parser.add_argument("routes", nargs="+", type=route, metavar="LISTEN_HOST:PORT=TARGET_HOST:PORT")
    args = parser.parse_args()
    if args.delay_ms < 0:
        sys.exit("--delay-ms must be 0 or more")
    # A thread waiting for the GIL waits up to the switch interval (5 ms by default): more than the delays asked.
    sys.setswitchinterval(0.0002)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    for listen, target in args.routes:
        serve(listen, target, args.delay_ms / 1000)
    print("relay ready", flush=True)
    stop.wait()
    print(f"relay: {counts['connections']} connections, {counts['bytes']:,} bytes, {counts['refused']} refused by "
          "the target", flush=True)


if __name__ == "__main__":
    main()
