"""The hostile-input walk: every URL pattern of the project, each path parameter and each query, form or JSON
field its view reads, filled with hostile values, as anonymous, player, support and operator, with GET and POST
(and the API's PUT and DELETE). No answer may be a 5xx; a 4xx must say something; nothing may be written.

FIELDS names what each URL's view reads. A URL without an entry fails the walk: a new page must say what it
reads, so that it is walked too. The admin's pages share one entry (the changelist and change-form parameters).
"""

from __future__ import annotations

import logging
import re
import time
from urllib.parse import quote

import pytest
from django.db import connection
from django.test import Client
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse

from chat.models import ChatMessage
from players.api import SettingsSerializer
from players.forms import NoteForm, SettingsForm, TipForm
from players.tables_api import TableSwitchSerializer
from responsible import forms as rg_forms
from rounds.api import serializers as rounds_api
from rounds.models import CardRecord, Decision, Round, RoundBet, RoundEvent, Spot
from tables.forms import RtpRunForm, TableSettingsForm
from tables.models import Table, TableChange
from tests.backoffice.scenarios import settle_classic
from wallet.api import MovementRequestSerializer
from wallet.forms import CashierConfirmForm, CashierForm, GoldenChipGrantConfirmForm, GoldenChipGrantForm
from wallet.models import Bet, Entry, LedgerTransaction

pytestmark = pytest.mark.django_db

# What a person may send where a number, a date, a code or a text is expected.
HOSTILE_TEXT = [
    "\x00", "a\x01b\x1b[0m", "²", "\u0661\u0662", "-1", "9" * 30, "9999-12-31", "0001-01-01", "x" * 10_000, "",
]
# JSON bodies: the same, and every wrong type.
HOSTILE_JSON = [None, True, [], {}, -1, 10**30, 1.5, "\u0000", "²", "x" * 10_000]
# Path parameters: a real object (so the fields reach the view's code) or a hostile one.
HOSTILE_PATH = ["\x00", "²", "9" * 30, "x" * 2_000]


def _form(form_class) -> list[str]:
    return list(form_class.base_fields)


def _serializer(serializer_class) -> list[str]:
    return [name for name, field in serializer_class().fields.items() if not field.read_only]


ADMIN_FIELDS = ["q", "o", "p", "e", "all", "_changelist_filters", "_popup", "_to_field", "action", "_selected_action",
                "index", "select_across"]

