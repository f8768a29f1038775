from datetime import UTC, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from casino.untrusted import InputError, optional_date_parse
from wallet.reconciliation import reconciliation_days


class Command(BaseCommand):
    help = (
        "The daily reconciliation of a period (UTC days, both included; default yesterday): each day and currency "
        "ties or is listed with what does not tie (docs/reconciliation.md). Exit code 1 when a day does not tie, "
        "so a nightly job can alert finance."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="since", help="first day, YYYY-MM-DD (default: --to)")
        parser.add_argument("--to", dest="until", help="last day, YYYY-MM-DD (default: yesterday)")
        parser.add_argument("--currency", help="one currency only (default: every currency)")

    def handle(self, *args, since=None, until=None, currency=None, **options):
        try:
            end = optional_date_parse(until, field="--to") or timezone.now().astimezone(UTC).date() - timedelta(days=1)
            start = optional_date_parse(since, field="--from") or end
            days = reconciliation_days(start=start, end=end, currency=currency or None)
        except (InputError, ValueError) as error:
            raise CommandError(str(error)) from None
        broken = [day for day in days if not day.ties]
        for day in broken:
            for problem in day.problems:
                self.stderr.write(f"{day.day} {day.currency} [{problem.check}] {problem.message}")
        total = len({day.day for day in days})
        if broken:
            raise CommandError(f"{len({day.day for day in broken})} of {total} days do not tie")
        self.stdout.write(self.style.SUCCESS(
            f"{total} day{'s' if total != 1 else ''} from {start} to {end} tie"
            f" ({', '.join(sorted({d.currency for d in days})) or 'no currency yet'})."))
