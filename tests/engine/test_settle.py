"""What a wallet needs from settlement: each held stake by kind, and the exact amounts to credit."""

from rounds.engine.bets import PlayerEntry
from rounds.engine.cards import parse_card
from rounds.engine.rules import rules_for
from rounds.engine.settle import RoundResult, settle_round

EU, FREE = rules_for("classic_eu"), rules_for("free_bet")


def cards(text: str) -> list:
    return [parse_card(card) for card in text.split()]


def settle(rules, first: str, dealer: str, stream: str, *players: PlayerEntry) -> RoundResult:
    return settle_round(rules, cards(first), cards(dealer), cards(stream), list(players))


def test_golden_chip_win_pays_cash_and_spends_the_chips() -> None:
    hand = settle(EU, "Th 9d", "7s Tc", "", PlayerEntry("p", golden_chip=1000, actions=("stand",))).players[
        "p"
    ]
    (result,) = hand.hands
    assert (result.cash_stake, result.golden_stake, result.net) == (0, 1000, 1000)
    assert (result.cash_return, result.golden_return, result.outcome) == (1000, 0, "win")


def test_golden_chip_push_returns_the_chips_and_loss_costs_no_cash() -> None:
    push = settle(EU, "Th 9d", "9s Tc", "", PlayerEntry("p", golden_chip=1000, actions=("stand",)))
    assert (push.players["p"].hands[0].cash_return, push.players["p"].hands[0].golden_return) == (0, 1000)
    loss = settle(EU, "Th 9d", "Ts Kc", "", PlayerEntry("p", golden_chip=1000, actions=("stand",)))
    hand = loss.players["p"].hands[0]
    assert (hand.net, hand.cash_return, hand.golden_return) == (-1000, 0, 0)


def test_golden_chip_blackjack_and_cash_double() -> None:
    bj = settle(EU, "As Kd", "9s 8c", "", PlayerEntry("p", golden_chip=1000)).players["p"].hands[0]
    assert (bj.net, bj.cash_return, bj.outcome) == (1500, 1500, "blackjack")
    doubled = settle(EU, "6h 5d", "7s Tc", "Tc", PlayerEntry("p", golden_chip=1000, actions=("double",)))
    hand = doubled.players["p"].hands[0]
    assert (hand.cash_stake, hand.double_stake, hand.golden_stake) == (1000, 1000, 1000)
    assert (hand.net, hand.cash_return, hand.golden_return) == (2000, 3000, 0)


def test_ten_up_blackjack_returns_the_double_in_cash() -> None:
    result = settle(EU, "6h 5d", "Ks Ac", "9c", PlayerEntry("p", main=1000, actions=("double",)))
    hand = result.players["p"].hands[0]
    assert (hand.outcome, hand.cash_stake, hand.net, hand.cash_return) == (
        "dealer_blackjack",
        2000,
        -1000,
        1000,
    )
    assert result.dealer.blackjack and not result.dealer.peeked and result.dealer.total == 21


def test_free_bets_carry_no_cash() -> None:
    result = settle(
        FREE, "8h 8d", "Ts 7c", "3c Th Td", PlayerEntry("p", main=1000, actions=("split", "hit", "stand"))
    )
    first, second = result.players["p"].hands
    assert (first.cash_stake, first.free_stake, first.cash_return) == (1000, 0, 2000)
    assert (second.cash_stake, second.free_stake, second.net, second.cash_return) == (0, 1000, 1000, 1000)
    double = settle(FREE, "6h 5d", "Ts 8c", "2h", PlayerEntry("p", main=1000, actions=("double",)))
    hand = double.players["p"].hands[0]
    assert (hand.cash_stake, hand.free_stake, hand.net, hand.cash_return) == (1000, 1000, -1000, 0)


def test_insurance_and_side_bets_credit_stake_plus_winnings() -> None:
    entry = PlayerEntry(
        "p", main=1000, side_bets={"any_pair": 100, "hot3": 50}, insurance=True, actions=("stand",)
    )
    result = settle(FREE, "Qs Qh", "Ah Kc", "", entry).players["p"]
    assert result.insurance is not None
    assert (result.insurance.stake, result.insurance.net, result.insurance.cash_return) == (500, 1000, 1500)
    sides = dict(result.side_bets)
    assert (sides["any_pair"].outcome, sides["any_pair"].cash_return) == ("pair", 900)
    assert (sides["hot3"].outcome, sides["hot3"].net) == ("21", 200)
    assert result.net == -1000 + 1000 + 800 + 200
    assert result.to_script() == {"hands": [-1000], "insurance": 1000, "any_pair": 800, "hot3": 200}


def test_bet_behind_refund_when_the_seat_has_no_bet() -> None:
    seat = PlayerEntry("seat")
    behind = PlayerEntry("bb", main=1000, side_bets={"21+3": 100}, behind=True)
    result = settle(EU, "Th 9d", "7s Tc", "", seat, behind)
    refund = result.players["bb"]
    assert refund.refunded and refund.hands[0].outcome == "refund" and refund.hands[0].cash_return == 1000
    assert dict(refund.side_bets)["21+3"].cash_return == 100
    assert result.players["seat"].to_script() == {} and refund.to_script() == {"hands": [0], "21+3": 0}


def test_round_result_script_shape() -> None:
    result = settle(EU, "Th 9d", "7s Tc", "", PlayerEntry("p", main=1000, actions=("stand",)))
    assert result.to_script("X") == {
        "id": "X",
        "players": {"p": {"hands": [1000]}},
        "dealer": {"cards": ["7s", "Tc"], "total": 17},
    }
