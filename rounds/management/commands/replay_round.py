"""`manage.py replay_round PATH [PATH ...] [--check]`: re-settle round scripts with the pure rules engine.

With PATHs it needs no database and no network, so it skips the system checks and touches the ORM only for
`--game-number N`, which rebuilds a recorded round from its audit trail and replays that.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from rounds.engine.replay import replay_paths, replay_scripts


class Command(BaseCommand):
    help = (
        "Replay round scripts (files, or folders of *.json) and print each result; --check compares expect. "
        "--game-number N replays a recorded round from its audit trail."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "paths", nargs="*", metavar="PATH", help="a script file or a folder of *.json scripts"
        )
        parser.add_argument(
            "--check", action="store_true", help="compare each result with the script's expect"
        )
        parser.add_argument(
            "--game-number", action="append", default=[], metavar="N",
            help="replay a recorded round (its recorded settlement is the expect); may be repeated",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        paths, game_numbers = options["paths"], options["game_number"]
        if not paths and not game_numbers:
            self.stderr.write("replay_round: give at least one PATH or --game-number")
            raise SystemExit(2)
        code = 0
        if paths:
            code = replay_paths(paths, options["check"], out=self.stdout, err=self.stderr)
        for game_number in game_numbers:
            code = max(code, self._replay_recorded(game_number, options["check"]))
        if code:
            raise SystemExit(code)

    def _replay_recorded(self, game_number: str, check: bool) -> int:
        from rounds.selectors import round_by_game_number, round_replay

        round_ = round_by_game_number(game_number=game_number)
        if round_ is None:
            self.stderr.write(f"{game_number}: no round has this game number")
            return 1
        replay = round_replay(round=round_)
        if replay.error:
            self.stderr.write(f"{game_number}: {replay.error}")
            return 1
        code = replay_scripts(((game_number, script) for script in replay.scripts), check, self.stdout, self.stderr)
        if check and replay.differences:
            for difference in replay.differences:
                self.stderr.write(f"{game_number}: {difference}")
            code = 1
        return code
