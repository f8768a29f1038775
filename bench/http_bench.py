"""HTTP benchmark: bet placement through the game-client API, served by the production web server
(scripts/web.sh: granian), at 10, 50 and 200 concurrent clients in one run.

    .venv/bin/python bench/http_bench.py [--clients 10,50,200] [--seconds 15] [--workers N] [--threads T]
                                         [--server granian|gunicorn] [--quick]

Its own PostgreSQL database (casino_bench_http, dropped and re-created): one open common-draw table with a round
whose betting stays open for the run, 1,000 funded players, each logged in (a session cookie and a CSRF token,
as a browser or game client holds them) and sitting at the table. The web server serves casino.wsgi (--server
gunicorn: gunicorn's sync workers, the server before, for a comparison in the same run); the load comes
from one asyncio process holding one connection per client, each client placing one bet at a time
(POST /api/rounds/<game>/bets/ with an Idempotency-Key) round-robin over its share of the players. Measured, for
each number of clients in turn: requests per second and p50/p99 latency over the window, and the CPU the web
server, PostgreSQL and the load generator used per bet; against pgbench TPC-B (50 clients) on the same machine in the
same run, and, as a floor, GET /healthz (no session, no database) through the same server and 50 clients.
Prints markdown on stdout (bench/run_all.py collects it).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    OUTPUT,
    REPO,
    bench_env,
    database_drop,
    database_recreate,
    machine,
    percentile,
    pg_params,
    pg_version,
    pgbench_tps,
    progress,
)

BENCH_URL = os.environ.get("BENCH_HTTP_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/casino_bench_http")
BROKER_URL = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0")
ENV = bench_env(
    database_url=BENCH_URL, http_clients=True, CELERY_BROKER_URL=BROKER_URL,
    CELERY_RESULT_BACKEND=BROKER_URL[:-1] + "1", CELERY_TASK_DEFAULT_QUEUE=f"bench-http-{os.getpid()}",
    REDIS_URL=BROKER_URL[:-1] + "3", ALLOWED_HOSTS="127.0.0.1",
)
os.environ.update(ENV)
PLAYERS = 1000  # shared out among the clients of each window: no two clients bet for one player at once
STAKE = 2_00
CSRF = "bench0csrf0token0for0the0clients"  # 32 characters: Django's unmasked CSRF secret format
GOAL_SHARE, GOAL_TAIL, GOAL_CLIENTS = 0.25, 1.5, 50  # issue 19: >= 25 % of pgbench, p99 <= 1.5 x p50 at 50


def setup(players: int) -> dict:
    """A round with betting open (120 s, the most a table allows), funded players, and a logged-in session for
    each."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore  # noqa: N806 - Django's name
    from django.core.management import call_command

    from accounts.services import roles_sync, user_create
    from players.services import table_join
    from rounds import services
    from rounds.simulator.threads import parallel
    from tables.services import table_create
    from wallet.services import deposit

    call_command("migrate", verbosity=0)
    roles_sync()
    studio = user_create(username="bench_studio", password=None, role="operator")
    table = table_create(actor=studio, code="HTTP01", name="HTTP bench", profile="free_bet", currencies=["EUR"],
                         state="open", betting_seconds=120, decision_seconds=60, reason="HTTP benchmark")

    def player(index: int) -> tuple[int, str]:
        user = user_create(username=f"http{index:05d}", password=None, role="player")
        deposit(player=user, currency="EUR", amount=1_000_00, idempotency_key=f"http-bench-{index}")
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.ROLE_BACKEND
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        # Sitting at the table in that session: the bet's play gate (rounds.presence) checks it.
        table_join(player=user, table=table, session_key=session.session_key)
        return user.pk, session.session_key

    sessions = parallel(range(players), player, threads=4)
    services.shoe_start(table=table, actor=studio)
    round = services.round_open(table=table, actor=studio)
    return {"game_number": round.game_number, "round_id": round.pk, "sessions": [key for _pk, key in sessions],
            "deadline": round.deadline.timestamp()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_start(kind: str, port: int, workers: int, threads: int) -> subprocess.Popen:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    log = open(OUTPUT / f"http-bench-{kind}.log", "w")  # noqa: SIM115 - owned by the process
    env = {**os.environ, **ENV, "WEB_BIND": f"127.0.0.1:{port}", "WEB_WORKERS": str(workers),
           "WEB_THREADS": str(threads), "WEB_PYTHON_BIN": str(Path(sys.executable).parent)}
    if kind == "granian":
        command = [str(REPO / "scripts" / "web.sh")]
    else:
        # --preload: the workers fork from a master that has loaded Django, so none is still booting when the
        # clients start.
        command = [str(Path(sys.executable).parent / "gunicorn"), "casino.wsgi", "-b", f"127.0.0.1:{port}",
                   "-w", str(workers), "--preload", "--log-level", "warning"]
        if threads > 1:
            command += ["-k", "gthread", "--threads", str(threads), "--keep-alive", "30"]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    return server_wait(proc, port, log.name)


def server_wait(proc: subprocess.Popen, port: int, log_name: str) -> subprocess.Popen:
    """The server once GET /healthz answers 200 (a port that accepts can still be loading Django)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the web server exited with {proc.returncode}; see {log_name}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if sock.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the web server did not answer GET /healthz within 60 s; see {log_name}")


class Client:
    """One game client: a keep-alive HTTP/1.1 connection, placing one bet at a time for its players."""

    def __init__(self, port: int, path: str, sessions: list[str], *, floor: bool = False):
        self.port = port
        self.path = path
        self.sessions = sessions
        self.floor = floor
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.reconnects = 0
        self.body = json.dumps({"currency": "EUR", "bets": {"main": STAKE}}).encode()

    async def connect(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.reconnects += 1

    async def bet(self, session: str) -> int:
        request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" if self.floor else (
            f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(self.body)}\r\nCookie: sessionid={session}; csrftoken={CSRF}\r\n"
            f"X-CSRFToken: {CSRF}\r\nIdempotency-Key: {uuid.uuid4().hex}\r\n\r\n"
        ).encode() + self.body
        for attempt in range(2):
            try:
                if self.writer is None:
                    await self.connect()
                self.writer.write(request)
                await self.writer.drain()
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionError("closed")
                status = int(status_line.split()[1])
                length, close = 0, False
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                    elif name.lower() == "connection" and value.strip().lower() == "close":
                        close = True
                await self.reader.readexactly(length)
                if close:
                    self.writer.close()
                    self.writer = None
                return status
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                self.writer = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def run(self, start: float, measure_from: float, end: float) -> None:
        await asyncio.sleep(max(0.0, start - time.time()))
        index = 0
        while (now := time.time()) < end:
            status = await self.bet(self.sessions[index % len(self.sessions)])
            index += 1
            if now >= measure_from:
                self.latencies.append(time.time() - now)
                self.statuses[status] = self.statuses.get(status, 0) + 1


async def load(port: int, path: str, sessions: list[str], *, clients: int, warmup: float, seconds: float,
               floor: bool = False) -> dict:
    pool = [Client(port, path, sessions[c::clients], floor=floor) for c in range(clients)]
    for client in pool:
        await client.connect()
    start = time.time() + 0.5
    await asyncio.gather(*(client.run(start, start + warmup, start + warmup + seconds) for client in pool))
    latencies = [value for client in pool for value in client.latencies]
    statuses: dict[int, int] = {}
    for client in pool:
        for status, count in client.statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    return {"requests": len(latencies), "per_second": len(latencies) / seconds, "statuses": statuses,
            "p50_ms": percentile(latencies, 0.5) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000,
            "reconnects": sum(c.reconnects for c in pool) - clients}


SERVER_PID = 0  # the server's first process, once started: it and its children count as "web server"


def cpu_ticks() -> dict[str, int]:
    """CPU time (clock ticks) used so far by the processes of each group: this run's web server, the
    PostgreSQL backends of this run's database, the load generator, the rest. The database server is shared
    with whatever else runs on the machine: a backend counts only if it serves this benchmark's database, and
    one that ends during the window cannot take its ticks with it from the group."""
    ticks: dict[str, int] = {}
    database = pg_params(BENCH_URL)["db"]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            name, fields = text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()
            if name.startswith("postgres"):
                serves = f" {database} " in (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                    errors="replace") + " "
                group = f"postgres:{stat.parent.name}" if serves else "other"
            elif SERVER_PID in (int(stat.parent.name), int(fields[1])):
                group = "web"
            else:
                group = "load generator" if stat.parent.name == str(os.getpid()) else "other"
        except (OSError, ValueError):
            continue
        ticks[group] = ticks.get(group, 0) + int(fields[11]) + int(fields[12])
    return ticks


def _grouped(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Ticks used between two readings per group; each PostgreSQL backend on its own, then summed."""
    used: dict[str, int] = {}
    for group, value in after.items():
        name = "postgres" if group.startswith("postgres:") else group
        used[name] = used.get(name, 0) + max(0, value - before.get(group, 0))
    return used


async def measured(run, *, warmup: float, seconds: float) -> dict:
    """Run the load and sample the CPU each group used over the measured window (in cores)."""
    task = asyncio.ensure_future(run)
    await asyncio.sleep(0.5 + warmup)
    before, start = cpu_ticks(), time.monotonic()
    await asyncio.sleep(seconds - 0.5)
    after, elapsed = cpu_ticks(), time.monotonic() - start
    figures = await task
    hz = os.sysconf("SC_CLK_TCK")
    figures["cores"] = {group: used / hz / elapsed for group, used in _grouped(before, after).items()}
    return figures


def statements_per_request(info: dict) -> list[str]:
    """The SQL statements of one bet request besides BEGIN and COMMIT, the connection's health check included:
    the second of two, sent in-process through casino.wsgi.application (the server's own entry, so the bet
    path's chain and view) as a server process that has placed a bet in this round before runs it."""
    from django.db import connection

    from casino.wsgi import application

    body = json.dumps({"currency": "EUR", "bets": {"main": STAKE}}).encode()
    statements: list[str] = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    def is_usable():  # Django's CONN_HEALTH_CHECKS: a round trip of its own, outside execute_wrapper
        statements.append("SELECT 1")
        return usable()

    def start_response(status, headers, exc_info=None):
        replies.append(status)

    usable, replies = connection.is_usable, []
    connection.is_usable = is_usable
    try:
        for _ in range(2):
            statements.clear()
            environ = {
                "REQUEST_METHOD": "POST", "PATH_INFO": f"/api/rounds/{info['game_number']}/bets/", "SCRIPT_NAME": "",
                "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1",
                "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
                "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": "127.0.0.1",
                "HTTP_COOKIE": f"sessionid={info['sessions'][-1]}; csrftoken={CSRF}", "HTTP_X_CSRFTOKEN": CSRF,
                "HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex,
            }
            with connection.execute_wrapper(count):
                answer = b"".join(application(environ, start_response))
            if not replies[-1].startswith("201"):
                raise SystemExit(f"the in-process bet was refused: {replies[-1]} {answer[:200]!r}")
    finally:
        connection.is_usable = usable
    return list(statements)


def checks(info: dict) -> dict:
    from rounds.models import RoundBet
    from wallet.audit import ledger_audit_run

    statements = statements_per_request(info)
    problems = ledger_audit_run()
    if problems:
        raise SystemExit("the ledger audit failed:\n" + "\n".join(map(str, problems[:20])))
    return {"bets": RoundBet.objects.filter(round_id=info["round_id"]).count(), "statements": statements}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="10,50,200",
                        help="numbers of concurrent clients, one window each, comma-separated")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--server", choices=("granian", "gunicorn"), default="granian",
                        help="granian: scripts/web.sh, the production server; gunicorn: the server before")
    parser.add_argument("--workers", type=int,
                        help="web server processes (default: granian one per CPU, gunicorn CPU + 1, the most bets "
                             "per second of each on the 2-CPU machine)")
    parser.add_argument("--threads", type=int,
                        help="threads per process (default: granian 4; gunicorn 1, sync workers; more: gthread)")
    parser.add_argument("--quick", action="store_true", help="3-second smoke windows, no pgbench")
    parser.add_argument("--no-pgbench", action="store_true", help="skip the pgbench reference")
    args = parser.parse_args()
    args.clients = [int(n) for n in str(args.clients).split(",")]
    cpus = os.cpu_count() or 2
    if args.workers is None:
        args.workers = cpus if args.server == "granian" else cpus + 1
    if args.threads is None:
        args.threads = 4 if args.server == "granian" else 1
    if args.quick:
        args.seconds, args.warmup = 3, 1
    pg = pg_params(BENCH_URL)
    version = pg_version(pg)
    tps = scale = None
    if not (args.quick or args.no_pgbench):
        progress(f"pgbench: {GOAL_CLIENTS} clients for {args.seconds} s ...")
        tps, scale = pgbench_tps(pg, clients=GOAL_CLIENTS, seconds=args.seconds)
        progress(f"  {tps:,.0f} tps")
    database_recreate(pg, pg["db"])

    import django

    django.setup()
    from django.db import connections

    progress(f"http bench: {PLAYERS:,} players and their sessions ...")
    info = setup(PLAYERS)
    connections.close_all()
    port = free_port()
    server = server_start(args.server, port, args.workers, args.threads)
    global SERVER_PID
    SERVER_PID = server.pid
    path = f"/api/rounds/{info['game_number']}/bets/"
    windows: dict[int, dict] = {}
    try:
        needed = len(args.clients) * (args.warmup + args.seconds + 1) + 1 + args.seconds + 10
        if time.time() + needed > info["deadline"]:
            raise SystemExit(f"the round's betting closes before the {needed} s of windows would end: fewer "
                             "client counts or shorter --seconds")
        for clients in args.clients:
            progress(f"  {args.server}, {args.workers} processes x {args.threads} threads; {clients} clients for "
                     f"{args.warmup} + {args.seconds} s ...")
            windows[clients] = asyncio.run(measured(load(port, path, info["sessions"], clients=clients,
                                                         warmup=args.warmup, seconds=args.seconds),
                                                    warmup=args.warmup, seconds=args.seconds))
            progress(f"  {windows[clients]['per_second']:,.0f} bets/s")
        progress(f"  the floor, GET /healthz, {GOAL_CLIENTS} clients for {args.seconds} s ...")
        floor = asyncio.run(measured(load(port, "/healthz", info["sessions"], clients=GOAL_CLIENTS, warmup=1,
                                          seconds=args.seconds, floor=True), warmup=1, seconds=args.seconds))
    finally:
        server.terminate()
        server.wait(timeout=30)
    check = checks(info)
    print(report(args, windows, floor, check, tps, scale, version))
    connections.close_all()
    database_drop(pg, pg["db"])
    return 0


