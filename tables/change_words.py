"""A configuration change in plain sentences, from the whole configuration before and after it (TableChange keeps
both): "Decks changed from 8 to 6.", "Main bet in GBP: chips 1.00, 5.00 GBP became 1.00, 5.00, 25.00 GBP."
Money in its currency, codes by their names (tables.labels), never a dotted key or a list in minor units. The
stored one-line summary stays as it was written (it is part of the immutable record); pages read these."""

from __future__ import annotations

from typing import Any

from casino.money import format_minor
from tables import labels

# Settings whose value is a code with a name; the rest are numbers, words, yes/no or seconds.
_CHOICE_LABELS = {
    "profile": labels.profile_label, "dealing": labels.dealing_label, "timeout_rule": labels.timeout_rule_label,
    "disconnect_policy": labels.disconnect_policy_label, "state": labels.table_state_label,
}
_SECONDS = ("betting_seconds", "decision_seconds", "non_live_deadline")
_SKIPPED = ("config_version", "code", "limits", "paytables", "side_bets", "currencies")


def _seconds(value: int) -> str:
    if value and value % 3600 == 0:
        hours = value // 3600
        return f"{hours} hour{'s' if hours != 1 else ''}"
    if value and value % 60 == 0 and value >= 120:
        return f"{value // 60} minutes"
    return f"{value} s"


def _setting_value(key: str, value: Any) -> str:
    if value is None:
        return {"charlie_cards": "no Charlie rule", "seats": "unlimited (common draw)"}.get(key, "none")
    if key in _CHOICE_LABELS:
        return _CHOICE_LABELS[key](value)
    if key in _SECONDS:
        return _seconds(int(value))
    if key == "charlie_cards":
        return f"{value} cards win"
    if key == "dealer_22_push":
        return "pushes" if value else "busts"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _names(codes, name) -> str:
    return ", ".join(name(code) for code in codes) or "none"


def _chips(chips: list[int], currency: str) -> str:
    return ", ".join(format_minor(c, currency, with_code=False) for c in chips) + f" {currency}"


def _limit_sentences(before: dict, after: dict) -> list[str]:
    out = []
    for bet in sorted(set(before) | set(after)):
        old_by_currency, new_by_currency = before.get(bet, {}), after.get(bet, {})
        for currency in sorted(set(old_by_currency) | set(new_by_currency)):
            old, new = old_by_currency.get(currency), new_by_currency.get(currency)
            name = f"{labels.bet_type_label(bet)} in {currency}"
            if old == new:
                continue
            if old is None:
                out.append(f"{name} added: from {format_minor(new['min'], currency)} to "
                           f"{format_minor(new['max'], currency)}, chips {_chips(new['chips'], currency)}.")
                continue
            if new is None:
                out.append(f"{name} removed.")
                continue
            parts = []
            for key, word in (("min", "minimum"), ("max", "maximum")):
                if old[key] != new[key]:
                    parts.append(f"{word} {format_minor(old[key], currency)} became "
                                 f"{format_minor(new[key], currency)}")
            if list(old["chips"]) != list(new["chips"]):
                parts.append(f"chips {_chips(old['chips'], currency)} became {_chips(new['chips'], currency)}")
            out.append(f"{name}: {'; '.join(parts)}.")
    return out


def _paytable_sentences(before: dict, after: dict) -> list[str]:
    out = []
    for bet in sorted(set(before) | set(after)):
        old, new = before.get(bet, {}), after.get(bet, {})
        changed = [line for line in labels.LINE_LABELS if old.get(line) != new.get(line)]
        changed += sorted(line for line in set(old) | set(new) if line not in labels.LINE_LABELS
                          and old.get(line) != new.get(line))
        if not changed:
            continue
        parts = [f"{labels.line_label(line)} pays {_pays(old.get(line))} → {_pays(new.get(line))}"
                 for line in changed]
        out.append(f"{labels.bet_type_label(bet)} paytable: {'; '.join(parts)}.")
    return out


def _pays(value) -> str:
    return "nothing" if value is None else f"{value} to 1"


def _list_sentence(label: str, old: list, new: list, name) -> str | None:
    added, removed = [c for c in new if c not in old], [c for c in old if c not in new]
    if not added and not removed:
        return None
    parts = []
    if added:
        parts.append(f"{_names(added, name)} added")
    if removed:
        parts.append(f"{_names(removed, name)} removed")
    return f"{label}: {' and '.join(parts)} (now {_names(new, name)})."


def change_sentences(before: dict | None, after: dict) -> list[str]:
    """Every difference between two configuration documents (tables.selectors.table_document) as sentences."""
    if before is None:
        return [f"Created {labels.profile_label(after.get('profile', ''))} table {after.get('code', '')}"
                f"{' “' + after['name'] + '”' if after.get('name') else ''}."]
    out = []
    for key in after:
        if key in _SKIPPED or before.get(key) == after.get(key):
            continue
        if key == "name":
            out.append(f"Name changed from “{before.get(key)}” to “{after.get(key)}”.")
            continue
        if isinstance(after.get(key), bool) and isinstance(before.get(key), bool) and key != "dealer_22_push":
            out.append(f"{labels.setting_label(key)} switched {'on' if after[key] else 'off'}.")
            continue
        out.append(f"{labels.setting_label(key)} changed from {_setting_value(key, before.get(key))} to "
                   f"{_setting_value(key, after.get(key))}.")
    for key, name in (("currencies", str), ("side_bets", labels.bet_type_label)):
        sentence = _list_sentence(labels.setting_label(key), list(before.get(key) or []),
                                  list(after.get(key) or []), name)
        if sentence:
            out.append(sentence)
    out += _limit_sentences(before.get("limits") or {}, after.get("limits") or {})
    out += _paytable_sentences(before.get("paytables") or {}, after.get("paytables") or {})
    return out or ["No change."]


def limits_change_sentences(document: dict, limits) -> list[str]:
    """What saving these limits ({bet_type, currency, min, max, chips} in minor units, as the limits form and
    bet_limits_set take them) would change in `document`; empty when nothing would."""
    after = {bet: dict(by_currency) for bet, by_currency in (document.get("limits") or {}).items()}
    for limit in limits:
        after.setdefault(limit["bet_type"], {})[limit["currency"]] = {
            "min": limit["min"], "max": limit["max"], "chips": list(limit["chips"])}
    if after == (document.get("limits") or {}):
        return []
    return change_sentences(document, {**document, "limits": after})


def paytable_change_sentences(document: dict, side_bet: str, paytable: dict) -> list[str]:
    """What saving a side bet's paytable would change in `document`; empty when nothing would."""
    paytables = document.get("paytables") or {}
    if paytables.get(side_bet) == dict(paytable):
        return []
    return change_sentences(document, {**document, "paytables": {**paytables, side_bet: dict(paytable)}})
