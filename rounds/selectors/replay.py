"""A recorded round replayed from its audit trail through the engine and compared with what was settled
and what the wallet paid (round_replay; `manage.py replay_round`, the soak, the support desk)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rounds.continuation_play import ContinuationState
from rounds.engine.errors import EngineError
from rounds.engine.script import expect_differences, settle_script
from rounds.engine_adapter import (
    SIDE_KINDS,
    RoundRecord,
    bet_returns,
    round_scripts,
    rules_overrides,
    settle_record,
    spot_bet_returns,
)
from rounds.models import Round, RoundBet
from rounds.selectors.record import round_record_from_events


def _continuation_replay(record: RoundRecord, data: dict[str, Any], *, name: str) -> tuple[dict[str, Any],
                                                                                           dict[int, tuple[int, int]]]:
    """A continuation rebuilt from its events: its round script and the returns of its bets."""
    spot = record.spot(data["spot"])
    bets = [b for b in record.bets_of(spot.id) if b.kind not in SIDE_KINDS]
    main = sum(b.amount for b in bets if b.kind in ("main", "bet_behind"))
    golden = sum(b.amount for b in bets if b.kind == "golden_chip")
    insurance = sum(b.amount for b in bets if b.kind == "insurance")
    state = ContinuationState(
        rules=record.rules, label=f"{spot.label}-continuation", main=main, golden=golden,
        insurance=data["insurance"], first=data["first"], stream=data["stream"], dealer=data["dealer"],
        actions=data["actions"], funded=data["funded"], unit=main + golden, insurance_stake=insurance, shoe=[])
    recorded = data["settlement"]
    script = state.script(name=f"{name}/continuation-{spot.label}", overrides=rules_overrides(record.rules),
                          expect=recorded["result"] if recorded else None)
    sub = RoundRecord(rules=record.rules, common_draw=record.common_draw, spots=[spot], bets=bets)
    return script, spot_bet_returns(sub, spot, state.settle())



@dataclass
class RoundReplay:
    """The engine's view of a recorded round: one script per dealt position, replayed.

    `scripts` are docs/round-script.md objects whose `expect` is the recorded settlement, so `replay_round --check`
    verifies them too. `matches` is true when the replay gives the recorded results and the same money per bet
    as the wallet actually moved.
    """

    game_number: str
    state: str
    scripts: list[dict[str, Any]]
    results: list[dict[str, Any]]
    recorded: dict[str, Any] | None
    bet_returns: dict[str, list[int]] = field(default_factory=dict)
    wallet_returns: dict[str, list[int]] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    error: str = ""
    # Non-live continuations not finished yet: their bets are still held and have nothing to compare.
    pending: list[str] = field(default_factory=list)

    @property
    def matches(self) -> bool:
        return self.recorded is not None and not self.differences and not self.error


def round_replay(*, round: Round) -> RoundReplay:
    """Replay a round from its audit trail through the engine and compare with what was settled and paid."""
    audited = round_record_from_events(round)
    record = audited.record
    recorded = audited.settlement
    expect = {label: data["result"] for label, data in recorded["spots"].items()} if recorded else None
    scripts = round_scripts(record, name=round.game_number, expect=expect)
    replay = RoundReplay(game_number=round.game_number, state=round.state, scripts=scripts, results=[],
                         recorded=recorded)
    try:
        for script in scripts:
            result = settle_script(script)
            replay.results.append(result)
            if script.get("expect") is not None:
                replay.differences += [f"{script['id']}: {d}" for d in expect_differences(script["expect"], result)]
        live_returns = bet_returns(record, settle_record(record))
        returns = dict(live_returns)
        for data in audited.continuations.values():
            if data["settlement"] is None:
                replay.pending.append(f"{record.spot(data['spot']).label}: the disconnected player's non-live "
                                      "continuation is still open; its bets stay held until it ends")
                continue
            script, continued = _continuation_replay(record, data, name=round.game_number)
            scripts.append(script)
            result = settle_script(script)
            replay.results.append(result)
            replay.differences += [f"{script['id']}: {d}" for d in expect_differences(script["expect"], result)]
            returns.update(continued)
    except EngineError as error:
        replay.error = str(error)
        return replay
    replay.bet_returns = {str(bet_id): list(value) for bet_id, value in sorted(returns.items())}
    if recorded is None:
        replay.differences.append(f"round {round.game_number} is {round.state}: it has no recorded settlement")
        return replay
    # Rounds settled before the settlement stopped repeating the ledger's returns per bet still carry them.
    if "bets" in recorded and {str(bet_id): list(value) for bet_id, value in sorted(live_returns.items())} != \
            recorded["bets"]:
        replay.differences.append("the replayed returns per bet differ from the recorded settlement")
    wallet_ids = {bet.id: bet.wallet_bet_id for bet in record.bets}
    resolutions = {
        bet.pk: bet for bet in RoundBet.objects.filter(round=round).select_related("wallet_bet__resolution")
    }
    for bet_id, (cash, chips) in sorted(returns.items()):
        row = resolutions.get(bet_id)
        resolution = getattr(row.wallet_bet, "resolution", None) if row else None
        if row is None or row.wallet_bet_id != wallet_ids[bet_id] or resolution is None:
            replay.differences.append(f"bet {bet_id} has no wallet resolution")
            continue
        replay.wallet_returns[str(bet_id)] = [resolution.cash_return, resolution.chips_return]
        if (resolution.cash_return, resolution.chips_return) != (cash, chips):
            replay.differences.append(
                f"bet {bet_id}: the wallet paid {resolution.cash_return} cash and {resolution.chips_return} "
                f"chips, the replay gives {cash} and {chips}"
            )
    return replay
