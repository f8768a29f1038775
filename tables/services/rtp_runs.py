"""Main-game RTP simulations of a table's current rules: queued here, run by the worker with progress."""

from __future__ import annotations

import secrets
import time

from django.db import transaction
from django.utils import timezone

from accounts.models import StaffActionKind
from accounts.staffaudit import Origin, for_table, staff_action_record
from casino.checks import whole_number
from casino.queue import task_queue
from rounds.engine.rules import Rules
from tables.errors import TableConfigError
from tables.models import RtpRunState, Table, TableRtpRun
from tables.selectors import table_rules
from tables.services.validation import _check_actor

RTP_RUN_MAX_HANDS = 100_000_000

# Progress is written at most this often so a long run does not hammer the database.
PROGRESS_WRITE_SECONDS = 0.5


def rtp_run_start(*, actor, table: Table, hands: int, seed: int | None = None,
                  origin: Origin | None = None) -> TableRtpRun:
    """Queue a simulation of the table's current rules; the worker fills in progress and the result."""
    _check_actor(actor)
    if not whole_number(hands) or not 1 <= hands <= RTP_RUN_MAX_HANDS:
        raise TableConfigError(f"Hands must be a whole number from 1 to {RTP_RUN_MAX_HANDS:,}", field="hands")
    if seed is None:
        seed = secrets.randbits(62)
    elif not whole_number(seed) or not 0 <= seed < 2**63:
        raise TableConfigError("The seed must be a whole number from 0 to 2^63-1", field="seed")
    with transaction.atomic(durable=True):
        fresh = Table.objects.get(pk=table.pk)
        run = TableRtpRun.objects.create(
            table=fresh, config_version=fresh.config_version, rules=table_rules(fresh).to_dict(), hands=hands,
            seed=seed, requested_by=actor,
        )
        staff_action_record(actor=actor, action=StaffActionKind.RTP_SIMULATION_STARTED, target=for_table(fresh),
                            origin=origin, at=run.requested_at,
                            details={"run": run.pk, "hands": hands, "version": fresh.config_version})
        task_queue(name="tables.tasks.rtp_simulation_run", args=(run.pk,))
    return run


def rtp_run_execute(*, run_id: int) -> TableRtpRun:
    """Run a queued simulation to the end. Idempotent: a finished run is left alone; a run found 'running'
    (its worker died and the task was redelivered) starts again from the same seed, so it ends the same."""
    from rounds.engine.rtp.simulation import simulate_first_hand_rtp

    with transaction.atomic(durable=True):
        claimed = TableRtpRun.objects.filter(
            pk=run_id, state__in=(RtpRunState.QUEUED, RtpRunState.RUNNING)
        ).update(state=RtpRunState.RUNNING, started_at=timezone.now(), hands_done=0)
    run = TableRtpRun.objects.get(pk=run_id)
    if not claimed:
        return run
    last_write = time.monotonic()

    def progress(hands_done: int) -> None:
        nonlocal last_write
        if time.monotonic() - last_write >= PROGRESS_WRITE_SECONDS or hands_done >= run.hands:
            last_write = time.monotonic()
            with transaction.atomic(durable=True):
                TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(hands_done=hands_done)

    try:
        rules = Rules.from_dict(run.rules)
        result = simulate_first_hand_rtp(
            rules, run.hands, run.seed, progress=progress, progress_every=max(10_000, -(-run.hands // 100)),
        )
    except Exception as exc:
        with transaction.atomic(durable=True):
            TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(
                state=RtpRunState.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
            )
        raise
    with transaction.atomic(durable=True):
        TableRtpRun.objects.filter(pk=run_id, state=RtpRunState.RUNNING).update(
            state=RtpRunState.DONE, hands_done=result.hands, estimate=result.estimate,
            standard_error=result.standard_error, finished_at=timezone.now(),
        )
    return TableRtpRun.objects.get(pk=run_id)
