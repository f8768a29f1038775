"""The production web server (scripts/web.sh: granian serving casino.wsgi) serves the game client and the pages
over real HTTP: a player's bets on one kept-open connection, each placed once, a replayed key answered with the
first answer, a page, and the client's address taken from the connection."""

import http.client
import json
import os
import re
import subprocess
import time
from urllib.parse import urlencode

import pytest

from accounts.models import LoginEvent, LoginRecord
from rounds.models import RoundBet
from tests.fixtures.worker import _database_url_for_worker
from tests.helpers import REPO, free_port, join_table
from tests.rounds.test_api import API, post
from wallet import selectors as wallet_selectors
from wallet import services as wallet

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

CSRF = "web0server0test0csrf0token000000"  # Django's unmasked 32-character secret format



@pytest.fixture
def web_server(tmp_path):
    port = free_port()
    env = dict(os.environ, DATABASE_URL=_database_url_for_worker(), WEB_BIND=f"127.0.0.1:{port}", WEB_WORKERS="1",
               WEB_THREADS="2", ALLOWED_HOSTS="127.0.0.1", SECURE_SSL_REDIRECT="0", LOG_LEVEL="WARNING")
    log = tmp_path / "web.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([str(REPO / "scripts" / "web.sh")], cwd=REPO, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"scripts/web.sh exited with {proc.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"no answer from scripts/web.sh in 60 s:\n{log.read_text()}"
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    conn.close()
                    break
            except OSError:
                pass
            time.sleep(0.2)
        yield port
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()


def test_bets_and_a_page_over_one_kept_open_connection(web_server, client_for, operator, player, free_bet_table):
    response = post(client_for(operator), API, {"table": "FB01"})
    assert response.status_code == 201, response.json()
    game_number = response.json()["game_number"]
    wallet.deposit(player=player, currency="EUR", amount=100_00, idempotency_key="web-server-deposit")
    client = client_for(player)
    join_table(client, "FB01")
    cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF}"
    body = json.dumps({"currency": "EUR", "bets": {"main": 5_00}})

    conn = http.client.HTTPConnection("127.0.0.1", web_server, timeout=20)

    def bet(key: str) -> tuple[int, dict]:
        conn.request("POST", f"/api/rounds/{game_number}/bets/", body=body, headers={
            "Content-Type": "application/json", "Cookie": cookie, "X-CSRFToken": CSRF, "Idempotency-Key": key})
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())

    status, first = bet("web-1")
    assert status == 201, first
    sock = conn.sock
    status, second = bet("web-2")
    assert status == 201, second
    assert conn.sock is sock and sock is not None, "the server closed the connection between two bets"
    status, replay = bet("web-1")
    assert (status, replay) == (201, {**first, "replayed": True}), "a replayed key gets the first answer back"

    conn.request("GET", "/wallet/", headers={"Cookie": cookie})
    page = conn.getresponse()
    html = page.read().decode()
    assert page.status == 200 and "text/html" in page.getheader("Content-Type")
    assert conn.sock is sock
    conn.close()

    assert RoundBet.objects.filter(round__game_number=game_number, spot__player=player).count() == 2
    balance = wallet_selectors.player_balance(player=player, currency="EUR")
    assert balance == 90_00
    assert "90.00" in html  # the page read what the two bets left, through the same server


def test_a_refused_sign_in_is_recorded_with_the_connections_address(web_server):
    # No proxy is trusted by default (TRUSTED_PROXY_COUNT=0): a forwarded header is the client's own words, and the
    # address recorded is the connection's, which the server hands to Django as REMOTE_ADDR.
    conn = http.client.HTTPConnection("127.0.0.1", web_server, timeout=20)
    conn.request("GET", "/login/")
    form = conn.getresponse()
    html = form.read().decode()
    assert form.status == 200
    cookie = re.search(r"csrftoken=([^;]+)", form.getheader("Set-Cookie") or "").group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    conn.request("POST", "/login/", body=urlencode({
        "csrfmiddlewaretoken": token, "username": "nobody-by-that-name", "password": "not-the-password"}),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={cookie}",
                 "X-Forwarded-For": "203.0.113.9"})
    refused = conn.getresponse()
    refused.read()
    conn.close()
    assert refused.status == 200  # the form again, with its error
    record = LoginRecord.objects.get(username="nobody-by-that-name")
    assert (record.event, record.ip_address) == (LoginEvent.LOGIN_FAILED, "127.0.0.1")
