"""Fixtures for round tests: tables of each profile, funded players, and a driver that plays a round through
the services the way the studio and the players do. Every test ends with a clean ledger audit."""

import threading

import pytest
from django.db import connection, transaction

from rounds import services
from rounds.models import Round
from tests.rounds.factories import FundedPlayerFactory, RoundTableFactory, new_key
from wallet import selectors as wallet_selectors
from wallet.audit import ledger_audit_run
from wallet.models import AccountKind


def pytest_configure(config):
    config.addinivalue_line("markers", "no_audit: the test breaks the ledger on purpose; skip the audit")


@pytest.fixture(autouse=True)
def ledger_is_sound_after_each_test(request):
    # Set the database up from here, so that it is still there when this fixture checks the ledger.
    database = next((name for name in ("transactional_db", "db") if name in request.fixturenames), None)
    if database is None or "no_audit" in request.keywords:
        yield
        return
    request.getfixturevalue(database)
    yield
    assert [str(d) for d in ledger_audit_run()] == []


@pytest.fixture
def funded(roles):
    """funded(cash=..., golden_chips=...) -> a new player with that much in the wallet (minor units)."""
    return FundedPlayerFactory


@pytest.fixture
def free_bet_table(db):
    return RoundTableFactory(profile="free_bet", code="FB01")


@pytest.fixture
def seated_table(db):
    return RoundTableFactory(profile="free_bet_seated", code="FS01")


@pytest.fixture
def classic_table(db):
    return RoundTableFactory(profile="classic", code="LB01")


@pytest.fixture
def classic_us_table(db):
    return RoundTableFactory(profile="classic", code="LB02", dealing="us_peek_before")


def cash(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency)


def chips(player, currency="EUR") -> int:
    return wallet_selectors.player_balance(player=player, currency=currency, kind=AccountKind.PLAYER_GOLDEN_CHIPS)


class RoundDriver:
    """Plays one round through the services: the studio opens, closes, deals and completes; players act."""

    def __init__(self, table, studio, *, now=None):
        self.table = table
        self.studio = studio
        self.round = services.round_open(table=table, actor=studio, now=now)

    @property
    def id(self) -> int:
        return self.round.pk

    def refresh(self) -> Round:
        self.round.refresh_from_db()
        return self.round

    def bet(self, player, bets: dict, *, seat=None, behind=False, currency="EUR", key=None):
        return services.bets_place(round_id=self.id, player=player, seat=seat, behind=behind, currency=currency,
                                   bets=bets, idempotency_key=key or new_key())

    def close(self):
        return services.round_betting_close(round_id=self.id, actor=self.studio)

    def cards(self, *cards):
        return [services.card_record(round_id=self.id, card=card, actor=self.studio) for card in cards]

    def decide(self, player, action, *, seat=None, key=None):
        return services.decision_make(round_id=self.id, player=player, action=action, seat=seat,
                                      idempotency_key=key or new_key())

    def insurance(self, player, take: bool):
        return services.insurance_decide(round_id=self.id, player=player, take=take, idempotency_key=new_key())

    def advance(self, now=None):
        return services.round_advance(round_id=self.id, now=now)

    def complete(self):
        return services.dealer_complete(round_id=self.id, actor=self.studio)

    def settle(self) -> Round:
        services.round_settle(round_id=self.id)
        return self.refresh()


@pytest.fixture
def play(operator):
    """play(table) -> a RoundDriver with betting open, run by the operator persona."""

    def start(table, **kwargs):
        return RoundDriver(table, operator, **kwargs)

    return start


class RowLock:
    """Holds FOR UPDATE locks from a connection of its own until released."""

    def __init__(self, sql, params):
        self.sql, self.params = sql, params
        self.held, self.release = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(self.sql, self.params)
                self.held.set()
                self.release.wait(30)
        finally:
            connection.close()

    def __enter__(self):
        self.thread.start()
        assert self.held.wait(10)
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.thread.join(10)
