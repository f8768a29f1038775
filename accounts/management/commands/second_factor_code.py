"""The demo's stand-in for a phone: the code a demo account's authenticator shows now. DEBUG only."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.sign_in import totp_code_now


class Command(BaseCommand):
    help = "Print the current authenticator code of a demo account (only with DEBUG=1, as `make run` sets it)."

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username, **options):
        if not settings.DEBUG:
            raise CommandError("Only for the demo (DEBUG=1): a real account's code comes from its owner's phone.")
        device = TOTPDevice.objects.filter(user__username=username, confirmed=True).first()
        if device is None:
            raise CommandError(f"{username!r} has no authenticator enrolled")
        self.stdout.write(totp_code_now(device))
