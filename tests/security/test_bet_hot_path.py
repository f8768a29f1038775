"""The bet's short middleware chain (casino.hot_path) answers every bet request as the full chain does.

Each case is sent through casino.wsgi.application's two Django handlers, the full one and the bet one, as raw
WSGI requests (so CSRF is enforced as for a browser), each time on the same state: the case prepares it in a
savepoint that is rolled back after the request. Status, JSON body and every header must be the same; a cookie
is compared by its name and attributes, not its random value, and the ids of a new spot and bets by their type
and count.

The world the cases play in (a round open for bets; two players signed in and funded, one of them seated; the
operator signed in with and without the second factor) is built once for the module: its five sign-ins, the
round and the deposits cost more than a test's own requests. It is built in a transaction held until the
module's last test ends and then rolled back; each test's own transaction is a savepoint in it, rolled back
after the test, so every test starts from the same state, and what ages in it is renewed at each test's start
(the round's betting deadline, the sessions' last request). So the full chain's answer to a case is the same in
every test and is computed once (`full_answer`): each test of the matrix computes its case's again and asserts
it is the module's, and a test that drops a middleware counts a case as noticing it only when the case also
differs from the full chain's answer in that test. A transactional test cannot run inside the module's
transaction: the one about the session read's dead connection is in test_bet_hot_path_connection.py.
"""

from __future__ import annotations

import io
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from django.test import override_settings
from django.utils import timezone

from accounts.middleware import LOGIN_AT_KEY, PASSWORD_CHANGE_KEY, SEEN_AT_KEY
from casino import hot_path, ratelimit
from casino.wsgi import application
from tests.helpers import join_table
from tests.rounds.test_api import API, post

pytestmark = pytest.mark.django_db

CSRF = "hotpath0csrf0token0for0the0test0"  # 32 characters: Django's unmasked CSRF secret
BODY = {"currency": "EUR", "bets": {"main": 1000}}
ADDRESS = "192.0.2.10"


@dataclass
class Bet:
    """One bet request: whose session, which headers, which body."""

    session: str | None
    game: str
    body: bytes = json.dumps(BODY).encode()
    csrf_cookie: str | None = CSRF
    csrf_header: str | None = CSRF
    headers: dict = field(default_factory=dict)
    path: str | None = None
    limit: tuple[int, int] | None = None  # RATE_LIMIT_BETS_PER_USER for this request


def environ_for(bet: Bet) -> dict:
    cookies = [f"{name}={value}" for name, value in (("sessionid", bet.session), ("csrftoken", bet.csrf_cookie))
               if value is not None]
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": bet.path or f"{API}{bet.game}/bets/", "SCRIPT_NAME": "",
        "QUERY_STRING": "", "SERVER_NAME": "testserver", "SERVER_PORT": "443", "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "https", "wsgi.input": io.BytesIO(bet.body), "wsgi.errors": sys.stderr,
        "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(bet.body)), "REMOTE_ADDR": ADDRESS,
        "HTTP_ORIGIN": "https://testserver", "HTTP_COOKIE": "; ".join(cookies),
    }
    if bet.csrf_header is not None:
        environ["HTTP_X_CSRFTOKEN"] = bet.csrf_header
    environ.update({"HTTP_" + name.upper().replace("-", "_"): value for name, value in bet.headers.items()})
    return environ


def _cookie_shape(value: str) -> tuple:
    name, _, rest = value.partition("=")
    attributes = (part.strip().lower() for part in rest.split(";")[1:])
    # The expiry is a clock reading: only that it is there is compared.
    return name, tuple(sorted(a.split("=")[0] if a.startswith(("expires=", "max-age=")) else a for a in attributes))


def answer_of(handler, bet: Bet) -> tuple:
    """(status, JSON body, headers) of the request through this handler, on the test's transaction."""
    out = {}

    def start_response(status, headers, exc_info=None):
        out["status"], out["headers"] = status, headers

    # Django's test client does the same: a request must not close the connection holding the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    limits = override_settings(RATE_LIMIT_BETS_PER_USER=bet.limit) if bet.limit else override_settings()
    try:
        with limits:
            result = handler(environ_for(bet), start_response)
            content = b"".join(result)
            result.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    body = json.loads(content) if content else None
    if isinstance(body, dict) and isinstance(body.get("bets"), list):
        # New rows' ids: each request draws its own from the sequences.
        body["bets"] = len(body["bets"])
        body["spot"] = type(body.get("spot")).__name__
    headers = sorted((name, _cookie_shape(value) if name == "Set-Cookie" else value) for name, value in out["headers"])
    return out["status"], body, headers


