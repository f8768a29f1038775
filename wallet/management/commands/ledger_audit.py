from django.core.management.base import BaseCommand, CommandError

from wallet.audit import ledger_audit_run
from wallet.models import Account, Bet, LedgerTransaction


class Command(BaseCommand):
    help = (
        "Recompute every balance from the ledger's entries, check every transaction sums to zero per currency, "
        "every bet is resolved at most once and bets in play equal the unresolved bets; and the checks other "
        "apps register, such as stakes stranded in rounds that ended or got stuck. Exit code 1 on any "
        "discrepancy."
    )

    def handle(self, *args, **options):
        discrepancies = ledger_audit_run()
        for discrepancy in discrepancies:
            self.stderr.write(str(discrepancy))
        if discrepancies:
            raise CommandError(f"ledger audit found {len(discrepancies)} discrepancies")
        self.stdout.write(self.style.SUCCESS(
            f"Ledger sound: {Account.objects.count()} accounts, {LedgerTransaction.objects.count()} transactions, "
            f"{Bet.objects.count()} bets checked."
        ))
