"""One table of who may reach what: every URL of the project and every operation of the API, for each persona.

The personas: an anonymous visitor, a player (pat, seated in a settled round with a seat-mate, with a deposit of
their own), another player (quinn: a deposit, no seat in that round), support and an operator. What a licensed
operator demands of the roles: support reads every round, player and transaction and voids a round gone wrong, but
configures nothing and runs no table; operators run and configure the tables and read the back office; a player
reaches only their own games, wallet and settings, and another player's game is not found, exactly like a game
number that does not exist. A page refuses a visitor by sending them to sign in; the API says not_authenticated.

A URL pattern or an API operation with no row fails the build, and so does a row for one that no longer exists.
The API rows ask with an empty or impossible request, so a persona that passes the permission check gets the
refusal of its input (400) or of the game's state (409) and changes nothing, and the test can tell that answer
from a permission refusal."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.factories import new_key

pytestmark = pytest.mark.django_db


PERSONAS = ("anonymous", "player", "other", "support", "operator")
OK, LOGIN, NOT_FOUND = "ok", "login", "not_found"


def expect(anonymous=LOGIN, player=403, other=403, support=403, operator=403) -> dict:
    return {"anonymous": anonymous, "player": player, "other": other, "support": support, "operator": operator}


EVERYONE = expect(OK, OK, OK, OK, OK)
SIGNED_IN = expect(player=OK, other=OK, support=OK, operator=OK)
PLAYERS = expect(player=OK, other=OK)
STAFF = expect(support=OK, operator=OK)
SUPPORT = expect(support=OK)
OPERATOR = expect(operator=OK)
POST_ONLY = expect(405, 405, 405, 405, 405)  # the method is refused before anyone is asked who they are
# (also a GET-only view asked with POST: the same 405, whoever asks)


@dataclass
class World:
    table: str
    past: str  # a settled round: pat on seat 1, a seat-mate on seat 2; the table has moved on
    current: str  # the round the table plays now, betting open
    pat: int
    pat_account: int
    pat_transaction: int
    probe: int
    rtp_run: int
    pat_token: int
    chat_message: int


@pytest.fixture
def world(personas, play, classic_table, funded, operator) -> World:
    from accounts.services import api_token_create, worker_heartbeat_request
    from rounds import services
    from tables.services import rtp_run_start
    from wallet import selectors as wallet_selectors
    from wallet import services as wallet

    pat, quinn = personas["player"], personas["player2"]
    pat_deposit = wallet.deposit(player=pat, currency="EUR", amount=500_00, idempotency_key=new_key())
    wallet.deposit(player=quinn, currency="EUR", amount=500_00, idempotency_key=new_key())
    mate = funded(username="mia_seat_mate")
    r = play(classic_table)
    r.bet(pat, {"main": 1000}, seat=1)
    r.bet(mate, {"main": 3000}, seat=2)
    r.close()
    r.cards("Th", "Ts", "9c", "Kd", "6c")
    r.decide(pat, "stand", seat=1)
    r.decide(mate, "stand", seat=2)
    r.cards("Ts")
    r.complete()
    past = r.settle()
    current = services.round_open(table=classic_table, actor=operator)
    from chat.services import chat_host_post

    message = chat_host_post(actor=operator, table=classic_table, body="Welcome to the table")
    return World(
        table=classic_table.code, past=past.game_number, current=current.game_number, pat=pat.pk,
        pat_account=wallet_selectors.player_accounts(player=pat)[0].pk, pat_transaction=pat_deposit.pk,
        probe=worker_heartbeat_request(user=operator).pk,
        rtp_run=rtp_run_start(actor=operator, table=classic_table, hands=1000).pk,
        pat_token=api_token_create(user=pat, name="pat's phone")[0].pk, chat_message=message.pk,
    )


# --- the pages ------------------------------------------------------------------------------------------------
# URL name -> [(method, arguments from the world, query string, expectations)]
PAGES = {
    "home": [("GET", (), "", SIGNED_IN)],
    "login": [("GET", (), "", EVERYONE), ("POST", (), "", EVERYONE)],
    "logout": [("GET", (), "", POST_ONLY), ("POST", (), "", EVERYONE)],
    "healthz": [("GET", (), "", EVERYONE)],
    "worker_health": [("GET", (), "", OPERATOR)],
    "worker_health_probe": [("GET", (), "", POST_ONLY), ("POST", (), "", OPERATOR)],
    "worker_health_probe_status": [("GET", ("probe",), "", OPERATOR)],
    # the second factor: only an unverified staff session stays on these; everyone else is sent on
    "second_factor_verify": [("GET", (), "", SIGNED_IN), ("POST", (), "", SIGNED_IN)],
    "second_factor_enrol": [("GET", (), "", SIGNED_IN), ("POST", (), "", SIGNED_IN)],
    "password_change": [("GET", (), "", SIGNED_IN), ("POST", (), "", expect(player=400, other=400, support=400,
                                                                            operator=400))],
    "player_password_reset": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", SUPPORT)],
    "player_api_tokens_revoke": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", SUPPORT)],
    # the API's map is for its signed-in clients; these are API views, so a visitor gets a 403, not a redirect
    "api-schema": [("GET", (), "", expect(403, OK, OK, OK, OK))],
    "api-docs": [("GET", (), "", expect(LOGIN, OK, OK, OK, OK))],  # a page: a visitor is sent to sign in
    # the back office
    "backoffice_search": [("GET", (), "?q=past", STAFF)],  # a read: the round pages' breadcrumb links here
    "backoffice_round": [("GET", ("past",), "", STAFF)],
    "backoffice_round_void": [("GET", ("past",), "", POST_ONLY), ("POST", ("past",), "", expect(support=400,
                                                                                                 operator=400))],
    "backoffice_round_void_progress": [("GET", ("past",), "", STAFF)],
    # a retry of a round the worker gave up on: this one needs none (409-like refusal sent back to the page)
    "backoffice_round_retry": [("GET", ("past",), "", POST_ONLY), ("POST", ("past",), "", expect(support=OK,
                                                                                                 operator=OK))],
    "staff_activity": [("GET", (), "", OPERATOR)],
    "staff_activity_csv": [("GET", (), "", OPERATOR)],
    "backoffice_player": [("GET", ("pat",), "", STAFF)],
    "backoffice_player_games_csv": [("GET", ("pat",), "", STAFF)],  # the player's own CSV, read by staff
    # an empty note, chat action or grant is sent back to the player page with the reason
    "backoffice_player_note": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", SUPPORT)],
    "backoffice_player_chat": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", SUPPORT)],
    "backoffice_player_golden_chips": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", OPERATOR)],
    "backoffice_transaction": [("GET", ("pat_transaction",), "", STAFF)],
    # the chat log: staff read it; support disables a player's chat from a message (an empty reason is sent
    # back to the log with the reason to give)
    "chat_log": [("GET", (), "", STAFF)],
    "chat_message_disable": [("GET", ("chat_message",), "", POST_ONLY), ("POST", ("chat_message",), "", SUPPORT)],
    "backoffice_dashboard": [("GET", (), "", OPERATOR)],
    "backoffice_rtp": [("GET", (), "", OPERATOR)],
    "backoffice_rtp_csv": [("GET", (), "", OPERATOR)],
    # the daily reconciliation: finance reads it with the dashboard's permission
    "backoffice_reconciliation": [("GET", (), "", OPERATOR)],
    "backoffice_reconciliation_csv": [("GET", (), "", OPERATOR)],
    # finance reads GGR where it reads the RTP report (there is no finance role: the operator's dashboard right)
    "backoffice_ggr": [("GET", (), "", OPERATOR)],
    "backoffice_ggr_csv": [("GET", (), "", OPERATOR)],
    # a player's own games: another player's game is not found
    "player_games": [("GET", (), "", PLAYERS)],
    "player_games_csv": [("GET", (), "", PLAYERS)],
    "player_game": [("GET", ("past",), "", expect(player=OK, other=404))],
    # the player's table pages and settings
    "player_settings": [("GET", (), "", PLAYERS), ("POST", (), "", expect(player=400, other=400))],
    "player_tables": [("GET", (), "", PLAYERS)],
    "player_table": [("GET", ("table",), "", PLAYERS)],
    # a table's rules for players: support reads what the player reads
    "player_table_help": [("GET", ("table",), "", SIGNED_IN), ("GET", ("table",), "?lang=sv", SIGNED_IN)],
    "player_table_join": [("GET", ("table",), "", POST_ONLY), ("POST", ("table",), "", PLAYERS)],
    "player_table_leave": [("GET", ("table",), "", POST_ONLY), ("POST", ("table",), "", PLAYERS)],
    "player_table_tip": [("GET", ("table",), "", POST_ONLY), ("POST", ("table",), "", expect(player=400,
                                                                                             other=400))],
    # the table page's chat: read by players (one not at the table is told to join), an empty message refused
    "player_table_chat": [("GET", ("table",), "", PLAYERS), ("POST", ("table",), "", expect(player=400, other=400))],
    # the wallet: a player's own, staff read any player's
    "wallet_home": [("GET", (), "", PLAYERS), ("GET", (), "?account=pat_account", expect(player=OK, other=404))],
    "wallet_history_csv": [("GET", (), "", PLAYERS)],
    # the statement: a player's own (no player in its URL), and support's of any player
    "player_statement": [("GET", (), "", PLAYERS), ("GET", (), "?lang=sv", PLAYERS)],
    "player_statement_csv": [("GET", (), "", PLAYERS)],
    "support_player_statement": [("GET", ("pat",), "", STAFF)],
    "support_player_statement_csv": [("GET", ("pat",), "?lang=sv", STAFF)],
    "wallet_cashier": [("GET", (), "", PLAYERS), ("POST", (), "", expect(player=400, other=400))],
    "wallet_players": [("GET", (), "", STAFF)],
    "wallet_player": [("GET", ("pat",), "", STAFF)],
    "wallet_player_history_csv": [("GET", ("pat",), "", STAFF)],
    # tables: staff read, operators configure (an empty form comes back with its errors)
    "tables_list": [("GET", (), "", STAFF)],
    "table_new": [("GET", (), "", OPERATOR), ("POST", (), "", OPERATOR)],
    "table_detail": [("GET", ("table",), "", STAFF)],
    "table_edit": [("GET", ("table",), "", OPERATOR), ("POST", ("table",), "", OPERATOR)],
    "table_edit_preview": [("GET", ("table",), "", OPERATOR), ("POST", ("table",), "", POST_ONLY)],
    "table_limits": [("GET", ("table",), "", OPERATOR), ("POST", ("table",), "", OPERATOR)],
    "table_paytable": [("GET", ("table", "hot3"), "", OPERATOR), ("POST", ("table", "hot3"), "", OPERATOR)],
    "table_state": [("GET", ("table",), "", POST_ONLY), ("POST", ("table",), "", OPERATOR)],
    "table_history": [("GET", ("table",), "", STAFF)],
    "table_strategy": [("GET", ("table",), "", STAFF)],
    "table_rtp_start": [("GET", ("table",), "", POST_ONLY), ("POST", ("table",), "", OPERATOR)],
    "table_rtp_run": [("GET", ("table", "rtp_run"), "", STAFF)],
    # rounds: staff look rounds up
    "round_lookup": [("GET", (), "", STAFF)],
    "round_detail": [("GET", ("past",), "", STAFF)],
    "round_replay": [("GET", ("past",), "", STAFF)],
    # responsible gambling: the player's own page (an empty form comes back with its errors); support reads a
    # player's and changes their jurisdiction and the register (an empty form: 400), operators read
    "responsible_page": [("GET", (), "", PLAYERS), ("GET", (), "?lang=sv", PLAYERS),
                         ("POST", (), "", expect(player=400, other=400))],
    "responsible_reality_answer": [("GET", (), "", POST_ONLY), ("POST", (), "", expect(player=400, other=400))],
    "responsible_support_player": [("GET", ("pat",), "", STAFF), ("POST", ("pat",), "", expect(support=400))],
    "responsible_register": [("GET", (), "", SUPPORT), ("POST", (), "", expect(support=400))],
    "responsible_register_remove": [("GET", ("probe",), "", POST_ONLY), ("POST", ("probe",), "", SUPPORT)],
    # support enters a player's written request to end a self-exclusion (an empty form: told so, nothing changes)
    "responsible_support_exclusion_end": [("GET", ("pat",), "", POST_ONLY), ("POST", ("pat",), "", SUPPORT)],
    # the jurisdictions' rules: staff read them; only operators change them (an empty form comes back, 400)
    "responsible_jurisdictions": [("GET", (), "", STAFF)],
    "responsible_jurisdiction": [("GET", ("SE",), "", STAFF), ("POST", ("SE",), "", expect(operator=400))],
}

# The admin site: staff only. Tables: staff read them there, operators add them. Rounds: staff read, nobody adds.
# Users: only a superuser. The ledger and player records: staff read them there, nobody changes them.
NOBODY = expect(player=LOGIN, other=LOGIN)
READ = expect(player=LOGIN, other=LOGIN, support=OK, operator=OK)
CONFIGURE = expect(player=LOGIN, other=LOGIN, operator=OK)
ADMIN_MODELS = {  # model -> (its list, its add form)
    "auth.group": (NOBODY, NOBODY), "auth.user": (NOBODY, NOBODY),
    "tables.table": (READ, CONFIGURE), "tables.betlimit": (READ, CONFIGURE),
    "tables.tablepaytable": (READ, NOBODY), "tables.tablechange": (READ, NOBODY),
    "tables.tablertprun": (READ, NOBODY),
    # the ledger and the players' records: staff read them (read-only admins), nobody adds
    "wallet.account": (READ, NOBODY), "wallet.ledgertransaction": (READ, NOBODY),
    "wallet.entry": (READ, NOBODY), "wallet.bet": (READ, NOBODY), "wallet.betresolution": (READ, NOBODY),
    "rounds.round": (READ, NOBODY), "rounds.shoe": (READ, NOBODY), "rounds.spot": (READ, NOBODY),
    "rounds.roundbet": (READ, NOBODY), "rounds.decision": (READ, NOBODY),
    "players.playerprofile": (READ, NOBODY), "players.playernote": (READ, NOBODY),
    "players.tablepresence": (READ, NOBODY),
    # responsible gambling: written by its services only (staff changes on the support pages, with a reason)
    "responsible.jurisdiction": (READ, NOBODY), "responsible.playersettings": (READ, NOBODY),
    "responsible.limitchange": (READ, NOBODY), "responsible.exclusion": (READ, NOBODY),
    "responsible.registerentry": (READ, NOBODY), "responsible.realitycheckanswer": (READ, NOBODY),
    "responsible.jurisdictionchange": (READ, NOBODY), "responsible.exclusionend": (READ, NOBODY),
    "chat.chatmessage": (READ, NOBODY),
    # sign-in lockouts and second-factor devices: a superuser's only (a lost device is reset by a command)
    "axes.accessattempt": (NOBODY, NOBODY), "axes.accesslog": (NOBODY, NOBODY),
    "axes.accessfailurelog": (NOBODY, NOBODY),
    "otp_totp.totpdevice": (NOBODY, NOBODY), "otp_static.staticdevice": (NOBODY, NOBODY),
}
ADMIN_INDEX = expect(player=LOGIN, other=LOGIN, support=OK, operator=OK)


# --- the API: (method, path as the schema names it) -> (query string, body, expectations) ---------------------
# Writes get an empty body (400 for whoever may call them) or target the settled round (409: nothing changes).
ROUND = "/api/rounds/{game_number}/"
TABLE_OPS = "/api/rounds/tables/{code}/"
API = {
    ("GET", "/api/rounds/"): ("", None, STAFF),
    ("POST", "/api/rounds/"): ("", {}, expect(operator=400)),
    ("GET", "/api/rounds/mine/"): ("", None, PLAYERS),
    ("GET", ROUND): ("", None, expect(player=OK, other=404, support=OK, operator=OK)),
    ("POST", ROUND + "close-betting/"): ("", None, expect(operator=409)),
    ("POST", ROUND + "cards/"): ("", {}, expect(operator=400)),
    ("POST", ROUND + "cut-card/"): ("", None, expect(operator=409)),
    ("POST", ROUND + "dealer-complete/"): ("", None, expect(operator=409)),
    ("POST", ROUND + "void/"): ("", {}, expect(support=400, operator=400)),
    ("POST", ROUND + "reverse/"): ("", {}, expect(support=400, operator=400)),
    ("POST", ROUND + "bets/"): ("", {}, expect(player=400, other=400)),
    # a player's moves need their presence at the round's table (rounds.presence): nobody sits there here
    ("POST", ROUND + "bets/repeat/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "bets/double/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "confirm/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "bets/undo/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "bets/confirm/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "seats/move/"): ("", {}, expect(player=400, other=400)),
    ("POST", ROUND + "seats/give-up/"): ("", {}, expect(player=400, other=400)),
    ("POST", ROUND + "leave/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "insurance/"): ("", {}, expect(player=400, other=400)),
    ("POST", ROUND + "decisions/"): ("", {}, expect(player=400, other=400)),
    ("GET", ROUND + "continuation/"): ("", None, PLAYERS),  # a player's own continuations: none here
    ("POST", ROUND + "continuation/reconnect/"): ("", None, expect(player=409, other=409)),
    ("POST", ROUND + "continuation/decisions/"): ("", {}, expect(player=400, other=400)),
    # a seated round has no decision statistics: 400 for whoever may read the round
    ("GET", ROUND + "stats/"): ("", None, expect(player=400, other=404, support=400, operator=400)),
    ("GET", ROUND + "record/"): ("", None, STAFF),
    ("GET", ROUND + "replay/"): ("", None, STAFF),
    ("GET", TABLE_OPS + "current/"): ("", None, SIGNED_IN),
    ("POST", TABLE_OPS + "pause/"): ("", {}, expect(operator=400)),
    ("POST", TABLE_OPS + "resume/"): ("", None, OPERATOR),  # an open table stays open
    ("POST", TABLE_OPS + "close/"): ("", {}, expect(operator=400)),
    ("POST", TABLE_OPS + "shoe/"): ("", {"burn_card": "Zz"}, expect(operator=400)),
    ("GET", "/api/tables/"): ("", None, SIGNED_IN),
    ("GET", "/api/tables/{code}/"): ("", None, SIGNED_IN),
    ("GET", "/api/wallet/balances/"): ("", None, PLAYERS),
    ("GET", "/api/wallet/history/"): ("?account={pat_account}", None, expect(player=OK, other=404)),
    ("POST", "/api/wallet/deposit/"): ("", {}, expect(player=400, other=400)),
    ("POST", "/api/wallet/withdraw/"): ("", {}, expect(player=400, other=400)),
    ("GET", "/api/wallet/players/{user_id}/balances/"): ("", None, STAFF),
    ("GET", "/api/wallet/players/{user_id}/history/"): ("", None, STAFF),
    ("GET", "/api/players/me/settings/"): ("", None, PLAYERS),
    ("PUT", "/api/players/me/settings/"): ("", {}, expect(player=400, other=400)),
    ("GET", "/api/players/tables/{code}/help/"): ("", None, SIGNED_IN),
    ("GET", "/api/responsible/me/"): ("", None, PLAYERS),
    ("POST", "/api/responsible/reality-check/"): ("", {}, expect(player=400, other=400)),
    # a table's chat: players at it (pat and quinn sit at none here: 409), the host (the studio) everywhere
    ("GET", "/api/chat/tables/{code}/messages/"): ("", None, expect(player=409, other=409)),
    ("POST", "/api/chat/tables/{code}/messages/"): ("", {}, expect(player=400, other=400)),
    ("GET", "/api/chat/tables/{code}/host-messages/"): ("", None, OPERATOR),
    ("POST", "/api/chat/tables/{code}/host-messages/"): ("", {}, expect(operator=400)),
    ("GET", "/api/players/me/tables/"): ("", None, PLAYERS),
    ("GET", "/api/players/tables/"): ("", None, PLAYERS),
    ("POST", "/api/players/me/tables/{code}/join/"): ("", None, PLAYERS),
    ("POST", "/api/players/me/tables/{code}/leave/"): ("", None, PLAYERS),  # not there: nothing changes
    ("POST", "/api/players/me/tables/{code}/switch/"): ("", {}, expect(player=400, other=400)),
    ("GET", "/api/auth/tokens/"): ("", None, PLAYERS),
    ("POST", "/api/auth/tokens/"): ("", {}, expect(player=400, other=400)),
    # pat's own key: pat and support revoke it; to anyone else it does not exist
    ("DELETE", "/api/auth/tokens/{token_id}/"): ("", None, expect(player=204, other=404, support=204,
                                                                  operator=404)),
}


def _patterns(resolver: URLResolver, prefix: str = "", namespace: str | None = None):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _patterns(pattern, prefix + str(pattern.pattern), pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.name, namespace


def api_operations() -> set[tuple[str, str]]:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {(method.upper(), path) for path, item in schema["paths"].items() for method in item}


def test_every_url_pattern_has_a_row():
    api_paths = {path for _method, path in API}
    missing = []
    for route, name, namespace in _patterns(get_resolver()):
        if namespace == "admin" or name == "admin_shortcut":
            # every admin URL answers to the admin site's own check: the admin rows below walk it (the shortcut is
            # the admin's own view behind admin_view, tested in tests/security/test_input.py)
            continue
        if route.startswith("api/") and name not in PAGES:
            path = "/" + route.replace("<str:", "{").replace("<int:", "{").replace(">", "}")
            if path not in api_paths:
                missing.append(route)
        elif name not in PAGES:
            missing.append(route)
    assert not missing, f"URL patterns with no row in tests/test_authorisation.py: {missing}"
    assert set(PAGES) <= {name for _route, name, _ns in _patterns(get_resolver())}, "a row names no URL"


def test_every_api_operation_has_a_row_and_every_row_an_operation():
    operations = api_operations()
    assert operations - set(API) == set(), "API operations with no row in tests/test_authorisation.py"
    assert set(API) - operations == set(), "rows for API operations the schema no longer has"


def test_every_admin_model_has_a_row():
    assert {model._meta.label_lower for model in admin.site._registry} == set(ADMIN_MODELS)


@pytest.fixture
def clients(client_for, personas):
    users = {"anonymous": None, "player": personas["player"], "other": personas["player2"],
             "support": personas["support"], "operator": personas["operator"]}
    return lambda persona: client_for(users[persona])


def outcome_problem(response, expected, *, api: bool, login_url: str) -> str | None:
    """None when the answer is the expected outcome, else what was wrong."""
    status = response.status_code
    location = response.get("Location", "")
    if expected == LOGIN:
        if api:
            body = response.json()
            ok = status in (401, 403) and body["code"] == "not_authenticated"
        else:
            ok = status == 302 and location.startswith(login_url + "?next=")
    elif expected == OK:
        ok = 200 <= status < 400 and not location.startswith(login_url + "?next=")
    else:
        ok = status == expected
        if ok and api and status >= 400:
            body = response.json()
            ok = set(body) <= {"code", "message", "fields"} and bool(body["code"]) and bool(body["message"])
            if status == 403:
                ok = ok and body["code"] == "permission_denied"
    return None if ok else f"expected {expected}, got {status} {location}".strip()


def _send(client, method: str, url: str, body, *, api: bool):
    if method == "GET":
        return client.get(url)
    if api:
        return client.generic(method, url, "" if body is None else json.dumps(body),
                              content_type="application/json")
    return client.post(url, {})


@pytest.mark.slow
@pytest.mark.parametrize("persona", PERSONAS)
def test_each_persona_reaches_exactly_the_pages_of_its_row(clients, world, persona):
    values = {**world.__dict__, "hot3": "hot3", "SE": "SE"}
    wrong = []
    for name, rows in PAGES.items():
        for method, arguments, query, expectations in rows:
            url = reverse(name, args=[values[a] for a in arguments]) + query.replace("past", world.past).replace(
                "pat_account", str(world.pat_account))
            response = _send(clients(persona), method, url, None, api=False)
            problem = outcome_problem(response, expectations[persona], api=False, login_url=reverse("login"))
            if problem:
                wrong.append(f"{method} {url}: {problem}")
    assert not wrong, f"{persona}:\n" + "\n".join(wrong)


@pytest.mark.slow
@pytest.mark.parametrize("persona", PERSONAS)
def test_each_persona_reaches_exactly_the_admin_pages_of_its_row(clients, world, persona):
    login = reverse("admin:login")
    wrong = []
    client = clients(persona)
    index = outcome_problem(client.get(reverse("admin:index")), ADMIN_INDEX[persona], api=False, login_url=login)
    if index:
        wrong.append(f"admin index: {index}")
    for label, (listing, adding) in ADMIN_MODELS.items():
        app, model = label.split(".")
        for view, wanted in (("changelist", listing[persona]), ("add", adding[persona])):
            response = client.get(reverse(f"admin:{app}_{model}_{view}"))
            problem = outcome_problem(response, wanted, api=False, login_url=login)
            if problem:
                wrong.append(f"admin {label} {view}: {problem}")
    assert not wrong, f"{persona}:\n" + "\n".join(wrong)


@pytest.mark.slow
@pytest.mark.parametrize("persona", PERSONAS)
def test_each_persona_reaches_exactly_the_api_operations_of_its_row(clients, world, persona):
    values = {"game_number": world.past, "code": world.table, "user_id": world.pat,
              "pat_account": world.pat_account, "token_id": world.pat_token}
    wrong = []
    for (method, path), (query, body, expectations) in API.items():
        url = path.format(**values) + query.format(**values)
        response = _send(clients(persona), method, url, body, api=True)
        problem = outcome_problem(response, expectations[persona], api=True, login_url=reverse("login"))
        if problem:
            wrong.append(f"{method} {url}: {problem}: {response.content[:200]!r}")
    assert not wrong, f"{persona}:\n" + "\n".join(wrong)


@pytest.mark.slow
@pytest.mark.parametrize("persona", ["player", "operator"])
def test_a_method_an_api_path_does_not_offer_is_405_or_refused_never_served(clients, world, persona):
    values = {"game_number": world.past, "code": world.table, "user_id": world.pat, "token_id": world.pat_token}
    offered: dict[str, set[str]] = {}
    for method, path in API:
        offered.setdefault(path, set()).add(method)
    for path, methods in offered.items():
        for method in {"GET", "POST", "PUT", "PATCH", "DELETE"} - methods:
            response = _send(clients(persona), method, path.format(**values), {}, api=True)
            assert response.status_code in (403, 405), (method, path, response.status_code)
            body = response.json()
            assert body["code"] == ("method_not_allowed" if response.status_code == 405 else "permission_denied")
