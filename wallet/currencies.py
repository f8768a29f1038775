"""The wallet's view of the shared currency registry (casino.money), with the wallet's own error types."""

from casino.money import CURRENCIES, AmountError, Currency, format_minor, parse_major
from casino.money import currency_get as _currency_get
from wallet.errors import InvalidAmount, UnknownCurrency

__all__ = ["CURRENCIES", "Currency", "currency_get", "money_format", "money_parse"]


def currency_get(code: str) -> Currency:
    try:
        return _currency_get(code)
    except AmountError as error:
        raise UnknownCurrency(str(error)) from None


def money_format(amount: int, currency: str, *, with_code: bool = True, grouping: bool = True) -> str:
    currency_get(currency)
    return format_minor(amount, currency, with_code=with_code, grouping=grouping)


def money_parse(text: str, currency: str) -> int:
    currency_get(currency)
    try:
        return parse_major(text, currency)
    except AmountError as error:
        raise InvalidAmount(str(error)) from None
