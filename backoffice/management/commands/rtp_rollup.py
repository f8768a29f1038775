"""Roll up the daily RTP totals of a range of days (a backfill after an upgrade or a data load)."""

from datetime import UTC, datetime, timedelta

from django.core.management.base import BaseCommand, CommandError

from backoffice.services import rtp_day_rollup


class Command(BaseCommand):
    help = "Recompute the daily RTP totals of the last N whole days (default 90)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=90, help="how many days before today")

    def handle(self, *args, days: int, **options):
        if not 1 <= days <= 3660:
            raise CommandError("--days is from 1 to 3660")
        today = datetime.now(UTC).date()
        rows = 0
        for n in range(days, 0, -1):
            rows += rtp_day_rollup(day=today - timedelta(days=n))
        self.stdout.write(f"{days} days rolled up ({rows} rows).")
