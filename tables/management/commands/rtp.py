from django.core.management.base import BaseCommand, CommandError

from tables import rtp, selectors, services
from tables.models import SideBet, Table
from tables.templatetags.tables_format import paytable_text


class Command(BaseCommand):
    help = "Print every theoretical RTP figure of a table: side bets exactly, the main game exactly (infinite " \
           "deck) and, with --simulate, the first hand of a fresh shoe by simulation."

    def add_arguments(self, parser):
        parser.add_argument("--table", required=True, metavar="CODE", help="table code, e.g. FB01")
        parser.add_argument("--simulate", type=int, default=0, metavar="HANDS",
                            help="also simulate this many hands of the first hand of a fresh shoe")
        parser.add_argument("--seed", type=int, default=1, help="simulation seed (default 1)")

    def handle(self, *args, table: str, simulate: int, seed: int, **options):
        try:
            table_obj = selectors.table_detail(code=table)
        except Table.DoesNotExist:
            raise CommandError(f"No table with code {table!r}") from None
        if simulate < 0:
            raise CommandError("--simulate needs a positive number of hands")
        rules = services.table_rules(table_obj)
        out = self.stdout.write
        out(f"Table {table_obj.code} · {table_obj.name}: {rules.name}, {table_obj.decks} decks, "
            f"settings version {table_obj.config_version}")
        out(f"Side bets (exact, {table_obj.decks} decks):")
        for row in selectors.table_paytables(table=table_obj, offered_only=True):
            value = rtp.side_bet_rtp(row.side_bet, row.paytable, table_obj.decks)
            out(f"  {SideBet(row.side_bet).label:<14} {rtp.percent(value):>8} %  = {value}  "
                f"({paytable_text(row.paytable)})")
        if rules.insurance:
            value = rtp.insurance_rtp(table_obj.decks)
            out(f"  {'Insurance':<14} {rtp.percent(value):>8} %  = {value}  (2 to 1, dealer ace up)")
        out(f"Main game, infinite deck, optimal total-dependent strategy (exact): "
            f"{rtp.main_game_infinite_rtp(rules) * 100:.4f} %")
        if simulate:
            from rounds.engine.rtp.simulation import simulate_first_hand_rtp

            result = simulate_first_hand_rtp(rules, simulate, seed)
            out(f"Main game, first hand of a fresh {table_obj.decks}-deck shoe (simulated, {result.hands} hands, "
                f"seed {seed}): {result.estimate * 100:.4f} % ± {result.standard_error * 100:.4f} % (1 SE)")
