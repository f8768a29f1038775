"""The soak's faults while the tables play: the chaos thread that kills workers (whole, or one pool child) and
starts them again, and the database and broker restarts between stretches of play, with the time each takes to
recover (bench/soak_cluster.py runs the servers they hurt)."""

from __future__ import annotations

import random
import threading
import time

from bench.common import Worker, percentile
from bench.soak_cluster import PgCluster, RedisServer

RECOVERY_GOAL_SECONDS = 10.0


class Chaos(threading.Thread):
    """Kills, at random moments, a random worker whole or one of its pool's children, and starts it again.

    A settlement takes milliseconds, so a kill at a purely random moment mostly finds the workers idle: after
    the random wait, the kill waits (up to 3 s) for a round to be settling or refunding, so that many kills land
    while a worker holds such a task. pause() holds the kills while the database or the broker is restarted."""

    def __init__(self, workers: list[Worker], *, interval: tuple[float, float], seed: int):
        super().__init__(name="chaos", daemon=True)
        self.workers = workers
        self.interval = interval
        self.rng = random.Random(f"{seed}:chaos")
        self.stop_event = threading.Event()
        self.running = threading.Event()
        self.running.set()
        self.idle = threading.Lock()
        self.kills = 0
        self.child_kills = 0
        self.while_settling = 0
        self.error: BaseException | None = None

    def settling_now(self) -> int:
        from django.db import InterfaceError, OperationalError, connection

        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM rounds_round WHERE state = 'settling' "
                               "OR (state = 'voided' AND refunds_done_at IS NULL)")
                return cursor.fetchone()[0]
        except (OperationalError, InterfaceError):  # the connection the database restart broke
            connection.close()
            return 0

    def run(self) -> None:
        from django.db import connections

        try:
            while not self.stop_event.wait(self.rng.uniform(*self.interval)):
                self.running.wait()
                with self.idle:
                    if self.stop_event.is_set() or not self.running.is_set():
                        continue
                    worker = self.rng.choice(self.workers)
                    aim_until = time.monotonic() + 3.0
                    while not (busy := self.settling_now()) and time.monotonic() < aim_until:
                        time.sleep(0.01)
                    if self.rng.random() < 0.5 and worker.kill_child(self.rng):
                        self.child_kills += 1
                    else:
                        worker.kill()
                        self.kills += 1
                        time.sleep(self.rng.uniform(0.2, 2.0))
                        worker.start()
                    self.while_settling += 1 if busy else 0
        except BaseException as error:  # reported by the main thread
            self.error = error
        finally:
            connections.close_all()

    def pause(self) -> None:
        self.running.clear()
        with self.idle:  # a kill under way ends (and its worker is started again) first
            pass

    def resume(self) -> None:
        self.running.set()

    def stop(self) -> None:
        self.stop_event.set()
        self.running.set()
        self.join()


