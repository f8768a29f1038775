"""Setting a simulation up (studio, tables, players and their wallets) and running its tables."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections
from django.utils import timezone

from rounds.simulator.clock import simulated_time
from rounds.simulator.habits import SimPlayer, players_draw
from rounds.simulator.table import TableSim
from rounds.simulator.threads import parallel
from rounds.simulator.transport import TRANSPORTS, Refused, ServiceTransport

PROFILE_CYCLE = ("free_bet", "free_bet_seated", "classic")
PROFILE_CODE = {"free_bet": "FB", "free_bet_seated": "FS", "classic": "LB"}
PROFILE_NAME = {"free_bet": "Free Bet Blackjack", "free_bet_seated": "Live Free Bet Blackjack",
                "classic": "Live Blackjack"}
# Features a simulated table switches on, so that every path is played (a table that exists keeps its own).
PROFILE_FEATURES = {
    "free_bet": {},
    "free_bet_seated": {"bet_behind": True},
    "classic": {"bet_behind": True, "multi_seat": True, "deal_now": True, "auto_confirm": True, "golden_chips": True},
}
SETTLE_MODES = ("worker", "inline")


@dataclass(frozen=True)
class ScriptedEvent:
    """An event that must happen: at table `table` (index), in its round `round` (from 0), at `phase`."""

    table: int
    round: int
    kind: str  # "malfunction" or "pause"
    phase: str | None = None


@dataclass(frozen=True)
class SimulationConfig:
    tables: int = 3
    players: int = 12
    rounds: int = 30  # in all, shared out over the tables
    seed: int = 1
    speed: float = 0.0  # 0: as fast as the system goes (timers run out at once); 1: the pace of a live studio
    prefix: str = "SIM"  # of generated table codes and user names, so runs can share a database
    table_codes: tuple[str, ...] = ()  # use (or create) these tables instead of generated codes
    player_names: tuple[str, ...] = ()  # user names for the first players instead of generated ones
    player_password: str | None = None  # None: no usable password ("{name}" expands to the user name)
    studio: str | None = None  # the operator who runs the tables (created if missing)
    currency: str = "EUR"
    via: str = "services"  # or "api"
    settle: str = "worker"  # "worker": Celery settles, the simulator waits; "inline": round_settle called here
    parallel_tables: bool = True  # one thread per table
    player_threads: int = 1  # threads for the players of a common-draw table
    disconnect_rate: float = 0.02  # per player and round, while betting is open (bets refunded)
    late_disconnect_rate: float = 0.005  # per player and round, after betting closed (played by timeout)
    malfunction_rate: float = 0.01  # per round: voided as a malfunction at a random phase
    pause_rate: float = 0.01  # per round: the studio pauses the table for a while
    duplicate_task_rate: float = 0.0  # per round: its settle or void task is sent a second time
    scripted_events: tuple[ScriptedEvent, ...] = ()
    table_timers: dict[str, int] = field(default_factory=lambda: {"betting_seconds": 60, "decision_seconds": 10})
    habit_overrides: dict[str, Any] = field(default_factory=dict)  # e.g. {"side_bets": 1.0} for every player
    max_reloads: int = 5
    withdraw_max: int = 1_000_000
    settle_timeout: float = 120.0
    # A simulated clock (the demo): the set-up happens at played_from and each table's rounds are spread from
    # there to played_until, every step at a live studio's pace, whatever the run takes in real time. None: wall
    # time. Needs the services, inline settlement and one table at a time (the clock is the process's).
    played_from: datetime | None = None
    played_until: datetime | None = None

    def check(self) -> None:
        if self.tables < 1 or self.players < 1 or self.rounds < 0:
            raise ValueError("tables and players must be at least 1, rounds at least 0")
        if self.table_codes and len(self.table_codes) < self.tables:
            raise ValueError(f"{self.tables} tables need {self.tables} table codes, not {len(self.table_codes)}")
        if self.via not in TRANSPORTS:
            raise ValueError(f"via must be one of {', '.join(TRANSPORTS)}, not {self.via!r}")
        if self.settle not in SETTLE_MODES:
            raise ValueError(f"settle must be one of {', '.join(SETTLE_MODES)}, not {self.settle!r}")
        if self.speed < 0:
            raise ValueError("speed must be 0 (as fast as possible) or more")
        if not self.table_codes and (len(self.prefix) > 4 or not self.prefix.isalnum() or not self.prefix.isupper()):
            raise ValueError("prefix must be 1-4 capital letters or digits (table codes are 2-8 of them)")
        if (self.played_from is None) != (self.played_until is None):
            raise ValueError("played_from and played_until go together")
        if self.played_from is not None and self.played_until is not None:
            # (Not checked against now here: on the simulated clock, now is played_from; simulation_run checks.)
            if not self.played_from < self.played_until:
                raise ValueError("played_from must come before played_until")
            if (self.via, self.settle, self.speed, self.player_threads) != ("services", "inline", 0.0, 1) or (
                    self.parallel_tables and self.tables > 1):
                raise ValueError("a simulated clock needs via=services, settle=inline, speed 0, one player thread "
                                 "and one table at a time")


@dataclass
class SimulationReport:
    config: SimulationConfig
    tables: list[str]
    players: list[SimPlayer]
    stats: Counter
    seconds: float
    clock_ahead_seconds: float

    @property
    def rounds(self) -> int:
        return self.stats["rounds settled"] + self.stats["rounds voided"]

    def lines(self) -> list[str]:
        rate = self.rounds / self.seconds if self.seconds else 0.0
        out = [
            f"{self.rounds} rounds at {len(self.tables)} tables ({', '.join(self.tables)}) with "
            f"{len(self.players)} players in {self.seconds:.1f} s ({rate:.1f} rounds/s), seed {self.config.seed}, "
            f"via {self.config.via}, settled by {'the worker' if self.config.settle == 'worker' else 'round_settle'}",
        ]
        for name, value in sorted(self.stats.items()):
            if not name.startswith("refused"):
                out.append(f"  {name}: {value:,}")
        refusals = {name: value for name, value in self.stats.items() if name.startswith("refused")}
        if refusals:
            out.append("  refusals (ordinary answers at a live table):")
            out += [f"    {name.removeprefix('refused ')}: {value:,}" for name, value in sorted(refusals.items())]
        if self.clock_ahead_seconds:
            out.append(f"  timers run out at full speed moved the tables' clocks ahead by up to "
                       f"{self.clock_ahead_seconds:.0f} s")
        return out


# --- set-up ------------------------------------------------------------------------------------------------------

def _studio(config: SimulationConfig):
    from accounts.services import roles_sync, user_create

    username = config.studio or f"{config.prefix.lower()}_studio"
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        roles_sync()
        user = user_create(username=username, password=None, role="operator")
    return user


def _tables(config: SimulationConfig, studio) -> list:
    from tables.models import Table
    from tables.services import table_create

    tables = []
    for index in range(config.tables):
        profile = PROFILE_CYCLE[index % len(PROFILE_CYCLE)]
        if config.table_codes:
            code = config.table_codes[index]
        else:
            code = f"{config.prefix}{PROFILE_CODE[profile]}{index // len(PROFILE_CYCLE) + 1:02d}"
        table = Table.objects.filter(code=code).first()
        if table is None:
            table = table_create(
                actor=studio, code=code, name=f"{PROFILE_NAME[profile]} {code}", profile=profile,
                currencies=[config.currency], state="open", reason="Simulator table",
                **PROFILE_FEATURES[profile], **config.table_timers,
            )
        elif table.state != "open":
            from rounds.services import table_open

            table = table_open(table=table, actor=studio)
        tables.append(table)
    return tables


def _players(config: SimulationConfig, tables: list, studio, transport: ServiceTransport) -> list[SimPlayer]:
    from accounts.services import user_create
    from wallet import services as wallet

    players = players_draw(count=config.players, tables=config.tables, seed=config.seed, prefix=config.prefix,
                           names=config.player_names)
    for player in players:
        for name, value in config.habit_overrides.items():
            setattr(player.habits, name, value)
    model = get_user_model()
    existing = {user.username: user for user in model.objects.filter(username__in=[p.username for p in players])}

    def open_account(player: SimPlayer) -> None:
        user = existing.get(player.username)
        if user is None:
            password = config.player_password.format(name=player.username) if config.player_password else None
            user = user_create(username=player.username, password=password, role="player",
                               first_name=player.username.split("_")[-1].capitalize(),
                               email=f"{player.username}@sim.example")
        player.user = user
        transport.deposit(player=user, currency=config.currency, amount=player.bankroll)
        if player.golden_chips and tables[player.table_index].golden_chips:
            wallet.golden_chips_grant(player=user, currency=config.currency, amount=player.golden_chips,
                                      staff=studio, reason="Welcome Golden Chips (simulation)",
                                      idempotency_key=f"sim:{config.prefix}:{config.seed}:golden:{user.pk}")
        else:
            player.golden_chips = 0

    parallel(players, open_account, threads=config.player_threads)
    return players


# --- running -----------------------------------------------------------------------------------------------------

class Progress:
    """A one-line progress bar on a stream (the management command's stderr)."""

    def __init__(self, total: int, write: Callable[[str], None] | None, every: float = 0.2):
        self.total = max(total, 1)
        self.write = write
        self.every = every
        self.done = Counter()
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.last = 0.0

    def tick(self, state: str) -> None:
        with self.lock:
            self.done[state] += 1
            now = time.monotonic()
            finished = sum(self.done.values())
            if self.write is None or (now - self.last < self.every and finished < self.total):
                return
            self.last = now
            width = 30
            filled = int(width * finished / self.total)
            elapsed = now - self.started
            rate = finished / elapsed if elapsed else 0.0
            left = (self.total - finished) / rate if rate else 0.0
            self.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {finished}/{self.total} rounds "
                       f"({self.done['settled']} settled, {self.done['voided']} voided) "
                       f"{rate:.1f}/s, {left:.0f} s left ")
            if finished >= self.total:
                self.write("\n")


