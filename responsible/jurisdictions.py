"""The three licences the operator holds and their rules when this was built; operators change them in the
database (responsible.Jurisdiction). Every raise waits the issue's default of 72 hours, which meets each
regulator's minimum:
- SE (Spelinspektionen): a deposit limit before the first deposit; a raise waits at least 72 hours.
- GB (UKGC) and MT (MGA): limits are offered but optional; a raise waits at least 24 hours.
The migration writes these rows; a database emptied by a test flush gets them back on first use."""

DEFAULTS = {
    "SE": {"name": "Sweden", "cooling_off_hours": 72, "deposit_limit_required": True,
           "time_zone": "Europe/Stockholm"},
    "GB": {"name": "Great Britain", "cooling_off_hours": 72, "deposit_limit_required": False,
           "time_zone": "Europe/London"},
    "MT": {"name": "Malta", "cooling_off_hours": 72, "deposit_limit_required": False, "time_zone": "Europe/Malta"},
}


def jurisdiction_ensure(model, code: str):
    """The row of a known jurisdiction (created from DEFAULTS when missing), else None."""
    found = model.objects.filter(code=code).first()
    if found is None and code in DEFAULTS:
        found, _ = model.objects.get_or_create(code=code, defaults=DEFAULTS[code])
    return found
