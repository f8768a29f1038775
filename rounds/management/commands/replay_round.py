"""`manage.py replay_round PATH [PATH ...] [--check]`: re-settle round scripts with the pure rules engine.

It needs no database and no network, so it skips the system checks and never touches the ORM.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from rounds.engine.replay import replay_paths


class Command(BaseCommand):
    help = (
        "Replay round scripts (files, or folders of *.json) and print each result; --check compares expect."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        # PATHs are optional in the parser so a later --game-number N can replay a recorded round instead.
        parser.add_argument(
            "paths", nargs="*", metavar="PATH", help="a script file or a folder of *.json scripts"
        )
        parser.add_argument(
            "--check", action="store_true", help="compare each result with the script's expect"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["paths"]:
            self.stderr.write("replay_round: give at least one PATH")
            raise SystemExit(2)
        code = replay_paths(options["paths"], options["check"], out=self.stdout, err=self.stderr)
        if code:
            raise SystemExit(code)
