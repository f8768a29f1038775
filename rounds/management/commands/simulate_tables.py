"""Play live tables: a studio and simulated players drive real rounds through the services or the API.

    python manage.py simulate_tables [--tables 3] [--players 12] [--rounds 30] [--seed 1] [--speed 0]
                                     [--via services|api] [--settle worker|inline] [--no-progress] ...

With --settle worker (the default) a Celery worker must consume this database's queue: the simulator waits for
it to settle each round. --settle inline calls round_settle (what the worker's task runs) itself.
"""

from django.core.management.base import BaseCommand, CommandError

from rounds.simulator import SimulationConfig, simulation_run
from rounds.simulator.table_base import SimulationStuck


class Command(BaseCommand):
    help = "Play live tables with simulated players through the real services or API (reproducible from --seed)."

    def add_arguments(self, parser):
        defaults = SimulationConfig()
        parser.add_argument("--tables", type=int, default=defaults.tables,
                            help="tables, one profile after the other: free_bet, free_bet_seated, classic (3)")
        parser.add_argument("--players", type=int, default=defaults.players,
                            help="simulated players, shared out over the tables (12)")
        parser.add_argument("--rounds", type=int, default=defaults.rounds, help="rounds in all (30)")
        parser.add_argument("--seed", type=int, default=defaults.seed,
                            help="the same seed replays the same games on a fresh prefix or database (1)")
        parser.add_argument("--speed", type=float, default=defaults.speed,
                            help="0: as fast as possible, timers run out at once; 1: a live studio's pace; "
                                 "10: ten times faster (timers still take their real time) (0)")
        parser.add_argument("--prefix", default=defaults.prefix,
                            help="of the table codes and user names this run creates or reuses (SIM)")
        parser.add_argument("--table", action="append", dest="table_codes", default=[],
                            help="play this table code instead (repeat for each table; created if missing)")
        parser.add_argument("--via", choices=("services", "api"), default=defaults.via,
                            help="call the services, or go through the HTTP API as the clients do (services)")
        parser.add_argument("--settle", choices=("worker", "inline"), default=defaults.settle,
                            help="wait for the Celery worker to settle, or call round_settle here (worker)")
        parser.add_argument("--sequential", action="store_true", help="play the tables one after the other")
        parser.add_argument("--player-threads", type=int, default=defaults.player_threads,
                            help="threads acting for the players of a common-draw table (1)")
        parser.add_argument("--disconnect-rate", type=float, default=defaults.disconnect_rate)
        parser.add_argument("--late-disconnect-rate", type=float, default=defaults.late_disconnect_rate)
        parser.add_argument("--malfunction-rate", type=float, default=defaults.malfunction_rate)
        parser.add_argument("--pause-rate", type=float, default=defaults.pause_rate)
        parser.add_argument("--duplicate-task-rate", type=float, default=defaults.duplicate_task_rate,
                            help="share of settle/void tasks sent twice, as a broker may deliver them (0)")
        parser.add_argument("--currency", default=defaults.currency)
        parser.add_argument("--progress", action="store_true", default=None, help="show a progress bar")
        parser.add_argument("--no-progress", action="store_false", dest="progress")

    def handle(self, *args, **options):
        config = SimulationConfig(
            tables=len(options["table_codes"]) or options["tables"], players=options["players"],
            rounds=options["rounds"], seed=options["seed"], speed=options["speed"], prefix=options["prefix"],
            table_codes=tuple(options["table_codes"]), via=options["via"], settle=options["settle"],
            parallel_tables=not options["sequential"], player_threads=options["player_threads"],
            disconnect_rate=options["disconnect_rate"], late_disconnect_rate=options["late_disconnect_rate"],
            malfunction_rate=options["malfunction_rate"], pause_rate=options["pause_rate"],
            duplicate_task_rate=options["duplicate_task_rate"], currency=options["currency"],
        )
        try:
            config.check()
        except ValueError as error:
            raise CommandError(str(error)) from None
        show = options["progress"]
        if show is None:
            show = self.stderr.isatty()
        def progress(text: str) -> None:
            self.stderr.write(text, ending="")
            self.stderr.flush()

        try:
            report = simulation_run(config, progress=progress if show else None)
        except SimulationStuck as error:
            raise CommandError(str(error)) from None
        for line in report.lines():
            self.stdout.write(line)
