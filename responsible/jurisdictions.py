"""The three licences the operator holds and their rules when this was built; operators change them on the
jurisdictions page (responsible.jurisdiction_rules), never below the floors each regulator sets (FLOORS).
- SE (Spelinspektionen): a deposit limit before the first deposit; a raise waits at least 72 hours; bonus only
  at the player's first gaming occasion (spellagen 14 kap. 9 §). Spelpaus is the national register; our own
  indefinite self-exclusion mirrors its "tills vidare" (at least 12 months), then ends 7 days after a request.
- GB (UKGC): limits optional, a raise waits at least 24 hours (we keep 72); a self-exclusion cannot be ended
  during its period (LCCP SR 3.5.3), and an indefinite one has no end: it is never ended on request.
- MT (MGA Player Protection Directive): a raise waits at least 24 hours (we keep 72); an indefinite
  self-exclusion may be removed on the player's request after at least 6 months, with a 7-day cooling-off.
The migrations write these rows from copies frozen in them (a new value here needs a new migration writing it;
tests/responsible/test_jurisdiction_migrations.py fails until then); a database emptied by a test flush gets
them back from DEFAULTS on first use."""

DEFAULTS = {
    "SE": {"name": "Sweden", "cooling_off_hours": 72, "deposit_limit_required": True,
           "time_zone": "Europe/Stockholm", "promotions": "first_occasion_only", "exclusion_end": "on_request",
           "exclusion_end_min_days": 365, "exclusion_end_cooling_off_hours": 168},
    "GB": {"name": "Great Britain", "cooling_off_hours": 72, "deposit_limit_required": False,
           "time_zone": "Europe/London", "promotions": "any", "exclusion_end": "never",
           "exclusion_end_min_days": 365, "exclusion_end_cooling_off_hours": 168},
    "MT": {"name": "Malta", "cooling_off_hours": 72, "deposit_limit_required": False, "time_zone": "Europe/Malta",
           "promotions": "any", "exclusion_end": "on_request", "exclusion_end_min_days": 183,
           "exclusion_end_cooling_off_hours": 168},
}

# What an operator may not go below for each licence (responsible.jurisdiction_rules refuses it, naming the rule).
FLOORS = {
    "SE": {"cooling_off_hours": 72, "deposit_limit_required": True,
           "promotions": ("first_occasion_only", "none"), "exclusion_end_cooling_off_hours": 168,
           "exclusion_end_min_days": 365},
    "GB": {"cooling_off_hours": 24, "exclusion_end": ("never",)},
    "MT": {"cooling_off_hours": 24, "exclusion_end_cooling_off_hours": 168, "exclusion_end_min_days": 183},
}


def jurisdiction_ensure(model, code: str):
    """The row of a known jurisdiction (created from DEFAULTS when missing), else None. `model` may be a
    migration's historical model: only the fields it has are written."""
    found = model.objects.filter(code=code).first()
    if found is None and code in DEFAULTS:
        names = {f.name for f in model._meta.fields}
        found, _ = model.objects.get_or_create(
            code=code, defaults={k: v for k, v in DEFAULTS[code].items() if k in names})
    return found


# ------------------------------------------------------------------------------------------ the operator's rules

RULE_FIELDS = ("cooling_off_hours", "deposit_limit_required", "time_zone", "promotions", "exclusion_end",
               "exclusion_end_min_days", "exclusion_end_cooling_off_hours")
RULE_NAMES = {
    "cooling_off_hours": "Cooling-off before a raised or removed limit applies",
    "deposit_limit_required": "Deposit limit required before the first deposit",
    "time_zone": "Time zone of days, weeks and months",
    "promotions": "Promotions",
    "exclusion_end": "Ending an indefinite self-exclusion",
    "exclusion_end_min_days": "Minimum time excluded before it can end",
    "exclusion_end_cooling_off_hours": "Cooling-off after a request to end it",
}
# (low, high) of each number an operator may type, whatever the licence.
RULE_RANGES = {"cooling_off_hours": (24, 720), "exclusion_end_min_days": (183, 3650),
               "exclusion_end_cooling_off_hours": (24, 720)}