def rate_windows_clear(*users) -> None:
    seconds = {settings.RATE_LIMIT_BETS_PER_USER[1], settings.RATE_LIMIT_BETS_PER_ADDRESS[1], 60}
    keys = [f"bets:user:{user.pk}" for user in users] + [f"bets:address:{ADDRESS}"]
    cache.delete_many([ratelimit.window_key(key, s) for key in keys for s in seconds])


def world_build() -> dict:
    """A round open for bets; `player` sitting at its table, funded; `player2` signed in, funded, not seated; the
    operator signed in with and without the second factor. What the `roles`, persona, `free_bet_table` and
    `client_for` fixtures make, for a module-scoped fixture (which cannot use those function-scoped ones)."""
    from django.test import Client

    from accounts.services import roles_sync
    from accounts.sign_in import client_sign_in
    from tests.factories import RoundTableFactory, UserFactory
    from wallet import services as wallet

    def signed_in(user, *, second_factor: bool = True) -> Client:
        new = Client()
        client_sign_in(new, user, second_factor=second_factor)
        return new

    roles_sync()
    operator, player, player2 = (UserFactory(username=name, role=role, email=f"{name}@example.test")
                                 for name, role in (("olivia_operator", "operator"), ("pat_player", "player"),
                                                    ("quinn_player", "player")))
    RoundTableFactory(profile="free_bet", code="FB01")
    staff = signed_in(operator)
    response = post(staff, API, {"table": "FB01"})
    assert response.status_code == 201, response.json()
    game = response.json()["game_number"]
    for user in (player, player2):
        wallet.deposit(player=user, currency="EUR", amount=1_000_00, idempotency_key=f"dep-{user.pk}")
    seated, unseated = signed_in(player), signed_in(player2)
    join_table(seated, "FB01")
    cookie = settings.SESSION_COOKIE_NAME
    return {"game": game, "player": player, "operator": operator,
            "session": seated.cookies[cookie].value, "unseated": unseated.cookies[cookie].value,
            "staff": staff.cookies[cookie].value,
            "staff_no_factor": signed_in(operator, second_factor=False).cookies[cookie].value,
            "users": (player, player2, operator),
            "full": {}}  # case -> the full chain's answer (full_answer)


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker):
    """The module's world, built in a transaction that stays open until the module's last test ends and is then
    rolled back: Django's TestCase's own class-level transaction (the one setUpTestData writes in), in which
    pytest-django's transaction for each test is a savepoint."""
    from django.test import TestCase

    with django_db_blocker.unblock():
        atomics = TestCase._enter_atomics()
        try:
            built = world_build()
        except BaseException:
            TestCase._rollback_atomics(atomics)
            raise
    yield built
    with django_db_blocker.unblock():
        rate_windows_clear(*built["users"])
        TestCase._rollback_atomics(atomics)


@pytest.fixture
def world(shared_world):
    """The module's world, as fresh as when it was built: what ages in it is renewed in the test's transaction
    (so rolled back with it): the round's betting deadline, and each session's last request (a session not seen
    for SESSION_IDLE_REFRESH_SECONDS gets a new cookie)."""
    from rounds.models import Round

    betting = Round.objects.filter(game_number=shared_world["game"])
    opened_at, deadline = betting.values_list("opened_at", "deadline").get()
    assert betting.update(deadline=timezone.now() + (deadline - opened_at)) == 1
    for name in ("session", "unseated", "staff", "staff_no_factor"):
        session_edit(shared_world[name], **{SEEN_AT_KEY: time.time()})
    yield shared_world
    rate_windows_clear(*shared_world["users"])


def session_edit(key: str, **values) -> None:
    session = SessionStore(session_key=key)
    session.update(values)
    session.save()


def _placed(w):
    return Bet(w["session"], w["game"], headers={"Idempotency-Key": "k-placed"})


def _replayed(w):
    answer_of(application.full, Bet(w["session"], w["game"], headers={"Idempotency-Key": "k-replay"}))
    return Bet(w["session"], w["game"], headers={"Idempotency-Key": "k-replay"})


def _same_key_other_body(w):
    answer_of(application.full, Bet(w["session"], w["game"], headers={"Idempotency-Key": "k-other"}))
    body = json.dumps({"currency": "EUR", "bets": {"main": 2000}}).encode()
    return Bet(w["session"], w["game"], body=body, headers={"Idempotency-Key": "k-other"})