def simulation_prepare(config: SimulationConfig) -> tuple[ServiceTransport, Any, list, list[SimPlayer]]:
    """The transport, the studio user, the tables and the funded players of a run."""
    config.check()
    transport = TRANSPORTS[config.via]()
    studio = _studio(config)
    tables = _tables(config, studio)
    players = _players(config, tables, studio, transport)
    return transport, studio, tables, players


def table_sims(config: SimulationConfig, *, transport, studio, tables, players, stats: Counter,
               on_round: Callable[[str], None] | None = None, traveller=None) -> list[TableSim]:
    lock = threading.Lock()
    sims = [
        TableSim(index=index, table=table, players=[p for p in players if p.table_index == index], studio=studio,
                 transport=transport, config=config, stats=stats, lock=lock, on_round=on_round,
                 traveller=traveller)
        for index, table in enumerate(tables)
    ]
    for sim in sims:
        sim.others = [table for table in tables if table.pk != sim.table.pk]
    return sims


def tables_play_in_threads(sims: list[TableSim], shares: list[int]) -> None:
    """Each table plays its share of rounds in a thread of its own; the first error stops the others at the end
    of their round, and is raised once they all finished."""
    errors: list[BaseException] = []
    stop = threading.Event()

    def run(sim: TableSim, rounds: int) -> None:
        try:
            sim.run(rounds, stop)
        except BaseException as error:  # re-raised below, once the other tables finished their round
            errors.append(error)
            stop.set()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(sim, rounds), name=f"table-{sim.table.code}")
               for sim, rounds in zip(sims, shares, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def simulation_run(config: SimulationConfig, *, progress: Callable[[str], None] | None = None,
                   progress_every: float = 0.2) -> SimulationReport:
    """Set up and play `config.rounds` rounds over `config.tables` tables; returns what happened.

    `progress` receives a one-line progress bar (starting with a carriage return) at most every
    `progress_every` seconds."""
    started = time.monotonic()
    config.check()
    if config.played_until is not None and config.played_until > timezone.now():
        raise ValueError("played_until must not be after now: a simulated round cannot happen in the future")
    clock = simulated_time(config.played_from) if config.played_from is not None else nullcontext()
    with clock as traveller:
        return _run(config, started=started, traveller=traveller, progress=progress, progress_every=progress_every)


def _run(config: SimulationConfig, *, started: float, traveller, progress: Callable[[str], None] | None,
         progress_every: float) -> SimulationReport:
    transport, studio, tables, players = simulation_prepare(config)
    stats: Counter = Counter()
    stats["deposited"] += sum(p.bankroll for p in players)
    bar = Progress(config.rounds, progress, every=progress_every)
    sims = table_sims(config, transport=transport, studio=studio, tables=tables, players=players, stats=stats,
                      on_round=bar.tick, traveller=traveller)
    shares = [config.rounds // len(sims) + (1 if index < config.rounds % len(sims) else 0)
              for index in range(len(sims))]
    if config.parallel_tables and len(sims) > 1:
        tables_play_in_threads(sims, shares)
    else:
        for sim, rounds in zip(sims, shares, strict=True):
            sim.run(rounds)
    return SimulationReport(
        config=config, tables=[t.code for t in tables], players=players, stats=stats,
        seconds=time.monotonic() - started,
        clock_ahead_seconds=max((sim.clock.jumped.total_seconds() for sim in sims), default=0.0),
    )


# --- comparing runs ----------------------------------------------------------------------------------------------

def run_fingerprint(report: SimulationReport) -> list[tuple]:
    """The game outcomes of a run, free of ids, user names and table codes: per table (by index) and round, its
    end state, every card in order, and per spot (by player index) the bets, decisions and settled net."""
    from rounds.models import CardRecord, Decision, Round, RoundBet, Spot

    index_of = {player.user.pk: player.index for player in report.players}
    rows: list[tuple] = []
    for table_index, code in enumerate(report.tables):
        for round in Round.objects.filter(table__code=code).order_by("id"):
            cards = tuple(CardRecord.objects.filter(round=round).order_by("position")
                          .values_list("target", "seat", "card"))
            spots = []
            nets = {data["spot"]: data["net"] for data in (round.settlement or {}).get("spots", {}).values()}
            for spot in Spot.objects.filter(round=round).order_by("id"):
                bets = tuple(RoundBet.objects.filter(spot=spot).order_by("id").values_list("kind", "amount"))
                decisions = tuple(Decision.objects.filter(spot=spot).order_by("sequence")
                                  .values_list("kind", "action", "effective"))
                spots.append((index_of.get(spot.player_id), spot.seat, spot.behind, spot.voided_at is not None,
                              spot.disconnected_at is not None, bets, decisions, nets.get(spot.pk)))
            rows.append((table_index, round.state, round.void_kind, cards, tuple(sorted(spots, key=repr))))
    return rows


__all__ = ["Refused", "ScriptedEvent", "SimulationConfig", "SimulationReport", "run_fingerprint", "simulation_run"]
