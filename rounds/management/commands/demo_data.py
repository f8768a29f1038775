"""Demo data for `make run`: the three tables, an operator, a support user, a handful of players, and a few
hundred rounds played by the table simulator (settled through round_settle, one of them voided as a malfunction).

The rounds are played on a simulated clock over the past days (--days), ending half an hour before the command
runs: each round opens at the time its game number says, its bets, cards and decisions follow at a live studio's
pace and it is settled after its last card, so every timeline and period report reads as real play would.

Safe to run again: users and tables are created once, and the rounds are played only while the demo tables have
none settled yet, so a second `make run` adds nothing.
"""

import time
from base64 import b32encode
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts import roles
from accounts.services import roles_sync, second_factor_enrol_with_key, user_create
from rounds.models import Round, RoundState
from rounds.simulator import ScriptedEvent, SimulationConfig, simulation_run
from rounds.simulator.clock import simulated_time
from rounds.simulator.habits import DEMO_NAMES
from tables.models import Table
from tables.services import table_create

STAFF = [
    # username, password, role, first name
    ("operator", "operator-demo", roles.OPERATOR, "Olivia"),
    ("support", "support-demo", roles.SUPPORT, "Sam"),
]
PLAYER_PASSWORD = "{name}-demo"
# Staff sign in with a second factor. The demo's are enrolled with these known secrets (20 bytes each), printed
# beside the logins: add one to an authenticator app, or ask `manage.py second_factor_code <username>`.
DEMO_TOTP_KEYS = {"operator": b"demo-operator-totp!!", "support": b"demo-support-totp!!!"}
# One table per profile, with the profile's default limits and paytables, and every feature of it switched on.
DEMO_TABLES = [
    ("FB01", "Free Bet Blackjack", "free_bet", {}),
    ("LFB1", "Live Free Bet Blackjack", "free_bet_seated", {"bet_behind": True}),
    ("LB01", "Live Blackjack", "classic", {"bet_behind": True, "multi_seat": True, "deal_now": True,
                                           "auto_confirm": True, "golden_chips": True}),
]
DEMO_PLAYERS = 9
DEMO_ROUNDS = 210
DEMO_SEED = 2026
DEMO_DAYS = 3
# Demo players who play under the Swedish licence: a deposit limit is required before their first deposit, so they
# get one (per month, far above what the simulation deposits) before the simulation deposits for them.
DEMO_SWEDISH_PLAYERS = 3
DEMO_SWEDISH_DEPOSIT_LIMIT = {"period": "month", "currency": "EUR", "value": 50_000_00}
# The last demo round ends well before the command does: nothing in the demo is dated after it finished.
DEMO_ENDS_BEFORE_NOW = timedelta(minutes=30)
# So that the back office shows each of these on first start, whatever the random draws give.
DEMO_EVENTS = (
    ScriptedEvent(table=0, round=7, kind="malfunction", phase="dealing"),
    ScriptedEvent(table=2, round=15, kind="malfunction", phase="dealer"),
    ScriptedEvent(table=1, round=11, kind="pause", phase="decisions"),
)