# url name -> the query, form and JSON fields its view reads.
FIELDS: dict[str, list[str]] = {
    # accounts
    "home": [], "login": ["username", "password", "next"], "logout": ["next"], "worker_health": [],
    "worker_health_probe": [], "worker_health_probe_status": [], "healthz": [],
    # the API schema and docs, the admin's shortcut
    "api-schema": ["format", "lang"], "api-docs": ["script"], "admin_shortcut": [],
    # signing in: the second factor, passwords, API keys
    "second_factor_verify": ["code", "next"], "second_factor_enrol": ["code", "next"],
    "password_change": ["old_password", "new_password1", "new_password2"],
    "player_password_reset": [], "player_api_tokens_revoke": [],
    "api_tokens": ["name"], "api_token": [],
    # staff: a round retried after staff attention, the staff-activity record
    "backoffice_round_retry": ["reason"],
    "staff_activity": ["who", "action", "object", "since", "until", "before"],
    "staff_activity_csv": ["who", "action", "object", "since", "until"],
    # back office
    "backoffice_search": ["q"], "backoffice_round": ["spots_after", "events_after"],
    "backoffice_round_void": ["reason", "step", "expected_state", "review"], "backoffice_round_void_progress": [],
    "backoffice_player": ["games_before", "from", "to"], "backoffice_player_games_csv": ["from", "to"], "backoffice_player_note": _form(NoteForm),
    "backoffice_player_chat": ["action", "reason"], "backoffice_player_golden_chips": sorted(
        {"step", "review", *_form(GoldenChipGrantForm), *_form(GoldenChipGrantConfirmForm)}),
    "backoffice_transaction": [], "backoffice_dashboard": ["period"],
    "backoffice_rtp": ["from", "to", "table", "bet", "currency"], "backoffice_rtp_csv": ["from", "to", "table"],
    "backoffice_ggr": ["from", "to", "table", "currency"], "backoffice_ggr_csv": ["from", "to", "table", "currency"],
    "player_games": ["before", "date", "from", "to", "lang"],
    "player_games_csv": ["from", "to"], "player_game": ["lang"],
    # the daily reconciliation
    "backoffice_reconciliation": ["from", "to", "currency"], "backoffice_reconciliation_csv": ["from", "to", "currency"],
    # players
    "player_settings": [*_form(SettingsForm), "lang"], "player_tables": ["lang"], "player_table": ["lang"],
    "player_table_join": ["lang"], "player_table_leave": ["lang"], "player_table_tip": [*_form(TipForm), "lang"], "player_table_help": ["lang"],
    # the chat log and disabling a player's chat from a message
    "chat_log": ["table", "player", "game", "window", "before"], "chat_message_disable": ["reason", "back"],
    "api_chat_table": ["after", "body"], "api_chat_host": ["after", "body"],
    "player_table_chat": ["body", "part", "lang"],
    # rounds pages
    "round_lookup": ["game_number"], "round_detail": [], "round_replay": [],
    # tables
    "tables_list": [], "table_new": _form(TableSettingsForm), "table_detail": [],
    "table_edit": _form(TableSettingsForm), "table_edit_preview": _form(TableSettingsForm),
    "table_limits": ["version", "main__EUR__min", "main__EUR__max", "main__EUR__chips", "reason", "step", "review"],
    "table_paytable": ["version", "pair", "suited", "mixed", "reason", "step", "review"],
    "table_state": ["state", "version", "reason", "step", "review"],
    "table_history": ["before"], "table_strategy": [], "table_rtp_start": _form(RtpRunForm), "table_rtp_run": [],
    # wallet pages
    "wallet_home": ["account", "before", "from", "to", "type", "lang"],
    "wallet_history_csv": ["account", "from", "to", "type"],
    "wallet_cashier": sorted({"step", "review", "lang", *_form(CashierForm), *_form(CashierConfirmForm)}),
    "wallet_players": ["q"], "wallet_player": ["account", "before", "from", "to", "type"],
    "wallet_player_history_csv": ["account", "from", "to", "type"],
    # the statement
    "player_statement": ["from", "to", "lang"], "player_statement_csv": ["from", "to", "lang"],
    "support_player_statement": ["from", "to", "lang"], "support_player_statement_csv": ["from", "to", "lang"],
    # responsible gambling: the player's page posts one form at a time, named by "action"
    "responsible_page": sorted({"lang", "action", *_form(rg_forms.MoneyLimitForm), *_form(rg_forms.SessionLimitForm),
                                *_form(rg_forms.RealityCheckForm), *_form(rg_forms.TimeOutForm),
                                *_form(rg_forms.SelfExclusionForm)}),
    "responsible_reality_answer": ["choice"],
    "responsible_support_player": ["code", "reason"],
    "responsible_register": sorted({"identity", *_form(rg_forms.RegisterAddForm)}),
    "responsible_register_remove": ["reason"],
    "responsible_support_exclusion_end": ["action", "reason", "step"], "responsible_jurisdictions": [],
    "responsible_jurisdiction": sorted({"step", *_form(rg_forms.JurisdictionRulesForm)}),
    "api_responsible_state": [], "api_responsible_reality_check": ["choice"],
    # the API
    "api_player_settings": _serializer(SettingsSerializer), "api_table_help": ["lang"],
    "api_player_tables": [], "api_lobby": [], "api_player_table_join": [], "api_player_table_leave": [],
    "api_player_table_switch": _serializer(TableSwitchSerializer),
    "api_rounds": ["state", "table", "cursor", "page_size"], "api_rounds_mine": ["cursor", "page_size"],
    "api_rounds_table_current": [], "api_rounds_table_pause": ["reason"], "api_rounds_table_resume": [],
    "api_rounds_table_close": ["reason"], "api_rounds_table_shoe": _serializer(rounds_api.ShoeSerializer),
    "api_round": [], "api_round_close_betting": [], "api_round_cards": _serializer(rounds_api.CardSerializer),
    "api_round_cut_card": [],
    "api_round_dealer_complete": [], "api_round_void": ["reason"], "api_round_reverse": ["reason"],
    "api_round_bets": _serializer(rounds_api.BetPlaceSerializer), "api_round_bets_repeat": [],
    "api_round_bets_double": [], "api_round_confirm": [], "api_round_leave": [],
    "api_round_bets_undo": _serializer(rounds_api.UndoSerializer), "api_round_bets_confirm": [],
    "api_round_seat_move": _serializer(rounds_api.SeatMoveSerializer),
    "api_round_seat_give_up": _serializer(rounds_api.SeatSerializer),
    "api_round_insurance": _serializer(rounds_api.InsuranceSerializer),
    "api_round_decisions": _serializer(rounds_api.DecisionSerializer), "api_round_stats": [],
    "api_round_continuation": [], "api_round_continuation_reconnect": [],
    "api_round_continuation_decisions": _serializer(rounds_api.DecisionSerializer),
    "api_round_record": [], "api_round_replay": [],
    "api_tables_list": ["state"], "api_table_detail": [],
    "api_wallet_balances": [], "api_wallet_history": ["account", "before", "limit"],
    "api_wallet_deposit": _serializer(MovementRequestSerializer),
    "api_wallet_withdraw": _serializer(MovementRequestSerializer),
    "api_wallet_player_balances": [], "api_wallet_player_history": ["account", "before", "limit"],
}
# Requests that are a legitimate write whatever their fields say (they read none that could make them bad).
WRITES_ANYWAY = {"logout", "worker_health_probe", "player_table_join", "player_table_leave",
                 "api_player_table_join", "api_player_table_leave",
                 # the studio's pause, resume and close take any text as their reason (stored as text, shown
                 # escaped), and a player may always leave a round (an audit event)
                 "api_rounds_table_pause", "api_rounds_table_resume", "api_rounds_table_close", "api_round_leave",
                 # the host writes any one line of text to its table's chat (stored as text, shown escaped)
                 "api_chat_host"}


