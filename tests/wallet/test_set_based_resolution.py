"""Resolution on PostgreSQL is set-based SQL (wallet.resolution_sql); SQLite runs the same rules as a loop in
Python (wallet.services.bets._settle). Both must move exactly the same money, refuse the same requests with the
same messages, and the staging table that big batches are streamed into by COPY must behave like the arrays
small batches travel in."""

from collections import Counter

import pytest
from django.db import transaction

from tests.factories import DepositFactory, PlayerFactory, new_key
from wallet import errors, resolution_sql, selectors, services
from wallet.models import AccountKind, BetResolution, Entry
from wallet.services import BetHoldSpec, BetResolutionSpec

pytestmark = pytest.mark.django_db

PATHS = ["loop", "arrays", "staged"]


@pytest.fixture(params=PATHS)
def path(request, monkeypatch):
    if request.param == "loop":
        monkeypatch.setattr("wallet.services.bets.set_based", lambda db: False)
    elif request.param == "staged":
        monkeypatch.setattr(resolution_sql, "STAGE_MIN_ROWS", 1)
    return request.param


def _table(operator, *, golden_cash_account: bool = True):
    """Bets of every kind a settlement meets, in two currencies, and the returns asked for them."""
    players = []
    bets_and_returns = []
    for currency in ("EUR", "SEK"):
        cash_player, chip_player = PlayerFactory(), PlayerFactory()
        DepositFactory(player=cash_player, amount=100_00, currency=currency)
        if golden_cash_account:
            DepositFactory(player=chip_player, amount=20_00, currency=currency)
        services.golden_chips_grant(player=chip_player, currency=currency, amount=40_00, staff=operator,
                                    reason="promo", idempotency_key=new_key())
        cash_bets = services.bet_hold(player=cash_player, holds=[BetHoldSpec(10_00, currency) for _ in range(5)],
                                      idempotency_key=new_key())
        chip_bets = services.bet_hold(player=chip_player, holds=[
            BetHoldSpec(10_00, currency, funding="golden_chips") for _ in range(4)], idempotency_key=new_key())
        # lost, part back, push, won, blackjack; chips spent, chips back, chips spent with a cash win, again
        returns = [(0, 0), (5_00, 0), (10_00, 0), (20_00, 0), (25_00, 0),
                   (0, 0), (0, 10_00), (10_00, 0), (15_00, 0)]
        bets_and_returns += list(zip([*cash_bets, *chip_bets], returns, strict=True))
        players += [cash_player, chip_player]
    return players, bets_and_returns


def _effects(players, txn):
    """What a resolution did, in terms that do not depend on ids: per player and house account, the amount and
    balance after of its entry; per bet (in order), its outcome and returns."""
    index = {player.pk: i for i, player in enumerate(players)}
    entries = Counter(
        (index.get(e.account.player_id), e.account.kind, e.account.currency, e.amount, e.balance_after)
        for e in Entry.objects.filter(transaction=txn).select_related("account")
    )
    resolutions = [(r.outcome, r.cash_return, r.chips_return)
                   for r in BetResolution.objects.filter(transaction=txn).order_by("bet_id")]
    return entries, resolutions


def _resolved_with(monkeypatch, mode, operator, *, void=False, golden_cash_account=True):
    with monkeypatch.context() as patch:
        if mode == "loop":
            patch.setattr("wallet.services.bets.set_based", lambda db: False)
        elif mode == "staged":
            patch.setattr(resolution_sql, "STAGE_MIN_ROWS", 1)
        players, bets_and_returns = _table(operator, golden_cash_account=golden_cash_account)
        if void:
            txn = services.bet_void(bet_ids=[bet.pk for bet, _ in bets_and_returns], idempotency_key=new_key(),
                                    reason="table closed")
        else:
            txn = services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, *ret) for bet, ret in bets_and_returns],
                                       idempotency_key=new_key())
    return _effects(players, txn)


@pytest.mark.parametrize("mode", ["arrays", "staged"])
@pytest.mark.parametrize("void", [False, True], ids=["resolve", "void"])
@pytest.mark.parametrize("golden_cash_account", [True, False], ids=["cash-account", "no-cash-account-yet"])
def test_set_based_resolution_moves_what_the_loop_moves(monkeypatch, operator, mode, void, golden_cash_account):
    expected = _resolved_with(monkeypatch, "loop", operator, void=void, golden_cash_account=golden_cash_account)
    got = _resolved_with(monkeypatch, mode, operator, void=void, golden_cash_account=golden_cash_account)
    assert got == expected
    assert len(expected[1]) == 18 and expected[0]  # the comparison is not of two empty sets


