"""Checks of the values services take from outside: idempotency keys, reasons and other free text, amounts.

Every app's services call these, so a key, a reason or an amount is refused in the same words everywhere; each
caller passes the error it raises, so its API keeps its own codes.
"""

from __future__ import annotations

from casino.api_errors import DomainError


def whole_number(value) -> bool:
    """An int that is not a bool (JSON true must never pass for 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def idempotency_key_check(key, *, max_length: int, error: type[DomainError]) -> str:
    if not isinstance(key, str) or not key.strip():
        raise error("An idempotency key is required (a non-empty string, e.g. a UUID).")
    if len(key) > max_length:
        raise error(f"An idempotency key has at most {max_length} characters.")
    return key


def text_check(value, *, what: str, max_length: int, error: type[DomainError], required: bool = True) -> str:
    """The text without surrounding blanks; `required=False` lets it be empty (or None)."""
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise error(f"A {what} is required." if required else f"A {what} is text.")
    text = value.strip()
    if required and not text:
        raise error(f"A {what} is required.")
    if len(text) > max_length:
        raise error(f"A {what} has at most {max_length} characters.")
    return text


def reason_check(reason, *, max_length: int, error: type[DomainError], required: bool = True) -> str:
    return text_check(reason, what="reason", max_length=max_length, error=error, required=required)


def amount_check(amount, *, what: str, maximum: int, error: type[DomainError], zero_ok: bool = False) -> int:
    """A whole number of minor units, positive (or zero, with `zero_ok`) and at most `maximum`."""
    if not whole_number(amount) or amount < 0 or (amount == 0 and not zero_ok):
        if zero_ok:
            raise error(f"The {what} must be a whole number of minor units, zero or more, not {amount!r}.")
        raise error(f"The {what} must be a positive whole number of minor units, not {amount!r}.")
    if amount > maximum:
        raise error(f"The {what} {amount} is larger than any movement allows.")
    return amount