def url_patterns(resolver=None, prefix="", namespace=""):
    """(name, route, parameter names) of every pattern, depth first."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}:{entry.namespace}".strip(":") if entry.namespace else namespace
            yield from url_patterns(entry, prefix + str(entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            regex = entry.pattern.regex
            name = f"{namespace}:{entry.name}".strip(":") if entry.name else None
            yield name, prefix + str(entry.pattern), list(regex.groupindex)


def is_admin(name: str | None, route: str) -> bool:
    return route.startswith("admin/") and name != "admin_shortcut"


def fields_for(name: str | None, route: str) -> list[str] | None:
    if is_admin(name, route):
        return ADMIN_FIELDS
    return FIELDS.get(name or "")


def test_every_url_has_an_entry_in_the_walk():
    missing = [f"{name or '(unnamed)'} {route}" for name, route, _ in url_patterns()
               if fields_for(name, route) is None]
    assert missing == [], "URLs the hostile walk does not know what they read: add them to FIELDS"


WATCHED = [LedgerTransaction, Entry, Bet, Round, Spot, RoundBet, CardRecord, Decision, RoundEvent, Table, TableChange,
           ChatMessage]


def written_counts() -> tuple:
    """The row counts of the ledger, the round tables and the table configuration, in one statement."""
    counts = ", ".join(f"(SELECT count(*) FROM {model._meta.db_table})" for model in WATCHED)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counts}, (SELECT coalesce(sum(config_version), 0) FROM tables_table)")
        return cursor.fetchone()


@pytest.fixture
def world(play, classic_table, funded, personas):
    """A settled round and one in betting at LB01, a funded player with a ledger history."""
    alice, bob = funded(username="alice_walk", cash=500_00), funded(username="bob_walk", cash=500_00)
    settle_classic(play, classic_table, alice, bob)
    open_round = play(classic_table).round
    return {
        "game_number": [open_round.game_number],
        "code": [classic_table.code], "jurisdiction": ["SE"], "user_id": [str(alice.pk)], "transaction_id":
            [str(LedgerTransaction.objects.order_by("id").values_list("id", flat=True).first())],
        "side_bet": ["any_pair"], "run_id": ["1"], "probe_id": ["1"], "content_type_id": ["1"],
        "object_id": ["1"], "app_label": ["wallet"], "url": ["x"],
    }


def paths(name, route, params, world):
    """A real path for the pattern (when its parameters can be filled) and hostile ones."""
    real = {p: world.get(p, ["1"])[0] for p in params}
    found = []
    for kwargs in [real, *({p: bad for p in params} for bad in (HOSTILE_PATH if params else []))]:
        if name is None:  # the admin's unnamed redirects: fill the route's <converter:name> by hand
            found.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m, values=kwargs: quote(values[m[1]]), route))
            continue
        try:
            found.append(reverse(name, kwargs=kwargs))
        except NoReverseMatch:  # a hostile value the pattern cannot even hold (the int converter): nothing to send
            continue
    return found


def hostile_fields(fields: list[str], corpus: list, turn: int) -> dict:
    """Every field gets a hostile value; turn by turn each field meets every value of the corpus."""
    return {field: corpus[(turn + i) % len(corpus)] for i, field in enumerate(fields)}


class Walk:
    def __init__(self):
        self.requests = 0
        self.failures: list[str] = []

    def send(self, client, method: str, path: str, data: dict, *, json: bool, who: str):
        if method == "get":
            response = client.get(path, data)
        elif json:
            response = getattr(client, method)(path, data, content_type="application/json",
                                               HTTP_IDEMPOTENCY_KEY=f"walk-{self.requests}")
        else:
            response = client.post(path, data)
        self.requests += 1
        shown = {k: str(v)[:12] for k, v in list(data.items())[:3]} if isinstance(data, dict) else repr(data)[:12]
        where = f"{who} {method.upper()} {quote(path[:70])} {shown}"
        status = response.status_code
        if status >= 500:
            self.failures.append(f"{where}: {status}")
        elif 400 <= status < 500 and status != 405 and not getattr(response, "streaming", False) \
                and not response.content.strip():
            self.failures.append(f"{where}: {status} with an empty body")
        return response


@pytest.fixture
def quiet_request_log():
    """Thousands of refusals are each logged as a warning; the walk reads the answers, not the log."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.mark.slow
