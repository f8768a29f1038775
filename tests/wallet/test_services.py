"""The money-moving services: what they move, what they refuse, and that a repeat moves nothing."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.factories import BetFactory, DepositFactory, PlayerFactory, new_key
from wallet import errors, selectors, services
from wallet.audit import ledger_audit_run
from wallet.models import Account, AccountKind, Bet, BetResolution, Entry, LedgerTransaction
from wallet.services import BetHoldSpec, BetResolutionSpec

pytestmark = pytest.mark.django_db


def ledger_counts() -> tuple[int, ...]:
    return (LedgerTransaction.objects.count(), Entry.objects.count(), Bet.objects.count(),
            BetResolution.objects.count(), Account.objects.count())


def cash(player, currency="EUR") -> int:
    return selectors.player_balance(player=player, currency=currency)


def chips(player, currency="EUR") -> int:
    return selectors.player_balance(player=player, currency=currency, kind=AccountKind.PLAYER_GOLDEN_CHIPS)


def house(kind, currency="EUR") -> int:
    return selectors.house_balances(currency=currency).get((kind, currency), 0)


# ------------------------------------------------------------------------------------------------- transfers


def test_deposit_credits_the_player_from_the_cashier_with_two_entries(player):
    txn = services.deposit(player=player, currency="EUR", amount=250_00, idempotency_key="dep-1", actor=player)
    assert cash(player) == 250_00
    assert house(AccountKind.HOUSE_CASHIER) == -250_00
    entries = {e.account.kind: (e.amount, e.balance_after) for e in txn.entries.select_related("account")}
    assert entries == {AccountKind.PLAYER_CASH: (250_00, 250_00), AccountKind.HOUSE_CASHIER: (-250_00, None)}
    assert txn.kind == "deposit" and txn.actor == player and not txn.replayed


def test_withdraw_tip_grant_and_adjust_move_between_the_right_accounts(player, operator):
    DepositFactory(player=player, amount=500_00)
    services.withdraw(player=player, currency="EUR", amount=100_00, idempotency_key=new_key())
    services.tip(player=player, currency="EUR", amount=5_00, table_ref="T-7", idempotency_key=new_key())
    services.golden_chips_grant(player=player, currency="EUR", amount=20_00, staff=operator, reason="welcome",
                                idempotency_key=new_key())
    services.adjust(player=player, currency="EUR", amount=-15_00, staff=operator, reason="double credit",
                    idempotency_key=new_key())
    assert cash(player) == 500_00 - 100_00 - 5_00 - 15_00
    assert chips(player) == 20_00
    assert house(AccountKind.HOUSE_CASHIER) == -400_00
    assert house(AccountKind.HOUSE_TIPS) == 5_00
    assert house(AccountKind.HOUSE_PROMOTIONS) == -20_00
    assert house(AccountKind.HOUSE_BANKROLL) == 15_00


def test_repeating_a_key_returns_the_first_transaction_and_moves_nothing(player):
    first = services.deposit(player=player, currency="EUR", amount=40_00, idempotency_key="same")
    before = ledger_counts()
    again = services.deposit(player=player, currency="EUR", amount=40_00, idempotency_key="same")
    assert again.pk == first.pk and again.replayed
    assert ledger_counts() == before and cash(player) == 40_00


def test_the_same_key_with_other_content_is_a_conflict_that_moves_nothing(player):
    services.deposit(player=player, currency="EUR", amount=40_00, idempotency_key="same")
    before = ledger_counts()
    with pytest.raises(errors.IdempotencyConflict) as refused:
        services.deposit(player=player, currency="EUR", amount=41_00, idempotency_key="same")
    assert refused.value.code == "idempotency_conflict"
    with pytest.raises(errors.IdempotencyConflict):
        services.withdraw(player=player, currency="EUR", amount=40_00, idempotency_key="same")
    assert ledger_counts() == before


def test_a_replay_still_answers_after_the_balance_has_changed(player):
    DepositFactory(player=player, amount=30_00)
    services.withdraw(player=player, currency="EUR", amount=30_00, idempotency_key="out")
    # A retry of the first withdrawal must not be refused for funds: it already happened.
    assert services.withdraw(player=player, currency="EUR", amount=30_00, idempotency_key="out").replayed
    assert cash(player) == 0


BAD_INPUT = [
    ("zero amount", dict(amount=0), "invalid_amount"),
    ("negative amount", dict(amount=-5_00), "invalid_amount"),
    ("float amount", dict(amount=12.5), "invalid_amount"),
    ("bool amount", dict(amount=True), "invalid_amount"),
    ("decimal text amount", dict(amount="12.50"), "invalid_amount"),
    ("unknown currency", dict(currency="XXX"), "unknown_currency"),
    ("lower-case currency", dict(currency="eur"), "unknown_currency"),
    ("below the cashier minimum", dict(amount=99), "limit_exceeded"),
    ("above the cashier maximum", dict(amount=1_000_001), "limit_exceeded"),
    ("empty key", dict(idempotency_key=""), "invalid_idempotency_key"),
    ("key too long", dict(idempotency_key="k" * 201), "invalid_idempotency_key"),
]


@pytest.mark.parametrize(("case", "change", "code"), BAD_INPUT, ids=[case for case, _, _ in BAD_INPUT])
@pytest.mark.parametrize("service", [services.deposit, services.withdraw])
def test_bad_cashier_input_gets_its_own_code_and_writes_nothing(player, service, case, change, code):
    DepositFactory(player=player, amount=50_00)
    before = ledger_counts()
    call = dict(player=player, currency="EUR", amount=10_00, idempotency_key=new_key()) | change
    with pytest.raises(errors.WalletError) as refused:
        service(**call)
    assert refused.value.code == code
    assert ledger_counts() == before and cash(player) == 50_00


def test_withdrawing_more_than_the_balance_is_insufficient_funds(player):
    DepositFactory(player=player, amount=50_00)
    before = ledger_counts()
    with pytest.raises(errors.InsufficientFunds, match="50.00 EUR"):
        services.withdraw(player=player, currency="EUR", amount=50_01, idempotency_key=new_key())
    assert ledger_counts() == before


def test_withdrawing_from_an_account_never_opened_is_an_unknown_account(player):
    with pytest.raises(errors.UnknownAccount):
        services.withdraw(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())
    assert not Account.objects.filter(player=player).exists()
    assert not LedgerTransaction.objects.exists()


def test_moving_a_currency_the_player_does_not_hold_is_a_currency_mismatch(player):
    DepositFactory(player=player, amount=50_00, currency="EUR")
    before = ledger_counts()
    with pytest.raises(errors.CurrencyMismatch, match="EUR, not USD"):
        services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "USD")], idempotency_key=new_key())
    with pytest.raises(errors.CurrencyMismatch):
        services.tip(player=player, currency="USD", amount=1_00, table_ref="T-1", idempotency_key=new_key())
    assert ledger_counts() == before


def test_currencies_are_kept_apart_and_jpy_has_no_decimals(player):
    DepositFactory(player=player, amount=50_00, currency="EUR")
    DepositFactory(player=player, amount=5000, currency="JPY")
    assert cash(player, "EUR") == 50_00 and cash(player, "JPY") == 5000
    assert [a.currency for a in selectors.player_accounts(player=player)] == ["EUR", "JPY"]


def test_staff_actions_need_a_reason_and_staff_cannot_adjust_themselves(player, operator):
    with pytest.raises(errors.InvalidRequest, match="reason"):
        services.adjust(player=player, currency="EUR", amount=5_00, staff=operator, reason=" ",
                        idempotency_key=new_key())
    with pytest.raises(errors.InvalidRequest, match="own wallet"):
        services.adjust(player=operator, currency="EUR", amount=5_00, staff=operator, reason="why not",
                        idempotency_key=new_key())
    with pytest.raises(errors.InvalidRequest, match="reason"):
        services.golden_chips_grant(player=player, currency="EUR", amount=5_00, staff=operator, reason="",
                                    idempotency_key=new_key())
    assert ledger_counts()[0] == 0


def test_tip_needs_a_table_reference(player):
    DepositFactory(player=player)
    with pytest.raises(errors.InvalidRequest, match="table reference"):
        services.tip(player=player, currency="EUR", amount=1_00, table_ref="", idempotency_key=new_key())


# ------------------------------------------------------------------------------------------------------ bets


def test_bet_hold_moves_all_stakes_in_one_transaction(player):
    DepositFactory(player=player, amount=100_00)
    meta = {"seat": 3, "note": 'quotes " and \\ backslashes, {braces}, ünïcode'}
    bets = services.bet_hold(
        player=player, idempotency_key="hold-1",
        holds=[BetHoldSpec(20_00, "EUR", kind="main", reference="G-1", meta=meta),
               BetHoldSpec(5_00, "EUR", kind="any_pair", reference="G-1")],
    )
    assert [(b.kind, b.amount, b.currency, b.funding) for b in bets] == [
        ("main", 20_00, "EUR", "cash"), ("any_pair", 5_00, "EUR", "cash")]
    stored = Bet.objects.select_related("hold_transaction").get(pk=bets[0].pk)
    assert stored.meta == meta and stored.hold_transaction.reference == "G-1" and stored.kind == "main"
    assert cash(player) == 75_00 and house(AccountKind.HOUSE_BETS_IN_PLAY) == 25_00
    assert LedgerTransaction.objects.filter(kind="bet").count() == 1
    replay = services.bet_hold(
        player=player, idempotency_key="hold-1",
        holds=[BetHoldSpec(20_00, "EUR", kind="main", reference="G-1", meta=meta),
               BetHoldSpec(5_00, "EUR", kind="any_pair", reference="G-1")],
    )
    assert [b.pk for b in replay] == [b.pk for b in bets] and cash(player) == 75_00


def test_bet_hold_refuses_the_whole_call_when_the_total_is_short(player):
    DepositFactory(player=player, amount=20_00)
    before = ledger_counts()
    with pytest.raises(errors.InsufficientFunds):
        services.bet_hold(player=player, idempotency_key=new_key(),
                          holds=[BetHoldSpec(15_00, "EUR"), BetHoldSpec(5_01, "EUR", kind="any_pair")])
    assert ledger_counts() == before and cash(player) == 20_00


@pytest.mark.parametrize(
    ("spec", "code"),
    [
        (BetHoldSpec(0, "EUR"), "invalid_amount"),
        (BetHoldSpec(-1, "EUR"), "invalid_amount"),
        (BetHoldSpec(10_00, "ZZZ"), "unknown_currency"),
        (BetHoldSpec(10_00, "EUR", funding="credit"), "invalid_request"),
        (BetHoldSpec(10_00, "EUR", kind=""), "invalid_request"),
        (BetHoldSpec(10_00, "EUR", meta={"when": object()}), "invalid_request"),
    ],
)
def test_bad_bet_holds_are_refused_before_anything_is_written(player, spec, code):
    DepositFactory(player=player)
    before = ledger_counts()
    with pytest.raises(errors.WalletError) as refused:
        services.bet_hold(player=player, holds=[BetHoldSpec(1_00, "EUR"), spec], idempotency_key=new_key())
    assert refused.value.code == code and ledger_counts() == before


def test_golden_chip_bets_are_held_apart_from_cash(player, operator):
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    with pytest.raises(errors.InsufficientFunds):
        services.bet_hold(player=player, holds=[BetHoldSpec(11_00, "EUR", funding="golden_chips")],
                          idempotency_key=new_key())
    services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", funding="golden_chips")],
                      idempotency_key=new_key())
    assert chips(player) == 0 and house(AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY) == 10_00
    assert house(AccountKind.HOUSE_BETS_IN_PLAY) == 0


@pytest.mark.parametrize(
    ("cash_return", "outcome", "player_after", "bankroll"),
    [(0, "lost", 90_00, 10_00), (10_00, "pushed", 100_00, 0), (25_00, "won", 115_00, -15_00),
     (5_00, "partial", 95_00, 5_00)],
)
def test_cash_bet_resolution_pays_from_and_to_the_bankroll(player, cash_return, outcome, player_after, bankroll):
    bet = BetFactory(player=player, amount=10_00)  # funded with 100.00
    txn = services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, cash_return)], idempotency_key=new_key(),
                               reference=bet.reference)
    assert txn.kind == "payout" and txn.reference == bet.reference
    assert BetResolution.objects.get(bet=bet).outcome == outcome
    assert cash(player) == player_after
    assert house(AccountKind.HOUSE_BANKROLL) == bankroll and house(AccountKind.HOUSE_BETS_IN_PLAY) == 0


@pytest.mark.parametrize(
    ("cash_return", "chips_return", "outcome", "cash_after", "chips_after", "promotions"),
    [(0, 0, "lost", 0, 0, 0), (0, 10_00, "pushed", 0, 10_00, -10_00), (15_00, 0, "won", 15_00, 0, 0)],
)
def test_golden_chip_bets_spend_or_return_chips_and_win_cash(
    player, operator, cash_return, chips_return, outcome, cash_after, chips_after, promotions
):
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    [bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", funding="golden_chips")],
                              idempotency_key=new_key())
    services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, cash_return, chips_return)],
                         idempotency_key=new_key())
    assert BetResolution.objects.get(bet=bet).outcome == outcome
    assert (cash(player), chips(player)) == (cash_after, chips_after)
    # Spent chips go back to promotions, so promotions always owes exactly the chips still outstanding.
    assert house(AccountKind.HOUSE_PROMOTIONS) == promotions
    assert house(AccountKind.HOUSE_GOLDEN_CHIPS_IN_PLAY) == 0


@pytest.mark.parametrize(
    ("funding", "spec_of", "message"),
    [
        ("cash", lambda bet: BetResolutionSpec(bet.pk, 0, 10_00), "no chips"),
        ("golden_chips", lambda bet: BetResolutionSpec(bet.pk, 0, 5_00), "whole"),
        ("cash", lambda bet: BetResolutionSpec(bet.pk, -1), "zero or more"),
        ("cash", lambda bet: BetResolutionSpec(bet.pk + 1000, 0), "No bet"),
    ],
)
def test_impossible_resolutions_are_refused(player, operator, funding, spec_of, message):
    DepositFactory(player=player)
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    [bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", funding=funding)],
                              idempotency_key=new_key())
    before = ledger_counts()
    with pytest.raises(errors.WalletError, match=message):
        services.bet_resolve(resolutions=[spec_of(bet)], idempotency_key=new_key())
    assert ledger_counts() == before


def test_a_bet_is_resolved_once_and_a_replay_is_not_a_second_resolution(player):
    bet = BetFactory(player=player, amount=10_00)
    spec = [BetResolutionSpec(bet.pk, 20_00)]
    first = services.bet_resolve(resolutions=spec, idempotency_key="settle-1")
    before = ledger_counts()
    assert services.bet_resolve(resolutions=spec, idempotency_key="settle-1").pk == first.pk
    with pytest.raises(errors.BetAlreadyResolved) as refused:
        services.bet_resolve(resolutions=spec, idempotency_key="settle-2")
    assert str(bet.pk) in refused.value.message
    with pytest.raises(errors.BetAlreadyResolved):
        services.bet_void(bet_ids=[bet.pk], idempotency_key="void-1", reason="dealer error")
    with pytest.raises(errors.IdempotencyConflict):
        services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 0)], idempotency_key="settle-1")
    assert ledger_counts() == before and cash(player) == 110_00


def test_one_settled_bet_refuses_the_whole_batch(player):
    settled, fresh = BetFactory(player=player), BetFactory(player=player)
    services.bet_resolve(resolutions=[BetResolutionSpec(settled.pk, 0)], idempotency_key=new_key())
    before = ledger_counts()
    with pytest.raises(errors.BetAlreadyResolved):
        services.bet_resolve(resolutions=[BetResolutionSpec(fresh.pk, 0), BetResolutionSpec(settled.pk, 0)],
                             idempotency_key=new_key())
    assert ledger_counts() == before and not BetResolution.objects.filter(bet=fresh).exists()


def test_void_refunds_cash_to_cash_and_chips_to_chips(player, operator):
    DepositFactory(player=player, amount=50_00)
    services.golden_chips_grant(player=player, currency="EUR", amount=10_00, staff=operator, reason="promo",
                                idempotency_key=new_key())
    bets = services.bet_hold(player=player, idempotency_key=new_key(),
                             holds=[BetHoldSpec(20_00, "EUR"), BetHoldSpec(10_00, "EUR", funding="golden_chips")])
    txn = services.bet_void(bet_ids=[b.pk for b in bets], idempotency_key="void", reason="shoe error",
                            actor=operator)
    assert txn.kind == "refund" and txn.reason == "shoe error"
    assert (cash(player), chips(player)) == (50_00, 10_00)
    assert set(BetResolution.objects.values_list("outcome", flat=True)) == {"voided"}
    with pytest.raises(errors.BetAlreadyResolved):
        services.bet_resolve(resolutions=[BetResolutionSpec(bets[0].pk, 0)], idempotency_key=new_key())
    with pytest.raises(errors.InvalidRequest, match="reason"):
        services.bet_void(bet_ids=[bets[0].pk], idempotency_key=new_key(), reason="")


def test_duplicate_and_empty_batches_are_refused(player):
    bet = BetFactory(player=player)
    with pytest.raises(errors.InvalidResolution, match="twice"):
        services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 0)] * 2, idempotency_key=new_key())
    with pytest.raises(errors.InvalidResolution):
        services.bet_resolve(resolutions=[], idempotency_key=new_key())
    with pytest.raises(errors.InvalidResolution, match="twice"):
        services.bet_void(bet_ids=[bet.pk, bet.pk], idempotency_key=new_key(), reason="x")


def _bets_for(players, per_player):
    return services.bet_hold_many(
        holds_by_player=[(p, [BetHoldSpec(1_00, "EUR", kind=f"k{i}", reference="G-batch") for i in range(per_player)])
                         for p in players],
        idempotency_key=new_key(),
    )


def test_batch_hold_and_resolve_take_the_same_number_of_queries_for_any_count(roles):
    players = PlayerFactory.create_batch(12)
    for p in players:
        DepositFactory(player=p, amount=100_00)

    def queries(bet_players, per_player):
        with CaptureQueriesContext(connection) as hold_queries:
            bets = _bets_for(bet_players, per_player)
        specs = [BetResolutionSpec(b.pk, (0, 1_00, 2_00, 50)[b.pk % 4]) for b in bets]
        with CaptureQueriesContext(connection) as resolve_queries:
            services.bet_resolve(resolutions=specs, idempotency_key=new_key(), reference="G-batch")
        return len(hold_queries), len(resolve_queries)

    queries(players[:1], 1)  # opens the house accounts, which only a first use does
    small = queries(players[:2], 1)
    large = queries(players, 25)  # 300 bets over 12 players
    assert small == large, (small, large)
    # Inside the test's transaction each call adds SAVEPOINT and RELEASE to: hold = row with house accounts,
    # lock, write; resolve = row, the bets checked with their accounts locked, house accounts, write.
    assert large == (5, 6)
    # One player's bets from one account (every bet placed at a table) are one statement, however many.
    assert queries(players[:1], 1)[0] == queries(players[1:2], 4)[0] == 3
    assert BetResolution.objects.count() == 1 + 2 + 300 + 1 + 4


def test_bet_hold_many_is_all_or_nothing_across_players(roles):
    rich, poor = PlayerFactory(), PlayerFactory()
    DepositFactory(player=rich, amount=100_00)
    DepositFactory(player=poor, amount=1_00)
    before = ledger_counts()
    with pytest.raises(errors.InsufficientFunds, match=f"player {poor.pk}"):
        _bets_for([rich, poor], 2)
    assert ledger_counts() == before


def test_batch_services_join_an_outer_transaction_when_not_durable(player):
    bet = BetFactory(player=player, amount=10_00)
    with transaction.atomic():
        services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key="inner",
                             durable=False)
        # A replay inside the same outer transaction sees its own first call.
        assert services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key="inner",
                                    durable=False).replayed
    assert cash(player) == 110_00


def test_durable_services_refuse_to_run_inside_another_transaction(player):
    with pytest.raises(RuntimeError), transaction.atomic():
        services.deposit(player=player, currency="EUR", amount=10_00, idempotency_key=new_key())


# -------------------------------------------------------------------------------------------------- selectors


def test_history_pages_newest_first_by_keyset(player):
    for amount in range(1, 8):
        DepositFactory(player=player, amount=amount * 1_00)
    account = selectors.player_accounts(player=player)[0]
    first = selectors.account_history(account=account, limit=3)
    assert [r.amount for r in first.rows] == [7_00, 6_00, 5_00]
    assert [r.balance_after for r in first.rows] == [28_00, 21_00, 15_00]
    second = selectors.account_history(account=account, before=first.next_before, limit=3)
    last = selectors.account_history(account=account, before=second.next_before, limit=3)
    assert [r.amount for r in second.rows + last.rows] == [4_00, 3_00, 2_00, 1_00]
    assert last.next_before is None
    assert [r.amount for r in selectors.account_history_iter(account=account, chunk=2)] == [
        a * 1_00 for a in range(7, 0, -1)]


def test_history_shows_bets_and_payouts_with_game_and_game_number(player):
    DepositFactory(player=player, amount=100_00)
    [bet] = services.bet_hold(player=player, holds=[BetHoldSpec(10_00, "EUR", reference="G-42")],
                              idempotency_key=new_key(), meta={"game": "Blackjack Classic 1"})
    services.bet_resolve(resolutions=[BetResolutionSpec(bet.pk, 20_00)], idempotency_key=new_key(),
                         reference="G-42", meta={"game": "Blackjack Classic 1"})
    payout, held, _ = selectors.account_history(account=bet.account).rows
    assert (payout.kind, payout.payout, payout.bet_amount, payout.balance_after) == ("payout", 20_00, None, 110_00)
    assert (held.kind, held.bet_amount, held.game, held.game_number) == ("bet", 10_00, "Blackjack Classic 1", "G-42")
    assert selectors.bets_by_reference(reference="G-42")[0].resolution.outcome == "won"


@pytest.mark.no_audit
def test_the_audit_names_a_running_balance_that_disagrees_with_its_entries(player):
    DepositFactory(player=player, amount=10_00)
    Account.objects.filter(player=player).update(balance=11_00)
    [problem] = ledger_audit_run()
    assert problem.check == "player_balance" and problem.ids["player"] == player.pk
    assert "11" in problem.message and "10" in problem.message


@pytest.mark.no_audit
def test_the_audit_names_in_play_money_without_an_unresolved_bet(player):
    bet = BetFactory(player=player, amount=10_00)
    Bet.objects.create(account=bet.account, hold_transaction=bet.hold_transaction, amount=3_00, kind="ghost")
    assert [(d.check, d.ids) for d in ledger_audit_run()] == [
        ("in_play", {"kind": "house_bets_in_play", "currency": "EUR"})]
