"""Demo data for `make run`: the three tables, one user per role, players with balances. Safe to run again."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from accounts import roles
from accounts.services import roles_sync, user_create
from tables.models import Table
from tables.services import table_create
from wallet.services import deposit, golden_chips_grant

DEMO_USERS = [
    # username, password, role, first name
    ("operator", "operator-demo", roles.OPERATOR, "Olivia"),
    ("support", "support-demo", roles.SUPPORT, "Sam"),
    ("alice", "alice-demo", roles.PLAYER, "Alice"),
    ("bob", "bob-demo", roles.PLAYER, "Bob"),
]
DEMO_TABLES = [
    ("FB01", "Free Bet Blackjack", "free_bet"),
    ("LFB1", "Live Free Bet Blackjack", "free_bet_seated"),
    ("LB01", "Live Blackjack", "classic"),
]
DEMO_DEPOSITS = {"alice": 250_000, "bob": 80_000}  # EUR minor units


class Command(BaseCommand):
    help = "Load demo users, tables and balances (idempotent)."

    def handle(self, *args, **options):
        roles_sync()
        users = {name: self._user(name, password, role, first) for name, password, role, first in DEMO_USERS}
        for code, name, profile in DEMO_TABLES:
            if not Table.objects.filter(code=code).exists():
                table_create(actor=users["operator"], code=code, name=name, profile=profile,
                             currencies=["EUR", "USD"], state="open")
        for username, amount in DEMO_DEPOSITS.items():
            deposit(player=users[username], currency="EUR", amount=amount,
                    idempotency_key=f"demo:deposit:{username}:EUR")
        golden_chips_grant(player=users["bob"], currency="EUR", amount=5_000, staff=users["operator"],
                           reason="Welcome Golden Chips (demo)", idempotency_key="demo:golden:bob:EUR")
        self.stdout.write("Demo logins (username / password):")
        for name, password, role, _first in DEMO_USERS:
            self.stdout.write(f"  {role:<9} {name:<9} / {password}")

    def _user(self, username, password, role, first_name):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user = user_create(username=username, password=password, role=role, first_name=first_name,
                               email=f"{username}@demo.example")
        return user
