import json

from django.core.management.base import BaseCommand, CommandError

from rounds.engine.errors import EngineError
from rounds.engine.rules import SCRIPT_RULE_NAMES
from tables import rtp, rtp_exact, selectors, services
from tables.models import SideBet, Table
from tables.templatetags.tables_format import paytable_text


class Command(BaseCommand):
    help = "Print every theoretical RTP figure of a table: side bets exactly, the main game exactly (infinite " \
           "deck) and, with --simulate, the first hand of a fresh shoe by simulation."

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--table", metavar="CODE", help="table code, e.g. FB01")
        which.add_argument("--rules", metavar="PROFILE", choices=sorted(SCRIPT_RULE_NAMES),
                           help="a profile (free_bet, free_bet_seated, classic_eu, ...), no database needed")
        parser.add_argument("--set", action="append", default=[], metavar="FLAG=VALUE", dest="flags",
                            help="a table flag for --rules (repeatable), e.g. decks=6, charlie=null, "
                                 "dealing=us_peek_before, free_double_totals=[10,11], blackjack_pays=6:5")
        parser.add_argument("--json", action="store_true", help="print every exact figure as JSON")
        parser.add_argument("--simulate", type=int, default=0, metavar="HANDS",
                            help="also simulate this many hands of the first hand of a fresh shoe")
        parser.add_argument("--seed", type=int, default=1, help="simulation seed (default 1)")

    def handle(self, *args, table: str | None, rules: str | None, flags: list[str], simulate: int, seed: int,
               json: bool, **options):
        if rules is not None:
            return self._configuration(rules, flags, as_json=json)
        if flags:
            raise CommandError("--set goes with --rules; a table's flags are its own")
        if json:
            engine_rules = services.table_rules(self._table(table))
            self.stdout.write(_dumps(rtp_exact.configuration_figures(rules=engine_rules)))
            return
        self._table_report(table, simulate, seed)

    def _configuration(self, profile: str, flags: list[str], *, as_json: bool) -> None:
        overrides = dict(_flag(text) for text in flags)
        try:
            engine_rules, rtp_rules = rtp_exact.configuration_rules(profile=profile, flags=overrides)
        except EngineError as error:
            raise CommandError(str(error)) from None
        figures = rtp_exact.configuration_figures(rules=engine_rules, rtp_rules=rtp_rules)
        if as_json:
            self.stdout.write(_dumps(figures))
            return
        main = figures["main_game"]
        out = self.stdout.write
        out(f"{profile} {overrides or ''}: main game {main['rtp'] * 100:.4f} % (TD), "
            f"{main['rtp_composition_dependent'] * 100:.4f} % (CD), variance {main['variance']:.4f}")
        for bet, row in figures["side_bets"].items():
            out(f"  {bet:<14} {row['rtp']['value'] * 100:.4f} %  variance {row['variance']['value']:.4f}")

    def _table(self, code: str):
        try:
            return selectors.table_detail(code=code)
        except Table.DoesNotExist:
            raise CommandError(f"No table with code {code!r}") from None

    def _table_report(self, table: str, simulate: int, seed: int) -> None:
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
        main = rtp_exact.main_game_figures(rtp_exact.rtp_rules_from_engine(rules))
        out(f"Main game, first hand of a fresh {table_obj.decks}-deck shoe (exact, optimal total-dependent "
            f"strategy): {main['rtp'] * 100:.4f} % (composition-dependent {main['rtp_composition_dependent'] * 100:.4f} %)")


def _flag(text: str) -> tuple[str, object]:
    """FLAG=VALUE with VALUE read as JSON where it parses (6, true, null, [9,10,11]), else as text."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise CommandError(f"--set needs FLAG=VALUE, not {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def _dumps(figures: dict) -> str:
    return json.dumps(figures, indent=2, sort_keys=True)
