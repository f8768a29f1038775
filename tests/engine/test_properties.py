"""Property tests over random shoes and random legal decision logs, for every profile and dealing."""

from dataclasses import dataclass, replace
from random import Random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rounds.engine.bets import PlayerEntry
from rounds.engine.cards import Card, new_shoe
from rounds.engine.dealer import check_dealer_cards, peeked_blackjack
from rounds.engine.errors import EngineError
from rounds.engine.hands import hand_value
from rounds.engine.play import DECISION, PlayerPlay
from rounds.engine.rules import SCRIPT_RULE_NAMES, Rules, rules_for
from rounds.engine.settle import RoundResult, settle_round

PROPERTY_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@dataclass(frozen=True)
class Round:
    rules: Rules
    first: tuple[Card, ...]
    dealer: tuple[Card, ...]
    stream: tuple[Card, ...]
    players: tuple[PlayerEntry, ...]
    used: dict[str, int]

    def settle(self, **kwargs: Any) -> RoundResult:
        return settle_round(self.rules, self.first, self.dealer, self.stream, self.players, **kwargs)


@st.composite
def rounds(draw: st.DrawFn) -> Round:
    rules = rules_for(draw(st.sampled_from(sorted(SCRIPT_RULE_NAMES))))
    shoe = new_shoe(rules.decks, Random(draw(st.integers(0, 2**32))))
    if draw(st.booleans()):  # small cards only: long hands, Charlies, soft totals
        shoe = [card for card in shoe if card.points <= 5]
    if draw(st.booleans()):  # a pair for the position: splits
        twin = next(i for i in range(3, len(shoe)) if shoe[i].points == shoe[0].points)
        shoe[2], shoe[twin] = shoe[twin], shoe[2]
    first, up, hole, rest = (shoe[0], shoe[2]), shoe[1], shoe[3], shoe[4:]
    peeked = peeked_blackjack(rules, (up, hole))
    entries: list[PlayerEntry] = []
    used: dict[str, int] = {}
    count = draw(st.integers(1, 4)) if rules.common_draw else 1
    for index in range(count):
        entry = _entry(draw, rules, up, f"p{index}")
        actions: list[str] = []
        play = PlayerPlay(
            rules,
            first,
            main=entry.main,
            golden=entry.golden_chip,
            balance=entry.balance_after_insurance(),
            stream=rest,
        )
        while entry.unit and not peeked and play.advance() == DECISION:
            action = draw(st.sampled_from(play.legal_actions()))
            play.apply(action)
            actions.append(action)
        entries.append(replace(entry, actions=tuple(actions)))
        used[entry.id] = play.used if entry.unit and not peeked else 0
    if rules.bet_behind and draw(st.booleans()):
        behind = _entry(draw, rules, up, "bb")
        entries.append(replace(behind, behind=True, insurance=False, golden_chip=0, main=behind.unit))
    stream = tuple(rest[: max(used.values())])
    dealer = [up, hole]
    more = iter(rest[len(stream) :])
    while not peeked and hand_value(dealer)[0] < 17:
        dealer.append(next(more))
    return Round(rules, first, tuple(dealer), stream, tuple(entries), used)


def _entry(draw: st.DrawFn, rules: Rules, up: Card, player_id: str) -> PlayerEntry:
    unit = (
        draw(st.sampled_from([0, 2, 100, 1000]))
        if player_id != "p0"
        else draw(st.sampled_from([2, 100, 1000]))
    )
    golden = bool(unit) and rules.golden_chips and draw(st.booleans())
    balance = draw(st.one_of(st.none(), st.integers(0, 4000)))
    insurance = bool(unit) and not golden and up.points == 1 and draw(st.booleans())
    if insurance and balance is not None and balance < unit // 2:
        insurance = False
    sides = {bet: draw(st.sampled_from([0, 1, 25])) for bet in rules.side_bets} if unit else {}
    return PlayerEntry(
        id=player_id,
        main=0 if golden else unit,
        golden_chip=unit if golden else 0,
        side_bets={bet: stake for bet, stake in sides.items() if stake},
        insurance=insurance,
        balance=balance,
    )


@PROPERTY_SETTINGS
@given(rounds())
def test_settlement_never_creates_or_loses_a_minor_unit(game: Round) -> None:
    result = game.settle()
    for player in result.players.values():
        for hand in player.hands:
            held = hand.cash_stake + hand.golden_stake
            # Cash and chips back minus held equals the net, except that a won Golden Chip is spent.
            moved = hand.cash_return - hand.cash_stake + hand.golden_return - hand.golden_stake
            assert moved == hand.net - (hand.golden_stake if hand.net > 0 else 0)
            assert -held <= hand.net  # a free bet never loses money
            assert hand.net <= max(held + hand.free_stake, (hand.cash_stake + hand.golden_stake) * 3 // 2)
            assert hand.cash_return >= 0 and hand.golden_return in (0, hand.golden_stake)
            if held == 0:
                assert hand.net >= 0
        for stake in [player.insurance] + [side for _name, side in player.side_bets]:
            if stake is not None:
                assert stake.cash_return >= 0 and stake.net >= -stake.stake


@PROPERTY_SETTINGS
@given(rounds())
def test_replaying_twice_and_the_memo_give_the_same_result(game: Round) -> None:
    assert game.settle() == game.settle()
    assert game.settle(memo=True) == game.settle(memo=False)


@PROPERTY_SETTINGS
@given(rounds())
def test_each_common_draw_player_is_independent_of_the_others(game: Round) -> None:
    together = game.settle()
    for entry in game.players:
        if entry.behind:
            continue
        alone = replace(game, players=(entry,), stream=game.stream[: game.used[entry.id]]).settle()
        assert alone.players[entry.id] == together.players[entry.id]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("A23456789TJQK"), min_size=1, max_size=8),
    st.booleans(),
)
def test_an_accepted_dealer_record_never_drew_on_17_or_more(ranks: list[str], must_complete: bool) -> None:
    from rounds.engine.cards import parse_card

    dealer = [parse_card(rank + "s") for rank in ranks]
    try:
        check_dealer_cards(rules_for("classic_eu"), dealer, must_complete=must_complete, needs_second=False)
    except EngineError:
        return
    assert all(hand_value(dealer[:index])[0] < 17 for index in range(2, len(dealer)))
    if must_complete or len(dealer) > 2:
        assert hand_value(dealer)[0] >= 17