def _cpu_per_bet(figures: dict) -> dict[str, float]:
    """CPU milliseconds per bet of each process group over the window."""
    rps = figures["per_second"]
    return {group: used / rps * 1000 for group, used in figures["cores"].items() if used > 0.01} if rps else {}


def report(args, windows: dict[int, dict], floor: dict, check: dict, tps: float | None, scale: int | None,
           version: str) -> str:
    server = (f"granian (`scripts/web.sh`, WEB_WORKERS={args.workers}, WEB_THREADS={args.threads}; keep-alive)"
              if args.server == "granian" else
              f"`gunicorn casino.wsgi -w {args.workers} -k gthread --threads {args.threads} --preload`"
              if args.threads > 1 else f"`gunicorn casino.wsgi -w {args.workers} --preload` (sync workers)")
    rows = []
    for clients, figures in windows.items():
        rps, p50, p99 = figures["per_second"], figures["p50_ms"], figures["p99_ms"]
        cpu = _cpu_per_bet(figures)
        others = {status: n for status, n in sorted(figures["statuses"].items()) if status != 201}
        share = f"{rps / tps:.1%}" if tps else "—"
        rows.append(
            f"| {clients} | **{rps:,.0f}** | {share} | {p50:.1f} ms | {p99:.1f} ms | {p99 / p50 if p50 else 0:.2f} | "
            f"{cpu.get('web', 0):.2f} / {cpu.get('postgres', 0):.2f} / {cpu.get('load generator', 0):.2f} / "
            f"{cpu.get('other', 0):.2f} ms | {(os.cpu_count() or 2) * 1000 / rps if rps else 0:.2f} ms | "
            f"{figures['statuses'].get(201, 0):,}{' (other answers: ' + str(others) + ')' if others else ''} |")
    goal_window = windows.get(GOAL_CLIENTS)
    if goal_window and tps:
        share_ok = goal_window["per_second"] >= GOAL_SHARE * tps
        tail_ok = goal_window["p99_ms"] <= GOAL_TAIL * goal_window["p50_ms"]
        goal = (f"at {GOAL_CLIENTS} clients: {goal_window['per_second'] / tps:.1%} of pgbench (goal ≥ "
                f"{GOAL_SHARE:.0%}: {'met' if share_ok else 'missed'}), p99 {goal_window['p99_ms'] / goal_window['p50_ms']:.2f}"
                f" × p50 (goal ≤ {GOAL_TAIL}: {'met' if tail_ok else 'missed'})")
    else:
        goal = "no pgbench reference in this run (--quick or --no-pgbench): no ratio"
    pgbench = (f"pgbench TPC-B, {GOAL_CLIENTS} clients, `-j 2 -T {args.seconds}`, scale {scale}: **{tps:,.0f} tps**"
               if tps else "pgbench: not run")
    floor_cpu = f", {_cpu_per_bet(floor).get('web', 0):.2f} ms of the web server's CPU per request"
    statements = check["statements"]
    shown = GOAL_CLIENTS if GOAL_CLIENTS in windows else next(iter(windows))
    return f"""Measured by `bench/http_bench.py` on {machine()}, {version}; the web server, PostgreSQL, the load
generator and pgbench ran on this one machine, one after the other.

- Reference, same run: {pgbench}; floor: `GET /healthz` (Django's middleware, no session, no database), same
  server, {GOAL_CLIENTS} clients: {floor['per_second']:,.0f} requests/s, p50 {floor['p50_ms']:.1f} ms, p99 {floor['p99_ms']:.1f} ms{floor_cpu}.
- Goal: {goal}.

| Clients | Bets/s | Share of pgbench | p50 | p99 | p99 / p50 | CPU per bet: web server / PostgreSQL / load generator / rest of the machine | The machine's two CPUs per bet | Bets placed (201) |
|---|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

- Server: {server}, DEBUG off, PostgreSQL with persistent connections and prepared statements. Clients: one
  asyncio process, one HTTP/1.1 connection per client, opened again only when the server closes it (gunicorn's sync
  workers do after each response; {windows[shown]['reconnects']:,} reconnections in the {shown}-client run), one bet
  at a time, round-robin over its share of {PLAYERS:,} logged-in players sitting at the table (session cookie +
  CSRF token), a fresh Idempotency-Key per request, {args.seconds} s per window after {args.warmup} s of warm-up.
- {check['bets']:,} bets held in the round in all (warm-ups included); the ledger audit is clean afterwards.
- A bet request is {len(statements)} SQL statements (besides BEGIN and COMMIT, counted in-process through
  casino.wsgi.application on a second bet of one player, as a server process that has seen the round runs it): {'; '.join(_statement_names(statements))}.
- With every client always waiting, latency is clients / throughput (Little's law): p99 within {GOAL_TAIL} × p50
  says the tail is queueing, not stalls; throughput is the two CPUs divided by the CPU one bet costs.
"""


def _statement_names(statements: list[str]) -> list[str]:
    names = []
    for sql in statements:
        text = " ".join(sql.split())
        if "django_session" in text:
            names.append("the session with its user and their permissions" if "auth_permission" in text
                         else "the session")
        elif "auth_permission" in text:
            names.append("the user with their permissions")
        elif "players_tablepresence" in text:
            names.append("the round with the session's presence at its table" if "game_number" in text
                         else "the session's presence at the round's table")
        elif "WHERE game_number" in text:
            names.append("the round id by game number")
        elif "rounds_bet_place" in text:
            names.append("the placement (`rounds_bet_place`: request row, locks, checks, hold, bets, event)")
        elif text == "SELECT 1":
            names.append("the connection's health check (`SELECT 1`)")
        elif text.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")):
            names.append(text.split('"')[0].strip().lower())
        else:
            names.append(f"`{text[:60]}...`")
    return names


if __name__ == "__main__":
    sys.exit(main())