def _expired(w):
    session_edit(w["session"], **{LOGIN_AT_KEY: time.time() - settings.SESSION_MAX_AGE_SECONDS - 1})
    return Bet(w["session"], w["game"])


def _idle(w):
    idle_since = time.time() - settings.SESSION_IDLE_PLAYER_SECONDS - 1
    session_edit(w["session"], **{SEEN_AT_KEY: idle_since, LOGIN_AT_KEY: idle_since})
    return Bet(w["session"], w["game"])


def _expiry_refresh(w):
    # Seen more than SESSION_IDLE_REFRESH_SECONDS ago: the session's stored expiry moves on (a new cookie).
    session_edit(w["session"], **{SEEN_AT_KEY: time.time() - settings.SESSION_IDLE_REFRESH_SECONDS - 5})
    return Bet(w["session"], w["game"])


def _password_change(w):
    session_edit(w["session"], **{PASSWORD_CHANGE_KEY: True})
    return Bet(w["session"], w["game"])


def _changed_password(w):
    # The session's auth hash no longer matches: the session counts as signed out.
    w["player"].set_password("another-one-42")
    w["player"].save()
    return Bet(w["session"], w["game"])


def _rate_limited(w):
    answer_of(application.full, Bet(w["session"], w["game"], limit=(1, 60)))
    return Bet(w["session"], w["game"], limit=(1, 60))


def _betting_closed(w):
    from rounds.models import Round

    Round.objects.filter(game_number=w["game"]).update(deadline=timezone.now() - timedelta(seconds=5))
    return Bet(w["session"], w["game"])


def _api_key(w):
    from accounts.services import api_token_create

    _token, key = api_token_create(user=w["player"], name="phone")
    device = {"csrf_cookie": None, "csrf_header": None, "headers": {"Authorization": f"Token {key}"}}
    joined = answer_of(application.full, Bet(None, w["game"], path="/api/players/me/tables/FB01/join/", body=b"",
                                             **device))
    assert joined[0].startswith("200"), joined
    return Bet(None, w["game"], **device)


def _api_key_foreign_host(w):
    bet = _api_key(w)
    bet.headers["Host"] = "evil.example"
    return bet


CASES = {
    "placed": _placed,
    "replayed with the same key": _replayed,
    "same key, another body": _same_key_other_body,
    "no idempotency key": lambda w: Bet(w["session"], w["game"]),
    "bad JSON": lambda w: Bet(w["session"], w["game"], body=b'{"currency": "EUR", "bets": '),
    "bad JSON and no CSRF token": lambda w: Bet(w["session"], w["game"], body=b"{", csrf_header=None),
    "amount invalid": lambda w: Bet(w["session"], w["game"], body=b'{"currency": "EUR", "bets": {"main": -5}}'),
    "amount not a number": lambda w: Bet(w["session"], w["game"], body=b'{"currency": "EUR", "bets": {"main": "x"}}'),
    "over the table limit": lambda w: Bet(w["session"], w["game"],
                                          body=b'{"currency": "EUR", "bets": {"main": 5000000000}}'),
    "a currency the table does not take": lambda w: Bet(w["session"], w["game"],
                                                        body=b'{"currency": "USD", "bets": {"main": 1000}}'),
    "no session": lambda w: Bet(None, w["game"]),
    "an unknown session": lambda w: Bet("nosuchsession0000000000000000000", w["game"]),
    "session past its absolute age": _expired,
    "session idle too long": _idle,
    "session due for its expiry refresh": _expiry_refresh,
    "password changed since the login": _changed_password,
    "CSRF token missing": lambda w: Bet(w["session"], w["game"], csrf_header=None),
    "CSRF token wrong": lambda w: Bet(w["session"], w["game"], csrf_header="x" * 32),
    "CSRF cookie missing": lambda w: Bet(w["session"], w["game"], csrf_cookie=None),
    "CSRF cookie malformed": lambda w: Bet(w["session"], w["game"], csrf_cookie="short!"),
    "foreign origin": lambda w: Bet(w["session"], w["game"], headers={"Origin": "https://evil.example"}),
    "staff user": lambda w: Bet(w["staff"], w["game"]),
    "staff user without the second factor": lambda w: Bet(w["staff_no_factor"], w["game"]),
    "a player who must change the password": _password_change,
    "rate limited": _rate_limited,
    "betting closed": _betting_closed,
    "not seated at the table": lambda w: Bet(w["unseated"], w["game"]),
    "unknown game": lambda w: Bet(w["session"], "XX99-20200101-000000"),
    "a path with a control character": lambda w: Bet(w["session"], w["game"], path=f"{API}{w['game']}\x01/bets/"),
    "a header with a control character": lambda w: Bet(w["session"], w["game"], headers={"X-Note": "a\x00b"}),
    "a host not allowed": lambda w: Bet(w["session"], w["game"], headers={"Host": "evil.example"}),
    "an API key": _api_key,
    "an API key, a host not allowed": _api_key_foreign_host,
}


