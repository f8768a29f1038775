"""The soak's test hosts (bench/soak_hosts.py): the address plan, the clear message without iproute2, the
namespaces removed after use, and the 1-host/2-host comparison's ratios. The soak itself is not run here."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import pytest

from bench import soak_hosts
from bench.soak_hosts import Network, comparison, comparison_in_page, soak_page


def test_network_plan_gives_every_host_its_own_address_on_one_private_subnet_and_short_link_names():
    network = Network(hosts=3, tag=65535)
    addresses = [network.db_address, *(network.address(n) for n in network.workers)]
    assert len(set(addresses)) == 4
    assert {a.rsplit(".", 1)[0] for a in addresses} == {network.prefix}
    assert network.prefix.startswith("10.")
    links = [link for n in (network.db, *network.workers) for link in network._links(n)]
    assert len(set(links)) == len(links)
    assert all(len(name) <= 15 for name in [*links, network.bridge])  # the kernel's limit for a link name


def test_without_iproute2_the_soak_says_what_to_install(monkeypatch):
    monkeypatch.setattr(soak_hosts.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match=r"apt-get install -y iproute2"):
        Network(hosts=2, tag=55999).create()


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("ip"), reason="network namespaces need root and ip")
def test_a_worker_host_reaches_the_database_host_across_the_bridge_and_everything_is_removed_after():
    network = Network(hosts=2, tag=55998)
    listen = ("import socket; s = socket.socket(); s.bind((ADDRESS, 55998)); s.listen(); print('up', flush=True); "
              "c, a = s.accept(); c.sendall(a[0].encode())").replace("ADDRESS", repr(network.db_address))
    connect = ("import socket; s = socket.create_connection((ADDRESS, 55998), timeout=5); "
               "print(s.recv(64).decode())").replace("ADDRESS", repr(network.db_address))
    try:
        try:
            network.create()
        except SystemExit as refused:  # a container without CAP_NET_ADMIN: root, but no namespaces
            if "not permitted" in str(refused):
                pytest.skip(f"network namespaces refused here: {refused}")
            raise
        server = subprocess.Popen(
            [*network.wrap(network.db), sys.executable, "-c", listen], stdout=subprocess.PIPE, text=True)
        assert server.stdout.readline().strip() == "up"
        client = subprocess.run(
            [*network.wrap(network.workers[1]), sys.executable, "-c", connect], capture_output=True, text=True, timeout=30)
        server.wait(timeout=10)
        assert client.stdout.strip() == network.address(network.workers[1])  # the server saw the host's address
        with pytest.raises(OSError):  # and the database host is not on this namespace's loopback
            socket.create_connection(("127.0.0.1", 55998), timeout=1)
    finally:
        network.remove()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert "sk55998" not in listed and "sk55998" not in links


def figures(hosts: int, rounds: int, seconds: float) -> dict:
    return {"hosts": hosts, "workers": hosts, "rounds": rounds, "placements": rounds * 10, "settled": rounds,
            "play seconds": seconds, "settle runs by host": {f"h{n + 1}": rounds // hosts for n in range(hosts)},
            "recovery": {"database": [1.5], "broker": [], "host": [5.0] if hosts > 1 else []}, "passed": True}


def test_comparison_gives_the_two_host_run_over_the_one_host_run_per_second_of_play():
    text = comparison(figures(1, 60, 100.0), figures(2, 60, 50.0))
    rows = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines()}
    assert rows["Rounds per second of play"].endswith("| 0.60 | 1.20 | 2.00 |")
    assert rows["Bets per second of play"].endswith("| 6.0 | 12.0 | 2.00 |")
    assert "| — | 5.0 |" in rows["Recovery after host fault, s (each)"]


def test_the_plain_soak_rewrites_its_report_and_keeps_the_two_host_section():
    page = "# Soak test\nold report\n\n## Two worker hosts\n\nprose\n<!-- soak-hosts:begin -->\nT\n<!-- soak-hosts:end -->\n"
    assert soak_page("# Soak test\nnew report\n", page) == (
        "# Soak test\nnew report\n\n## Two worker hosts\n\nprose\n<!-- soak-hosts:begin -->\nT\n"
        "<!-- soak-hosts:end -->\n")
    assert soak_page("# Soak test\nnew\n", "# Soak test\nold\n") == "# Soak test\nnew\n"


def test_the_comparison_replaces_only_its_own_block_and_adds_the_section_when_missing():
    page = "report\n\n## Two worker hosts\n\nprose\n<!-- soak-hosts:begin -->\nold\n<!-- soak-hosts:end -->\n\nafter\n"
    assert comparison_in_page("new", page) == (
        "report\n\n## Two worker hosts\n\nprose\n<!-- soak-hosts:begin -->\nnew\n<!-- soak-hosts:end -->\n\nafter\n")
    assert comparison_in_page("new", "report\n") == (
        "report\n\n## Two worker hosts\n\n<!-- soak-hosts:begin -->\nnew\n<!-- soak-hosts:end -->\n")


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("tc"), reason="netem needs root and tc")
def test_a_delay_is_either_on_every_worker_link_or_refused_with_the_reason():
    network = Network(hosts=1, tag=55997, delay_ms=0.5)
    try:
        try:
            network.create()
        except SystemExit as refused:
            if "not permitted" in str(refused):
                pytest.skip(f"network namespaces refused here: {refused}")
            assert "no netem qdisc" in str(refused) and "run without --delay-ms" in str(refused)
            return
        outside = network._links(network.workers[0])[0]
        shown = subprocess.run(["tc", "qdisc", "show", "dev", outside], capture_output=True, text=True).stdout
        assert "netem" in shown and "delay" in shown
    finally:
        network.remove()
    assert "sk55997" not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
