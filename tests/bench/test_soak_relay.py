"""The delay relay of the soak's test hosts (bench/soak_relay.py) and how the soak puts a host behind it
(bench/soak_hosts.py --relay-rtt-ms). The soak itself is not run here."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench.soak_hosts import Network, comparison
from tests.helpers import free_port

RELAY = Path(__file__).resolve().parents[2] / "bench" / "soak_relay.py"



def echo_server() -> int:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        client, _ = server.accept()
        with client:
            while data := client.recv(1024):
                client.sendall(data)

    threading.Thread(target=serve, daemon=True).start()
    return server.getsockname()[1]


def relay_to(port: int, delay_ms: float) -> tuple[subprocess.Popen, int]:
    listen = free_port()
    relay = subprocess.Popen([sys.executable, str(RELAY), "--delay-ms", str(delay_ms),
                              f"127.0.0.1:{listen}=127.0.0.1:{port}"], stdout=subprocess.PIPE, text=True)
    assert relay.stdout.readline().strip() == "relay ready"
    return relay, listen


def relay_stop(relay: subprocess.Popen) -> str:
    """Stops the relay and returns what it printed; one that has not ended 10 s after SIGTERM is killed rather
    than left running after the test (a loaded machine once kept one past the test run)."""
    relay.terminate()
    try:
        out, _ = relay.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        relay.kill()
        relay.communicate()
        raise
    return out


def round_trips(port: int, count: int) -> list[float]:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        times = []
        for n in range(count):
            started = time.perf_counter()
            client.sendall(b"%d" % n)
            assert client.recv(64) == b"%d" % n  # the bytes, in order, unchanged
            times.append(time.perf_counter() - started)
    return times


def test_every_round_trip_through_the_relay_pays_its_delay_both_ways():
    relay, port = relay_to(echo_server(), delay_ms=20)
    try:
        times = round_trips(port, 5)
    finally:
        relay_stop(relay)
    # 20 ms each way: no round trip can come back in under 40 ms; a loaded machine can only add to it.
    assert min(times) >= 0.040


def test_chunks_behind_each_other_are_not_delayed_once_each():
    relay, port = relay_to(echo_server(), delay_ms=100)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            started = time.perf_counter()
            for _ in range(10):  # pipelined: ten writes without waiting for the answers
                client.sendall(b"x")
                time.sleep(0.01)
            received = b""
            while len(received) < 10:
                received += client.recv(64)
            elapsed = time.perf_counter() - started
    finally:
        relay_stop(relay)
    # A relay that waited the delay per chunk in turn would take 10 x 100 ms at least; a fixed latency, 0.3 s.
    assert 0.2 <= elapsed < 0.9


def test_a_target_that_does_not_answer_closes_the_client_connection_at_once():
    relay, port = relay_to(free_port(), delay_ms=1)  # nothing listens on the target port
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            assert client.recv(64) == b""
    finally:
        out = relay_stop(relay)
    assert "1 refused by the target" in out


def test_the_relayed_hosts_reach_the_database_host_at_their_own_address_and_the_first_host_does_not():
    network = Network(hosts=3, tag=55996, relay_rtt_ms=1.0)
    db = network.db_address
    env = {"DATABASE_URL": f"postgres://postgres@{db}:55996/casino_soak", "CELERY_BROKER_URL": f"redis://{db}:56396/0",
           "SECRET_KEY": "x"}
    assert network.relayed == network.workers[1:]
    assert network.env_for(network.workers[0], env) == env
    second = network.address(network.workers[1])
    assert network.env_for(network.workers[1], env) == {
        "DATABASE_URL": f"postgres://postgres@{second}:55996/casino_soak",
        "CELERY_BROKER_URL": f"redis://{second}:56396/0", "SECRET_KEY": "x"}
    assert Network(hosts=2, tag=55996).relayed == []


@pytest.mark.parametrize("kwargs", [{"hosts": 1, "relay_rtt_ms": 1.0}, {"hosts": 2, "relay_rtt_ms": -1.0},
                                    {"hosts": 2, "relay_rtt_ms": 1.0, "delay_ms": 0.5}])
def test_a_relay_needs_a_second_host_a_delay_of_zero_or_more_and_no_netem_delay(kwargs):
    with pytest.raises(SystemExit, match="--relay-rtt-ms needs"):
        Network(tag=55996, **kwargs)


def test_the_comparison_puts_the_relayed_runs_after_the_ratio_with_their_measured_round_trip():
    def figures(hosts: int, seconds: float, rtt: float | None = None) -> dict:
        return {"hosts": hosts, "workers": hosts, "rounds": 60, "placements": 600, "settled": 60,
                "play seconds": seconds, "settle runs by host": {"h1": 60}, "settle ms by host": {"h1": 80.0},
                "recovery": {"host": [4.0] if hosts > 1 else []}, "passed": True, "relay rtt ms": rtt,
                "relay probe ms": {"h2": rtt + 0.3} if rtt is not None else {}}

    text = comparison(figures(1, 100.0), figures(2, 50.0), figures(2, 60.0, 5.0))
    lines = text.splitlines()
    assert lines[0] == "| Figure | 1 host | 2 hosts | 2 hosts / 1 host | 2 hosts, host 2 +5 ms round trip |"
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines}
    assert rows["Rounds per second of play"].endswith("| 0.60 | 1.20 | 2.00 | 1.00 |")
    assert rows["Round trip added to host 2 (relay; Redis PING median)"].endswith("| — | — |  | 5.30 ms |")
    assert rows["Recovery after host fault, s (each)"].endswith("| — | 4.0 |  | 4.0 |")