def answers(handler, world, case) -> tuple:
    """The case's answer through this handler, on state that is rolled back afterwards."""
    savepoint = transaction.savepoint()
    try:
        return answer_of(handler, CASES[case](world))
    finally:
        transaction.savepoint_rollback(savepoint)
        rate_windows_clear(*world["users"])


def full_answer(world, case) -> tuple:
    """The full chain's answer to the case: the same in every test of the module (one world, each case on state
    rolled back), so computed once; test_the_bet_chain_answers_as_the_full_chain asserts each is still so."""
    if case not in world["full"]:
        world["full"][case] = answers(application.full, world, case)
    return world["full"][case]


def bet_matched(world, case) -> bool:
    """Whether Application sends the case's request to the bet chain (what the case prepares is rolled back)."""
    savepoint = transaction.savepoint()
    try:
        return application.bet_match(environ_for(CASES[case](world))) is not None
    finally:
        transaction.savepoint_rollback(savepoint)
        rate_windows_clear(*world["users"])


@pytest.mark.parametrize("case", list(CASES))
def test_the_bet_chain_answers_as_the_full_chain(world, case):
    assert bet_matched(world, case), "not sent to the bet chain"
    full = answers(application.full, world, case)
    assert answers(application.bet, world, case) == full
    assert full[0] != "500 Internal Server Error", full
    # The module's other tests take the full chain's answers from full_answer: this one must be the same.
    assert world["full"].setdefault(case, full) == full, "the full chain answered otherwise in another test"


def test_the_cases_see_each_refusal(world):
    statuses = {case: full_answer(world, case)[0][:3] for case in CASES}
    assert statuses["placed"] == statuses["replayed with the same key"] == statuses["an API key"] == "201"
    assert {statuses[case] for case in ("no session", "session idle too long", "session past its absolute age",
                                        "CSRF token missing", "CSRF token wrong", "staff user",
                                        "a player who must change the password")} == {"403"}
    assert statuses["rate limited"] == "429" and statuses["unknown game"] == "404"
    assert statuses["bad JSON"] == statuses["a path with a control character"] == "400"
    assert statuses["betting closed"] == statuses["not seated at the table"] == "409"


@pytest.mark.parametrize("middleware", hot_path.bet_middleware())
def test_the_cases_notice_a_step_the_bet_chain_would_drop(world, middleware, monkeypatch):
    monkeypatch.setitem(hot_path.SKIPPED, middleware, "dropped by this test")
    broken = hot_path.BetHandler()
    differ = {case: answer for case in CASES if (answer := answers(broken, world, case)) != full_answer(world, case)}
    # The module's answers only point at the cases to look at: a case notices when it differs from the full
    # chain's answer in this test too (a world aged since would otherwise make every case differ).
    noticed = next((case for case, answer in differ.items() if answer != answers(application.full, world, case)),
                   None)
    assert noticed, f"no case notices the bet chain without {middleware}"


def test_only_the_bet_view_takes_the_bet_chain(world):
    bet = Bet(world["session"], world["game"])
    assert application.bet_match(environ_for(bet)) is not None
    assert application.bet_match({**environ_for(bet), "REQUEST_METHOD": "GET"}) is None
    assert application.bet_match(environ_for(Bet(world["session"], world["game"],
                                                  path=f"{API}{world['game']}/bets/repeat/"))) is None
    assert application.bet_match(environ_for(Bet(world["session"], world["game"], path="/api/rounds/bets/"))) is None


def test_a_new_middleware_runs_on_the_bet_chain_unless_skipped_with_a_reason():
    assert hot_path.bet_middleware() == [path for path in settings.MIDDLEWARE if path not in hot_path.SKIPPED]
    assert set(hot_path.SKIPPED) <= set(settings.MIDDLEWARE)
    assert all(reason for reason in hot_path.SKIPPED.values())
