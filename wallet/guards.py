"""Checks other apps place in the wallet's deposit path, named in settings.WALLET_DEPOSIT_CHECKS (dotted paths),
and in its promotions (settings.WALLET_PROMOTION_CHECKS, run by every Golden Chips grant the same way),
so the wallet imports nothing of theirs. Each is called as check(player=, currency=, amount=, now=) inside the
deposit's transaction, after the player's account lock and after the idempotency key was claimed (a replay of
a deposit that went through is never refused); it raises a DomainError to refuse, and then nothing moves."""

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string


@cache
def _checks(paths: tuple[str, ...]) -> tuple:
    return tuple(import_string(path) for path in paths)


def deposit_checks_run(*, player, currency: str, amount: int, now) -> None:
    for check in _checks(tuple(settings.WALLET_DEPOSIT_CHECKS)):
        check(player=player, currency=currency, amount=amount, now=now)


def promotion_checks_run(*, player, currency: str, amount: int, now) -> None:
    for check in _checks(tuple(settings.WALLET_PROMOTION_CHECKS)):
        check(player=player, currency=currency, amount=amount, now=now)
