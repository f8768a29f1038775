"""A player's statement of a period: for each of their accounts, the opening balance, every transaction with
the running balance after it, and the closing balance, in the reader's language (English or Swedish).

The lines are the account history's own (wallet.selectors.account_history_iter): the statement adds the
opening balance and the running sum, so it says exactly what the account pages say. The running balance is
worked out as opening + the amounts so far, not copied from the ledger's balance_after, so the statement's
arithmetic can be followed line by line (the tests prove the two agree).
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from babel.numbers import get_decimal_symbol
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.locale_formats import babel_locale, time_in
from casino.money import currency_get
from casino.query_params import date_param
from wallet import selectors as wallet_selectors
from wallet.models import Account
from wallet.selectors import HistoryFilter, HistoryRow

# A longer period is asked as several statements: a year at a time keeps one statement's reads bounded.
MAX_DAYS = 366
# The page shows this many lines per account; the CSV has them all.
PAGE_LINES = 500


@dataclass(frozen=True)
class StatementLine:
    row: HistoryRow
    balance: int  # the running balance after this line


@dataclass(frozen=True)
class AccountStatement:
    account: Account
    opening: int
    closing: int
    count: int
    money_in: int
    money_out: int

    @property
    def name(self) -> str:
        return f"{self.account.get_kind_display()} {self.account.currency}"

    def lines(self, *, since: date, until: date) -> Iterator[StatementLine]:
        balance = self.opening
        for row in wallet_selectors.account_history_iter(
                account=self.account, filter=HistoryFilter(since=since, until=until), oldest_first=True):
            balance += row.amount
            yield StatementLine(row=row, balance=balance)


@dataclass(frozen=True)
class Statement:
    player: object
    since: date
    until: date
    accounts: list[AccountStatement]


def statement_period(raw_from: str | None, raw_to: str | None, *, today: date | None = None) -> tuple[date, date]:
    """The period asked (?from=&to=, UTC days, both included): by default this month to today. ValueError says
    what is wrong, in the reader's language."""
    today = today or timezone.now().astimezone(UTC).date()
    until = date_param(raw_to, "to") or today
    since = date_param(raw_from, "from") or until.replace(day=1)
    if since > until:
        raise ValueError(_("The period starts after it ends."))
    if (until - since).days + 1 > MAX_DAYS:
        raise ValueError(_("A statement covers at most %(days)s days; ask for several.") % {"days": MAX_DAYS})
    return since, until


def statement_build(*, player, since: date, until: date) -> Statement:
    """Each account the player holds: its opening, closing and the period's totals (the lines are read lazily,
    so a long period streams)."""
    kept = HistoryFilter(since=since, until=until)
    accounts = []
    for account in wallet_selectors.player_accounts(player=player):
        opening = wallet_selectors.account_balance_before(account=account, day=since)
        totals = wallet_selectors.account_history_totals(account=account, filter=kept)
        accounts.append(AccountStatement(account=account, opening=opening, closing=opening + totals["net"],
                                         count=totals["count"], money_in=totals["in"], money_out=totals["out"]))
    return Statement(player=player, since=since, until=until, accounts=accounts)


def amount_in(amount: int, currency: str, *, language: str) -> str:
    """Minor units as a spreadsheet of that language reads a number: no grouping, the language's decimal sign,
    an ASCII minus ("-1234,50" in Swedish, "-1234.50" in English)."""
    exponent = currency_get(currency).exponent
    sign, digits = ("-" if amount < 0 else ""), f"{abs(amount):0{exponent + 1}d}"
    if not exponent:
        return sign + digits
    return f"{sign}{digits[:-exponent]}{get_decimal_symbol(babel_locale(language))}{digits[-exponent:]}"


def csv_delimiter(language: str) -> str:
    """Where the decimal sign is a comma (Swedish), spreadsheets expect fields split by semicolons."""
    return ";" if get_decimal_symbol(babel_locale(language)) == "," else ","


def _game_cell(row) -> str:
    # Only a round's money has a game number; a tip's reference is its table (wallet.selectors.HistoryRow).
    if row.round_number:
        return row.round_number
    return _("Table %(code)s") % {"code": row.table_code} if row.table_code else ""


def statement_csv_lines(statement: Statement, *, language: str) -> Iterator[str]:
    """The statement as CSV lines, in the active language (the caller overrides it): per account an opening
    line, its transactions oldest first with the running balance, and a closing line."""

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo(), delimiter=csv_delimiter(language))
    yield writer.writerow([_("Account"), _("Currency"), _("Date (UTC)"), _("Type"), _("Game number"),
                           _("Description"), _("Amount"), _("Balance")])
    for part in statement.accounts:
        cur = part.account.currency
        start = datetime.combine(statement.since, datetime.min.time(), tzinfo=UTC)
        yield writer.writerow([part.name, cur, time_in(start, language=language), _("Opening balance"), "", "", "",
                               amount_in(part.opening, cur, language=language)])
        for line in part.lines(since=statement.since, until=statement.until):
            row = line.row
            yield writer.writerow([part.name, cur, time_in(row.created_at, language=language), str(row.kind_label),
                                   _game_cell(row), row.explanation, amount_in(row.amount, cur, language=language),
                                   amount_in(line.balance, cur, language=language)])
        end = datetime.combine(statement.until + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
        yield writer.writerow([part.name, cur, time_in(end, language=language), _("Closing balance"), "", "", "",
                               amount_in(part.closing, cur, language=language)])
