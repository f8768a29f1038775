"""The soak's markdown report (docs/soak.md with --write): what was injected, the recovery after each fault,
what was verified."""

from __future__ import annotations

from datetime import UTC, datetime

from bench.common import machine
from bench.soak_faults import RECOVERY_GOAL_SECONDS, Chaos, Faults


def soak_report(args, report, results, counts, chaos: Chaos, faults: Faults, races, elapsed: float,
                version: str, *, network: str | None = None, by_host: dict | None = None,
                sources: dict | None = None) -> str:
    stats = report.stats
    rounds = stats["rounds settled"] + stats["rounds voided"]
    player_rounds = stats["player rounds"]
    voids = sum(n for name, n in stats.items() if name.startswith("malfunction voids"))
    lines = [
        f"# Soak test{' (short form, as CI runs it)' if args.short else ''}",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC by `bench/soak.py{' --short' if args.short else ''}` on "
        f"{machine()}, {version} and Redis of its own; {elapsed:.0f} s in all.",
        "",
        *([f"Hosts (`--hosts {args.hosts}`, network namespaces): {network}. round_settle runs per worker host: "
           + ", ".join(f"`{host}` {runs:,}" for host, runs in (by_host or {}).items()) + ". Clients by address: "
           + "; ".join(f"{server} " + ", ".join(f"{address} {n}" for address, n in by.items())
                                          for server, by in (sources or {}).items()) + ".", ""] if network else []),
        "## What was injected",
        "",
        "| Injection | Asked for | Happened |",
        "|---|---|---|",
        f"| Celery workers competing for one queue, production settings | {args.workers} | {args.workers} "
        "(prefork, 2 children each), plus one beat |",
        f"| A worker (whole, or one pool child) killed with SIGKILL | every {args.kill_every[0]:.0f}-"
        f"{args.kill_every[1]:.0f} s | {chaos.kills} workers killed and restarted, {chaos.child_kills} children "
        f"killed ({chaos.while_settling} of all kills while a settlement or refund was pending) |",
        f"| PostgreSQL stopped (`-m immediate`) while rounds settle, and the broker (Redis) killed with "
        f"settlements queued | {args.database_restarts}, {args.broker_restarts} | "
        f"{sum(1 for f in faults.done if f['kind'] == 'database')}, "
        f"{sum(1 for f in faults.done if f['kind'] == 'broker')} (below) |",
        *([f"| Every worker of one host killed (SIGKILL) while rounds settle | {args.host_kills} | "
           f"{sum(1 for f in faults.done if f['kind'] == 'host')} (below) |"] if network else []),
        f"| Races: bets against a disconnection, main bets against the table maximum | "
        f"{f'{args.race_rounds} rounds' if args.races else 'off (--races)'} | "
        f"{races.counts['race rounds'] if races else 0} rounds |",
        f"| Settle/void tasks delivered twice | {args.duplicate_rate:.0%} of rounds | "
        f"{stats['settlement tasks delivered twice']} of {rounds} rounds |",
        f"| Players disconnecting while betting is open | {args.disconnect_rate:.0%} of player rounds | "
        f"{stats['disconnects during betting (refunded)']} of {player_rounds} |",
        f"| Rounds voided as malfunctions | {args.malfunction_rate:.0%} | {voids} of {rounds} |",
        f"| Also: disconnects after betting closed, paused tables | | "
        f"{stats['disconnects after betting (played by timeout)']} (their continuations completed at the deadline: "
        f"{stats['continuations completed at their deadline']}), {stats['table pauses']} |",
        "",
        f"The table simulator played {rounds:,} rounds at {args.tables} tables with {args.players} players "
        f"(seed {args.seed}) in {report.seconds:.0f} s: {stats['placements']:,} placements, "
        f"{sum(n for k, n in stats.items() if k.startswith('decisions: ')):,} decisions, {stats['cards']:,} cards, "
        f"{stats['tips']} tips, {stats['deposits (reloads)']} reloads, {stats['withdrawals']} withdrawals. "
        f"The workers ran round_settle {counts['settle runs']:,} times ({counts['settle no-ops']:,} found the round "
        f"already settled: duplicates and redeliveries) and round_void {counts['void runs']:,} times "
        f"({counts['void no-ops']:,} no-ops); {counts['redelivered']} tasks taken by a killed worker were delivered "
        f"again (same task id), and the recovery sweep re-queued {counts['re-queued by the recovery sweep']} "
        "settlements or refunds left behind.",
        "",
        "## Recovery after each fault",
        "",
        "From the moment the database or the broker is back until every round that was waiting at the fault is "
        f"settled (the goal: under {RECOVERY_GOAL_SECONDS:.0f} s). Every table's round is completed by the dealer "
        "at once; PostgreSQL is stopped (`-m immediate`) while they settle, or Redis is killed (SIGKILL, nothing "
        "persisted) while their settlements wait on the queue, with the workers alive and trying to reconnect "
        "throughout. After a database restart the settle tasks' own retries (at most 2 s apart) bring the rounds "
        "back; after a broker restart the settlements are lost, and the sweep each worker queues once it is back "
        "on the broker (tried every second) queues them again.",
        "",
        "| Fault | Times | Rounds | Recovery min / median / max | Goal |",
        "|---|---|---|---|---|",
        *faults.lines(),
        "",
        "## What was verified",
        "",
        "| Check | Result | Detail |",
        "|---|---|---|",
    ]
    for name, passed, detail in results:
        lines.append(f"| {name} | {'passed' if passed else '**FAILED**'} | {detail} |")
    return "\n".join(lines) + "\n"