def test_a_golden_chip_win_opens_the_players_cash_account(path, monkeypatch, operator):
    player = PlayerFactory()
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    [bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", funding="golden_chips")],
                              idempotency_key=new_key())
    services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key=new_key())
    assert selectors.player_balance(player=player, currency="EUR") == 20_00


@pytest.mark.parametrize(("returns", "error", "message"), [
    (lambda cash, chip: [BetResolutionSpec(cash.pk, 0, 5_00)], errors.InvalidResolution,
     "was staked in cash: it has no chips to return"),
    (lambda cash, chip: [BetResolutionSpec(cash.pk, 0), BetResolutionSpec(chip.pk, 0, 4_00)],
     errors.InvalidResolution, "come back whole (push) or not at all, not 400"),
    (lambda cash, chip: [BetResolutionSpec(cash.pk, 0), BetResolutionSpec(cash.pk + chip.pk + 10**6, 0)],
     errors.UnknownBet, "No bet has the id "),
])
def test_refusals_are_the_same_on_every_path(path, operator, returns, error, message):
    player = PlayerFactory()
    DepositFactory(player=player, amount=10_00)
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    [cash_bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR")], idempotency_key=new_key())
    [chip_bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", funding="golden_chips")],
                                   idempotency_key=new_key())
    before = Entry.objects.count()
    with pytest.raises(error) as refused:
        services.bet_resolve(resolutions=returns(cash_bet, chip_bet), idempotency_key=new_key())
    assert message in str(refused.value)
    assert Entry.objects.count() == before


def test_two_staged_resolutions_in_one_transaction_each_stage_their_own_rows(path, player):
    DepositFactory(player=player, amount=100_00)
    bets = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR") for _ in range(4)],
                             idempotency_key=new_key())
    with transaction.atomic():
        first = services.bet_resolve(resolutions=[BetResolutionSpec(b.pk, 20_00) for b in bets[:2]],
                                     idempotency_key=new_key(), durable=False)
        second = services.bet_void(bet_ids=[b.pk for b in bets[2:]], idempotency_key=new_key(), reason="void",
                                   durable=False)
        with pytest.raises(errors.BetAlreadyResolved, match=f"bet {bets[0].pk}"):
            services.bet_resolve(resolutions=[BetResolutionSpec(bets[0].pk, 0)], idempotency_key=new_key(),
                                 durable=False)
    assert first.resolutions.count() == second.resolutions.count() == 2
    assert selectors.player_balance(player=player, currency="EUR") == 60_00 + 40_00 + 20_00
    assert not Entry.objects.filter(transaction=first, account__kind=AccountKind.PLAYER_GOLDEN_CHIPS).exists()


def test_the_accounts_to_lock_are_chosen_by_a_join_whatever_the_memory(operator):
    """The accounts were once chosen by two INs joined by OR: each stayed a subplan, run once per account when
    its hash did not fit in work_mem, which made a 100,000-player settlement quadratic (docs/benchmarks.md).
    One IN over a UNION is a join at any work_mem: no subplan in the statement's plan even at 64 kB."""
    from django.db import connection

    from wallet.sql import LedgerStatements

    if connection.vendor != "postgresql":
        pytest.skip("the set-based resolution runs on PostgreSQL")
    _players, bets_and_returns = _table(operator)
    rows = [(bet.pk, cash, chips) for bet, (cash, chips) in bets_and_returns]
    plans = []
    with transaction.atomic(), LedgerStatements() as db:
        db.cursor.execute("SET LOCAL work_mem = '64kB'")
        resolution = resolution_sql.SetBasedResolution(db, rows)
        execute = db.cursor.execute

        def explain(sql, params=None):
            execute("EXPLAIN " + sql, params)
            plans.append("\n".join(row[0] for row in db.cursor.fetchall()))

        db.cursor.execute = explain
        resolution.check_and_lock()
        db.cursor.execute = execute
        resolution.close()
    assert len(plans) == 1 and "LockRows" in plans[0]
    assert "SubPlan" not in plans[0], plans[0]
