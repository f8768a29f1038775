"""A staff member lost their phone (or their recovery codes): remove their second factor so they enrol again."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts.services import second_factor_reset


class Command(BaseCommand):
    help = ("Remove a staff user's authenticator and recovery codes; at their next sign-in they enrol a new "
            "authenticator (check who is asking before running this).")

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}")
        removed = second_factor_reset(user=user)
        self.stdout.write(f"{username}: {removed} device{'s' if removed != 1 else ''} removed. They enrol a new "
                          "authenticator at their next sign-in; sessions already verified must verify again.")
