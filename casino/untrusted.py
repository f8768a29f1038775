"""The one place that turns untrusted text (query strings, form fields, JSON values) into numbers and dates.

Every door calls it: pages, the API, forms. `str.isdigit()` and `int()` are not enough on their own: "²" passes
isdigit and fails int; "١٢" (Arabic-Indic) passes both; int() of 5,000 digits raises, and a 1,000-digit integer
reaches PostgreSQL as an out-of-range bigint. So only ASCII digits count, lengths and values are bounded before
any conversion, and a refusal is an `InputError` whose message can be shown to the person who sent the value.
Amounts in major units ("12.50") are read by casino.money.parse_major, which checks its text here first.
"""

import re
from datetime import date

# The largest value a PostgreSQL bigint (ids, cursors) holds.
MAX_ID = 2**63 - 1
# No amount anywhere in the system (a ledger movement, a stake, a table limit) may exceed this, in minor units.
MAX_AMOUNT_MINOR = 10**12
# Dates the system has or will have data for; the ends leave room for a day's arithmetic either side.
EARLIEST_DATE = date(2000, 1, 1)
LATEST_DATE = date(2999, 12, 31)

_WHOLE = re.compile(r"[0-9]{1,19}", re.ASCII)
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})", re.ASCII)
_SHOWN = 40  # characters of a refused value quoted back in a message


class InputError(ValueError):
    """A value from outside that is not what its field accepts; `message` says so in plain words."""

    def __init__(self, message: str, *, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field


def shown(value: object) -> str:
    """A refused value as a message may quote it: short, and with control characters escaped."""
    text = value if isinstance(value, str) else repr(value)
    text = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
    return repr(text) if isinstance(value, str) else text


def ascii_digits_check(text: str, *, field: str) -> None:
    """Refuse digits other than 0-9 anywhere in `text` (superscripts, other scripts' digits)."""
    if any(ch.isdigit() and not ("0" <= ch <= "9") for ch in text):
        raise InputError(f"'{field}' may only use the digits 0-9, not {shown(text)}.", field=field)


def whole_number_parse(value: object, *, field: str, minimum: int = 0, maximum: int = MAX_ID) -> int:
    """A whole number from a query parameter, a form field or a JSON value, within [minimum, maximum]."""
    if isinstance(value, bool):
        raise InputError(f"'{field}' must be a whole number, not {shown(value)}.", field=field)
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        negative = text.startswith("-")
        digits = text[1:] if negative else text
        if not _WHOLE.fullmatch(digits):
            raise InputError(f"'{field}' must be a whole number written with the digits 0-9, not {shown(value)}.",
                             field=field)
        number = -int(digits) if negative else int(digits)
    else:
        raise InputError(f"'{field}' must be a whole number, not {shown(value)}.", field=field)
    if not minimum <= number <= maximum:
        raise InputError(f"'{field}' must be between {minimum} and {maximum}, not {shown(value)}.", field=field)
    return number


def optional_whole_number_parse(value: object, *, field: str, minimum: int = 0, maximum: int = MAX_ID) -> int | None:
    """As whole_number_parse, but an absent or empty value is None."""
    if value is None or value == "":
        return None
    return whole_number_parse(value, field=field, minimum=minimum, maximum=maximum)


def amount_minor_parse(value: object, *, field: str = "amount", maximum: int = MAX_AMOUNT_MINOR) -> int:
    """An amount in minor units (a JSON number or a string of ASCII digits), positive and at most `maximum`."""
    return whole_number_parse(value, field=field, minimum=1, maximum=maximum)


def date_parse(value: object, *, field: str, earliest: date = EARLIEST_DATE, latest: date = LATEST_DATE) -> date:
    """A calendar date written YYYY-MM-DD, between `earliest` and `latest`."""
    match = _DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise InputError(f"'{field}' must be a date written YYYY-MM-DD, not {shown(value)}.", field=field)
    try:
        day = date(*(int(part) for part in match.groups()))
    except ValueError:
        raise InputError(f"'{field}': {shown(value)} is not a day of the calendar.", field=field) from None
    if not earliest <= day <= latest:
        raise InputError(f"'{field}' must be between {earliest:%Y-%m-%d} and {latest:%Y-%m-%d}, not {value}.",
                         field=field)
    return day


def optional_date_parse(value: object, *, field: str, earliest: date = EARLIEST_DATE,
                        latest: date = LATEST_DATE) -> date | None:
    if value is None or value == "":
        return None
    return date_parse(value, field=field, earliest=earliest, latest=latest)