class Faults:
    """Database restarts and broker restarts, each between two stretches of play, and the recovery after each."""

    def __init__(self, *, cluster: PgCluster, redis: RedisServer, workers: list[Worker], chaos: Chaos,
                 outages: list[float]):
        self.cluster = cluster
        self.redis = redis
        self.workers = workers
        self.chaos = chaos
        self.outages = outages  # seconds down, fault after fault in turn
        self.done: list[dict] = []

    def inject(self, kind: str, sims, bar, number: int) -> None:
        """Every table plays a round up to the dealer's complete hand; the studio completes them all and the
        fault lands while they settle (database) or while their settlements wait on the queue (broker)."""
        from django.db import connections

        from rounds.simulator.threads import parallel

        self.chaos.pause()
        for worker in self.workers:
            if not worker.alive():
                worker.start()
        plays = parallel(sims, lambda sim: (sim, sim.play_round(number, until="dealer_complete")), threads=len(sims))
        pending = [(sim, play) for sim, play in plays if sim.state_of(play.ref) == "dealer"]
        ids = [play.ref.id for _sim, play in pending]
        # Only a lost host's rounds wait for the recovery sweep's grace, which counts from their settling_at; after
        # a database or broker restart the tasks' retries and the reconnect sweep bring them back whatever it says,
        # so the soak does not wait for the tables' clocks there (up to a timer's length per fault).
        lead = wall_clock_reached([sim.clock for sim, _play in pending]) if kind == "host" else 0.0
        if kind == "broker":
            for worker in self.workers:
                worker.freeze(True)
        parallel(pending, lambda item: item[0].transport.dealer_complete(studio=item[0].studio, round=item[1].ref,
                                                                         now=item[0].now()), threads=len(sims))
        settling = rounds_waiting(ids)
        outage = self.outages[sum(1 for f in self.done if f["kind"] == kind) % len(self.outages)]
        back = self.strike(kind, outage)
        connections.close_all()
        deadline = back + 240
        while (waiting := rounds_waiting(ids)) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.done.append({"kind": kind, "rounds": len(ids), "settling at the fault": settling, "outage": outage,
                          "recovered": not waiting, "seconds": time.monotonic() - back, "clock lead": lead})
        for sim, play in pending:
            sim.round_finish(play.ref)
            sim.after_round(play)
            if sim.shoe is not None and sim.shoe.cut_card_reached:
                sim.shoe_new()
            bar.tick(sim.state_of(play.ref))
        self.chaos.resume()

    def strike(self, kind: str, outage: float) -> float:
        """The fault itself, `outage` seconds long; returns the moment recovery is measured from."""
        if kind == "database":
            self.cluster.stop_immediate()
            time.sleep(outage)
            self.cluster.start()
        else:
            self.redis.kill()
            # The workers live through the outage (what is already in their sockets runs, the rest is lost) and
            # try to reach the broker again while it is away, as they would in production.
            for worker in self.workers:
                worker.freeze(False)
            time.sleep(outage)
            self.redis.start()
        return time.monotonic()

    def lines(self) -> list[str]:
        out = []
        for kind, what in (("database", "PostgreSQL stopped (`pg_ctl stop -m immediate`) while rounds settled"),
                           ("broker", "Redis killed (SIGKILL, nothing persisted) with settlements queued"),
                           ("host", "Every worker of one host killed (SIGKILL) while rounds settled (recovery "
                                    "from the kill)")):
            runs = [f for f in self.done if f["kind"] == kind]
            if not runs:
                continue
            seconds = [f["seconds"] for f in runs]
            downs = sorted({f["outage"] for f in runs})
            out.append(
                f"| {what}, started again "
                f"{'once they were settled' if kind == 'host' else ' or '.join(f'{d:.0f}' for d in downs) + ' s later'}"
                + (" (first the tables' clocks, ahead by up to "
                   f"{max(f['clock lead'] for f in runs):.1f} s, back on the wall clock)" if kind == "host" else "") +
                f" | {len(runs)} | "
                f"{sum(f['rounds'] for f in runs)} rounds waiting ({sum(f['settling at the fault'] for f in runs)} "
                f"not settled at the fault) | {min(seconds):.1f} / {percentile(seconds, 0.5):.1f} / "
                f"{max(seconds):.1f} s | {'met' if max(seconds) < RECOVERY_GOAL_SECONDS else '**not met**'} |")
        return out


def wall_clock_reached(clocks, *, limit: float = 60.0) -> float:
    """Wait until no table's clock is ahead of the wall clock; returns the seconds waited.

    A table's clock runs ahead of the wall clock by the timers the simulator ran out at full speed
    (rounds.simulator.clock.TableClock), and the dealer's completion stamps the round's `settling_at` with it.
    The recovery sweep, on the servers' clock, re-queues a round settling for longer than its grace: a round
    stamped seconds in the servers' future waited that much longer (the two-host soak: a round settling since
    18:16:31 by the wall clock was still "under 5 s" for the sweep at 18:16:40). A studio's completion carries
    the servers' own time, so the faults' rounds are completed once the tables' clocks are back on it."""
    from django.utils import timezone

    started = time.monotonic()
    while clocks and time.monotonic() - started < limit:
        lead = max((clock.now() - timezone.now()).total_seconds() for clock in clocks)
        if lead <= 0:
            break
        time.sleep(min(lead, 1.0))
    return time.monotonic() - started


def rounds_waiting(ids: list[int]) -> int:
    """How many of these rounds are not yet settled, or voided with their refunds done (retries while the
    database comes back)."""
    from django.db import InterfaceError, OperationalError, connections

    from rounds.models import Round

    for _attempt in range(100):
        try:
            return (Round.objects.filter(pk__in=ids).exclude(state="settled")
                    .exclude(state="voided", refunds_done_at__isnull=False).count())
        except (OperationalError, InterfaceError):
            connections.close_all()
            time.sleep(0.1)
    raise SystemExit("the soak's database did not come back")