RULE_CHOICES = {
    "promotions": {"any": "promotions at any time",
                   "first_occasion_only": "promotional credit only at the player's first occasion",
                   "none": "no promotional credit"},
    "exclusion_end": {"never": "never on request", "on_request": "on request, after the minimum and the cooling-off"},
}


def rules_of(jurisdiction) -> dict:
    return {name: getattr(jurisdiction, name) for name in RULE_FIELDS}


def rule_value_text(name: str, value) -> str:
    """A rule's value in words: "72 hours", "yes", "promotional credit only at the player's first occasion"."""
    if name in RULE_CHOICES:
        return RULE_CHOICES[name].get(value, str(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name.endswith("_hours"):
        return f"{value} hours" + (f" ({value // 24} days)" if value % 24 == 0 and value >= 48 else "")
    if name.endswith("_days"):
        return f"{value} days"
    return str(value)


def rules_change_sentences(before: dict, after: dict) -> list[str]:
    return [f"{RULE_NAMES[name]}: {rule_value_text(name, before.get(name))} became "
            f"{rule_value_text(name, after[name])}." for name in RULE_FIELDS if before.get(name) != after[name]]


def _whole(name: str, value) -> int:
    from responsible.errors import JurisdictionRuleError

    low, high = RULE_RANGES[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise JurisdictionRuleError(f"{RULE_NAMES[name]} is a whole number from {low} to {high}, not {value!r}.",
                                    field=name)
    return value


def rules_clean(code: str, values: dict) -> dict:
    """The rules an operator asked for, checked: each in range, a known IANA time zone, a known choice, and
    never below the floor of the licence (FLOORS). Raises JurisdictionRuleError naming the rule."""
    from zoneinfo import available_timezones

    from responsible.errors import JurisdictionRuleError

    unknown = set(values) - set(RULE_FIELDS)
    if unknown or set(values) != set(RULE_FIELDS):
        raise JurisdictionRuleError(f"Give every rule ({', '.join(RULE_FIELDS)}), and only those.")
    clean = {name: _whole(name, values[name]) for name in RULE_RANGES}
    if not isinstance(values["deposit_limit_required"], bool):
        raise JurisdictionRuleError("Whether a deposit limit is required is yes or no.",
                                    field="deposit_limit_required")
    clean["deposit_limit_required"] = values["deposit_limit_required"]
    zone = values["time_zone"]
    if not isinstance(zone, str) or zone not in available_timezones():
        raise JurisdictionRuleError(f"Unknown time zone {str(zone)[:64]!r}: use an IANA name such as "
                                    "Europe/Stockholm.", field="time_zone")
    clean["time_zone"] = zone
    for name, choices in RULE_CHOICES.items():
        if values[name] not in choices:
            raise JurisdictionRuleError(f"{RULE_NAMES[name]} is one of {', '.join(choices)}, not "
                                        f"{str(values[name])[:40]!r}.", field=name)
        clean[name] = values[name]
    floor = FLOORS.get(code, {})
    name_of = DEFAULTS.get(code, {}).get("name", code)
    for rule, minimum in floor.items():
        value = clean[rule]
        if isinstance(minimum, tuple):
            bad = value not in minimum
            need = " or ".join(rule_value_text(rule, m) for m in minimum)
        elif isinstance(minimum, bool):
            bad, need = value != minimum, rule_value_text(rule, minimum)
        else:
            bad, need = value < minimum, f"at least {rule_value_text(rule, minimum)}"
        if bad:
            raise JurisdictionRuleError(f"The rules of {name_of} do not allow that: {RULE_NAMES[rule].lower()} "
                                        f"must be {need}.", field=rule)
    return clean