def test_hostile_values_never_cause_a_5xx_nor_a_write(world, client_for, personas, quiet_request_log):
    people = {"anonymous": None, "player": personas["player"], "support": personas["support"],
              "operator": personas["operator"]}
    walk, started = Walk(), time.monotonic()
    for name, route, params in url_patterns():
        fields = fields_for(name, route)
        admin, api = is_admin(name, route), route.startswith("api/")
        real, *hostile_paths = paths(name, route, params, world) or [None]
        if real is None:
            continue
        for who, user in people.items():
            if admin and who != "operator":
                continue
            client = Client() if user is None else client_for(user)
            client.raise_request_exception = False

            def send(method, path, data, *, json=False, who=who, client=client):
                return walk.send(client, method, path, data, json=json, who=who)

            # The rows are counted around each person's requests to one URL (per request, the walk is twice as
            # slow); a write names the URL and the person, and a run of that block alone finds the request.
            before = written_counts()

            # Hostile paths: the parameter alone, read or posted (by someone who may open the page, and a player).
            for path in hostile_paths if who in ("player", "operator") else []:
                send("get", path, {})
                send("post", path, {})
            # Someone turned away (signed out, or without the permission) is turned away before any field is
            # read: one hostile read and one hostile post show it.
            opening = send("get", real, {})
            turned_away = opening.status_code in (302, 403) or name == "logout"
            corpus = HOSTILE_TEXT[:3] if admin else HOSTILE_TEXT
            turns = 1 if turned_away or not fields else len(corpus)
            posts = True
            for turn in range(turns):
                send("get", real, hostile_fields(fields, corpus, turn))
                if posts:  # a page that only reads answers 405 to the first post: no need for more
                    posts = send("post", real, hostile_fields(fields, [v for v in corpus if v], turn)).status_code != 405
            if api and not turned_away:
                for method in ("post", "put", "delete"):
                    for turn in range(len(HOSTILE_JSON) if fields else 1):
                        if send(method, real, hostile_fields(fields, HOSTILE_JSON, turn) if fields else
                                HOSTILE_JSON[turn], json=True).status_code == 405:
                            break
            after = written_counts()
            if after != before and name not in WRITES_ANYWAY:
                walk.failures.append(f"{who} at {route}: wrote {before} -> {after}")
    elapsed = time.monotonic() - started
    print(f"hostile walk: {walk.requests} requests in {elapsed:.1f} s")
    assert walk.failures == [], f"{len(walk.failures)} problems in {walk.requests} requests"