class Command(BaseCommand):
    help = "Load demo users, tables and a few hundred simulated rounds (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=DEMO_ROUNDS, help=f"rounds to play ({DEMO_ROUNDS})")
        parser.add_argument("--players", type=int, default=DEMO_PLAYERS, help=f"players ({DEMO_PLAYERS})")
        parser.add_argument("--seed", type=int, default=DEMO_SEED, help=f"the simulation's seed ({DEMO_SEED})")
        parser.add_argument("--days", type=int, default=DEMO_DAYS,
                            help=f"the rounds are spread over this many past days ({DEMO_DAYS})")

    def handle(self, *args, **options):
        started = time.monotonic()
        played_until = (timezone.now() - DEMO_ENDS_BEFORE_NOW).replace(microsecond=0)
        played_from = played_until - timedelta(days=max(options["days"], 1))
        roles_sync()
        # The staff and the tables exist an hour before the first demo round (their histories say so).
        with simulated_time(played_from - timedelta(hours=1)):
            staff = {name: self._user(name, password, role, first) for name, password, role, first in STAFF}
            for code, name, profile, features in DEMO_TABLES:
                if not Table.objects.filter(code=code).exists():
                    table_create(actor=staff["operator"], code=code, name=name, profile=profile,
                                 currencies=["EUR", "USD"], state="open", reason="Demo data", **features)
        codes = [code for code, _name, _profile, _features in DEMO_TABLES]
        names = DEMO_NAMES[:options["players"]]
        with simulated_time(played_from - timedelta(hours=1)):
            self._swedish_players(names[:DEMO_SWEDISH_PLAYERS])
        settled = Round.objects.filter(table__code__in=codes, state=RoundState.SETTLED).count()
        if settled:
            self.stdout.write(f"Demo rounds already loaded ({settled} settled at {', '.join(codes)}): "
                              "nothing added.")
        elif options["rounds"]:
            self.stdout.write(f"Playing {options['rounds']} demo rounds at {', '.join(codes)} "
                              f"with {len(names)} players ...")
            report = simulation_run(SimulationConfig(
                tables=len(codes), table_codes=tuple(codes), players=len(names), player_names=tuple(names),
                player_password=PLAYER_PASSWORD, studio="operator", rounds=options["rounds"],
                seed=options["seed"], settle="inline", parallel_tables=False, scripted_events=DEMO_EVENTS,
                disconnect_rate=0.02, late_disconnect_rate=0.005, malfunction_rate=0.005, pause_rate=0.005,
                played_from=played_from, played_until=played_until,
            ))
            self.stdout.write(
                f"  {report.stats['rounds settled']} settled, {report.stats['rounds voided']} voided, "
                f"{report.stats['placements']} placements, {report.stats['cards']} cards, "
                f"in {report.seconds:.0f} s, dated {played_from:%Y-%m-%d %H:%M} to {played_until:%Y-%m-%d %H:%M} UTC"
            )
        secrets = {name: self._authenticator(staff[name], key) for name, key in DEMO_TOTP_KEYS.items()}
        self.stdout.write(f"Demo data ready in {time.monotonic() - started:.0f} s. Logins (username / password):")
        for name, password, role, _first in STAFF:
            self.stdout.write(f"  {role:<9} {name:<9} / {password}   then the code of authenticator secret "
                              f"{secrets[name]}")
        self.stdout.write("  (staff codes without a phone: .venv/bin/python manage.py second_factor_code operator)")
        for name in names:
            if get_user_model().objects.filter(username=name).exists():
                swedish = " (Swedish licence: deposit limit set)" if name in names[:DEMO_SWEDISH_PLAYERS] else ""
                self.stdout.write(f"  {roles.PLAYER:<9} {name:<9} / {PLAYER_PASSWORD.format(name=name)}{swedish}")

    def _swedish_players(self, names) -> None:
        """The first demo players are Swedish (their user made as the simulator makes it, which then finds it),
        with a monthly deposit limit in EUR set before their first deposit."""
        from responsible import services as responsible
        from responsible.jurisdictions import jurisdiction_ensure
        from responsible.models import Jurisdiction, LimitChange, PlayerSettings

        jurisdiction_ensure(Jurisdiction, "SE")
        for name in names:
            user = get_user_model().objects.filter(username=name).first() or user_create(
                username=name, password=PLAYER_PASSWORD.format(name=name), role=roles.PLAYER,
                first_name=name.split("_")[-1].capitalize(), email=f"{name}@sim.example")
            PlayerSettings.objects.get_or_create(player=user, defaults={"jurisdiction_id": "SE"})
            if not LimitChange.objects.filter(player=user, kind="deposit").exists():
                responsible.limit_set(player=user, kind="deposit", **DEMO_SWEDISH_DEPOSIT_LIMIT)

    def _authenticator(self, user, key: bytes) -> str:
        """The demo account's authenticator, enrolled once with its known secret; returns the secret as an app
        takes it (base32). An account reset with second_factor_reset enrols anew at its next sign-in."""
        from django_otp.plugins.otp_totp.models import TOTPDevice

        devices = TOTPDevice.objects.filter(user=user)
        if not devices.exists():
            second_factor_enrol_with_key(user=user, key_hex=key.hex())
        elif not devices.filter(key=key.hex(), confirmed=True).exists():
            return "(your own: this account was enrolled by hand)"
        return b32encode(key).decode()

    def _user(self, username, password, role, first_name):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user = user_create(username=username, password=password, role=role, first_name=first_name,
                               email=f"{username}@demo.example")
        return user
