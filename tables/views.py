from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.permissions import permission_required
from accounts.staffaudit import origin_from_request
from casino.review_token import CHANGED, review_matches, review_token
from casino.untrusted import InputError, optional_whole_number_parse, whole_number_parse
from rounds.engine.sidebets import DEFAULT_PAYTABLES
from rounds.errors import InvalidRoundRequest
from rounds.services import table_state_change
from tables import rtp, rtp_exact, selectors, services
from tables.change_words import change_sentences, limits_change_sentences, paytable_change_sentences
from tables.errors import TableConfigError, TableConflictError
from tables.forms import LimitsForm, PaytableForm, RtpRunForm, TableSettingsForm
from tables.labels import FEATURE_LABELS
from tables.models import Profile, SideBet, Table, TablePaytable, TableRtpRun, TableState

STATE_ACTIONS = {TableState.OPEN: "Open", TableState.PAUSED: "Pause", TableState.CLOSED: "Close"}
DETAIL_HISTORY = 10


def _table_or_404(code: str) -> Table:
    try:
        return selectors.table_detail(code=code)
    except Table.DoesNotExist:
        raise Http404(f"No table with code {code}") from None


def _side_bet_or_404(side_bet: str) -> str:
    if side_bet not in SideBet.values:
        raise Http404(f"No side bet {side_bet}")
    return side_bet


@permission_required("view_backoffice")
def tables_list(request):
    return render(request, "tables/list.html", {"tables": selectors.tables_list()})


@require_http_methods(["GET", "POST"])
@permission_required("configure_tables")
def table_new(request):
    source = request.POST if request.method == "POST" else request.GET
    profile = source.get("profile")
    if profile not in Profile.values:
        profile = Profile.FREE_BET
    if request.method == "POST":
        form = TableSettingsForm(request.POST, profile=profile)
        if form.is_valid():
            data = form.cleaned_data
            try:
                table = services.table_create(
                    actor=request.user, code=data["code"], profile=profile, reason=data["reason"],
                    origin=origin_from_request(request), **form.settings(),
                )
            except TableConfigError as error:
                form.add_error(error.field if error.field in form.fields else None, error.message)
            else:
                messages.success(request, f"Table {table.code} created (closed until you open it).")
                return redirect("table_detail", code=table.code)
    else:
        initial = TableSettingsForm.initial_for(profile)
        initial.update({key: source[key] for key in ("code", "name") if source.get(key)})
        form = TableSettingsForm(initial=initial, profile=profile)
        if request.htmx:
            # The profile select asks for the fields and defaults of the newly chosen profile.
            return render(request, "tables/_profile_fields.html", {"form": form})
    return render(request, "tables/new.html", {"form": form, "profile": profile})


@require_http_methods(["GET", "POST"])
@permission_required("configure_tables")
def table_edit(request, code: str):
    table = _table_or_404(code)
    if request.method == "POST":
        form = TableSettingsForm(request.POST, profile=table.profile, table=table)
        if form.is_valid():
            try:
                services.table_update(
                    actor=request.user, table=table, expected_version=form.cleaned_data.get("version"),
                    reason=form.cleaned_data["reason"], origin=origin_from_request(request), **form.settings(),
                )
            except (TableConfigError, TableConflictError) as error:
                field = getattr(error, "field", None)
                form.add_error(field if field in form.fields else None, error.message)
            else:
                messages.success(request, f"Table {table.code} saved.")
                return redirect("table_detail", code=table.code)
    else:
        form = TableSettingsForm(initial=TableSettingsForm.initial_for(table.profile, table), profile=table.profile,
                                 table=table)
    return render(request, "tables/edit.html", {"form": form, "table": table})


@require_GET
@permission_required("configure_tables")
def table_edit_preview(request, code: str):
    """The RTP of the settings being edited, as a fragment the edit page asks for while the operator types
    (and polls while the main game's analysis runs on a worker). Nothing is written."""
    table = _table_or_404(code)
    form = TableSettingsForm(request.GET, profile=table.profile, table=table)
    context: dict = {"table": table}
    if not form.is_valid():
        context["preview_error"] = "Correct the settings marked above to see what they do to the RTP."
        return render(request, "tables/_edit_preview.html", context)
    document = services.table_document(table)
    values = {**{name: document[name] for name in services.SETTING_FIELDS}, **form.settings()}
    try:
        validated = services.table_settings_validate(profile=table.profile, values=values)
        proposed = selectors.document_rules({**document, **validated})
    except TableConfigError as error:
        context["preview_error"] = error.message
        return render(request, "tables/_edit_preview.html", context)
    # What saving would change, in the history's own words, so the operator reads it before saving.
    after = {**document, **{name: validated[name] for name in validated if name in document}}
    context["changes"] = [] if after == document else change_sentences(document, after)
    context.update(rtp_exact.rtp_preview(current=services.table_rules(table), proposed=proposed))
    labels = {**{value: label for value, label in SideBet.choices}, "insurance": "Insurance"}
    for row in context["side_bets"]:
        row["label"] = labels.get(row["bet"], row["bet"])
    return render(request, "tables/_edit_preview.html", context)


def _main_exact(rules) -> dict[str, str]:
    figures = rtp_exact.main_game_figures(rtp_exact.rtp_rules_from_engine(rules))
    return {
        "td": rtp.float_percent(figures["rtp"], 4),
        "cd": rtp.float_percent(figures["rtp_composition_dependent"], 4),
        "sd": f"{figures['variance'] ** 0.5:.4f}",
    }


@permission_required("view_backoffice")
def table_detail(request, code: str):
    table = _table_or_404(code)
    rules = services.table_rules(table)
    limits_by_currency: dict[str, list] = {}
    for limit in selectors.table_bet_limits(table=table):
        limits_by_currency.setdefault(limit.currency, []).append(limit)
    runs = selectors.rtp_runs_recent(table=table)
    history = selectors.table_history(table=table, limit=DETAIL_HISTORY)
    return render(request, "tables/detail.html", {
        "table": table,
        "rules": rules,
        "features": [label for name, label in FEATURE_LABELS.items() if getattr(table, name)],
        "limits_by_currency": limits_by_currency,
        "paytable_rtps": selectors.table_paytable_rtps(table=table),
        "insurance_rtp": rtp.percent(rtp.insurance_rtp(table.decks)),
        "main_infinite_rtp": rtp.float_percent(rtp.main_game_infinite_rtp(rules), 4),
        "main_exact": _main_exact(rules),
        "runs": runs,
        "current_run": runs[0] if runs else None,
        "rtp_form": RtpRunForm(),
        "history": history,
        "more_history": len(history) == DETAIL_HISTORY,
        "state_actions": [(state, label) for state, label in STATE_ACTIONS.items() if state != table.state],
        "reason_max_length": services.REASON_MAX_LENGTH,
    })


NOTHING_TO_SAVE = "Nothing to save: these are the values in force. Change a value first."


def _review(request, form, *, table: Table, title: str, action: str, changes: list[str], button: str,
            reviewed: dict, rtp_line: str | None = None, error: str = ""):
    """The step between typing and saving: what saving changes, in the history's sentences, and who reads the
    reason; only the confirmation it posts back (the same values, the table's version now and the review token
    of exactly this change, with step=confirm) saves."""
    hidden = [(field.html_name, table.config_version if field.name == "version" else field.value())
              for field in form]
    return render(request, "tables/change_confirm.html", {
        "table": table, "form": form, "hidden": hidden, "title": title, "action": action, "changes": changes,
        "button": button, "rtp_line": rtp_line, "reason": form.cleaned_data["reason"].strip(), "error": error,
        "review": review_token(user=request.user, action=action, reviewed=reviewed),
    }, status=409 if error else 200)


def _reviewed_change(table: Table, form, values) -> dict:
    """What a table change's review showed: the values, the reason, and the table's configuration version now
    (a change saved by someone else in between makes it another review)."""
    return {"table": table.pk, "version": table.config_version, "values": values,
            "reason": form.cleaned_data["reason"].strip()}


def _reviewed_this(request, *, action: str, reviewed: dict) -> bool:
    return review_matches(token=request.POST.get("review"), user=request.user, action=action, reviewed=reviewed)


@require_http_methods(["GET", "POST"])
@permission_required("configure_tables")
def table_limits(request, code: str):
    table = _table_or_404(code)
    limits = selectors.table_bet_limits(table=table)
    if request.method == "POST":
        form = LimitsForm(request.POST, table=table, limits=limits)
        step = request.POST.get("step")
        if form.is_valid() and step != "edit":
            try:
                services.reason_clean(actor=request.user, reason=form.cleaned_data["reason"])
                action = reverse("table_limits", args=[table.code])
                reviewed = _reviewed_change(table, form, form.limits)
                changed = step == "confirm" and not _reviewed_this(request, action=action, reviewed=reviewed)
                if step != "confirm" or changed:
                    changes = limits_change_sentences(services.table_document(table), form.limits)
                    if not changes:
                        raise TableConfigError(NOTHING_TO_SAVE)
                    return _review(request, form, table=table, title=f"Save the bet limits of {table.code}?",
                                   action=action, changes=changes, button="Save the limits", reviewed=reviewed,
                                   error=CHANGED if changed else "")
                services.bet_limits_set(actor=request.user, table=table, limits=form.limits,
                                        expected_version=table.config_version,
                                        reason=form.cleaned_data["reason"], origin=origin_from_request(request))
            except (TableConfigError, TableConflictError) as error:
                field = getattr(error, "field", None)
                form.add_error("reason" if field == "reason" else None, error.message)
            else:
                messages.success(request, f"Limits of {table.code} saved.")
                return redirect("table_detail", code=table.code)
    else:
        form = LimitsForm(table=table, limits=limits)
    currencies = {}
    for row in form.bound_rows():
        currencies.setdefault(row["currency"], []).append(row)
    return render(request, "tables/limits.html", {"form": form, "table": table, "currencies": currencies})


def _paytable_preview(form: PaytableForm, table: Table) -> dict:
    # From the lines alone: a missing reason or a refused save is said elsewhere, not as a bad line.
    lines = list(DEFAULT_PAYTABLES[form.side_bet])
    if not form.is_bound or any(line in form.errors for line in lines):
        return {"preview_error": "Enter a whole number of 0 or more for every line to see the RTP."}
    value = rtp.side_bet_rtp(form.side_bet, {line: form.cleaned_data[line] for line in lines}, table.decks)
    return {"preview_rtp": rtp.percent(value), "preview_too_high": value >= 1}


@require_http_methods(["GET", "POST"])
@permission_required("configure_tables")
def table_paytable(request, code: str, side_bet: str):
    table = _table_or_404(code)
    side_bet = _side_bet_or_404(side_bet)
    try:
        row = selectors.table_paytable_get(table=table, side_bet=side_bet)
    except TablePaytable.DoesNotExist:
        raise Http404(f"Table {code} has no {side_bet} paytable") from None
    context = {"table": table, "row": row, "side_bet_label": SideBet(side_bet).label}
    if request.method == "GET" and request.htmx:
        # Live RTP while the operator types: computed from the inputs, nothing is written.
        form = PaytableForm(request.GET, side_bet=side_bet, paytable=row.paytable)
        return render(request, "tables/_paytable_rtp.html", {**context, **_paytable_preview(form, table)})
    if request.method == "POST":
        form = PaytableForm(request.POST, side_bet=side_bet, paytable=row.paytable)
        step = request.POST.get("step")
        if form.is_valid() and step != "edit":
            try:
                services.reason_clean(actor=request.user, reason=form.cleaned_data["reason"])
                action = reverse("table_paytable", args=[table.code, side_bet])
                reviewed = _reviewed_change(table, form, form.paytable())
                changed = step == "confirm" and not _reviewed_this(request, action=action, reviewed=reviewed)
                if step != "confirm" or changed:
                    # Refused here already when it returns 100 % or more, not only when confirmed.
                    paytable = services.paytable_validate(side_bet=side_bet, paytable=form.paytable(),
                                                          decks=table.decks)
                    changes = paytable_change_sentences(services.table_document(table), side_bet, paytable)
                    if not changes:
                        raise TableConfigError(NOTHING_TO_SAVE)
                    now = rtp.percent(rtp.side_bet_rtp(side_bet, row.paytable, table.decks))
                    after = rtp.percent(rtp.side_bet_rtp(side_bet, paytable, table.decks))
                    label = SideBet(side_bet).label
                    return _review(request, form, table=table, title=f"Save the {label} paytable of {table.code}?",
                                   action=action, changes=changes, button="Save the paytable", reviewed=reviewed,
                                   error=CHANGED if changed else "",
                                   rtp_line=f"The {label} bet returns {after} % to players with {table.decks} "
                                            f"deck{'s' if table.decks != 1 else ''} (now {now} %).")
                saved = services.paytable_set(actor=request.user, table=table, side_bet=side_bet,
                                              paytable=form.paytable(), expected_version=table.config_version,
                                              reason=form.cleaned_data["reason"],
                                              origin=origin_from_request(request))
            except (TableConfigError, TableConflictError) as error:
                field = getattr(error, "field", None)
                form.add_error(field if field in form.fields else None, error.message)
            else:
                value = rtp.side_bet_rtp(side_bet, saved.paytable, table.decks)
                messages.success(request, f"{SideBet(side_bet).label} paytable of {table.code} saved: "
                                          f"RTP {rtp.percent(value)} %.")
                return redirect("table_detail", code=table.code)
        context.update(_paytable_preview(form, table))
    else:
        form = PaytableForm(side_bet=side_bet, paytable=row.paytable, version=table.config_version)
        context.update(_paytable_preview(PaytableForm(row.paytable, side_bet=side_bet, paytable=row.paytable),
                                         table))
    return render(request, "tables/paytable.html", {**context, "form": form})


@require_POST
@permission_required("configure_tables")
def table_state(request, code: str):
    # The rounds owner, not tables.services: closing must void the round in play in the same transaction.
    table = _table_or_404(code)
    try:
        version = whole_number_parse(request.POST.get("version", ""), field="version", minimum=1)
    except InputError:
        version = None
    reason = request.POST.get("reason", "").strip()
    if request.POST.get("state") == TableState.CLOSED and reason and table.state != TableState.CLOSED:
        # Closing voids the round in play and sends its players away: a review of exactly that first, and only
        # the confirmation of that review (same reason, same round, the table unchanged) closes it.
        from rounds.round_summary import stakes_held
        from rounds.selectors import round_active_for_table

        active = round_active_for_table(table=table)
        stakes = stakes_held(round=active) if active else []
        action = reverse("table_state", args=[table.code])
        # The round it voids and the stakes that go back, not the round's state: a round in play moves on every
        # few seconds, and closing voids it whatever its step.
        reviewed = {"table": table.pk, "version": table.config_version, "state": TableState.CLOSED,
                    "reason": reason, "round": active.pk if active else None, "stakes": stakes}
        confirmed = request.POST.get("step") == "confirm"
        if not confirmed or not _reviewed_this(request, action=action, reviewed=reviewed):
            return render(request, "tables/close_confirm.html", {
                "table": table, "reason": reason, "version": table.config_version, "round": active,
                "stakes": stakes,
                "review": review_token(user=request.user, action=action, reviewed=reviewed),
                "error": CHANGED if confirmed else "",
            }, status=409 if confirmed else 200)
        version = table.config_version
    try:
        table = table_state_change(actor=request.user, table=table, state=request.POST.get("state", ""),
                                   reason=request.POST.get("reason", ""), expected_version=version,
                                   origin=origin_from_request(request))
    except (TableConfigError, TableConflictError, InvalidRoundRequest) as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Table {table.code} is now {table.get_state_display().lower()}.")
    return redirect("table_detail", code=table.code)


@permission_required("view_backoffice")
def table_history(request, code: str):
    table = _table_or_404(code)
    try:
        before = optional_whole_number_parse(request.GET.get("before"), field="before")
    except InputError:
        before = None
    changes = selectors.table_history(table=table, before_version=before)
    context = {"table": table, "changes": changes,
               "next_before": changes[-1].version if len(changes) == selectors.HISTORY_PAGE_SIZE else None}
    if request.htmx:
        return render(request, "tables/_history_rows.html", context)
    return render(request, "tables/history.html", context)


@permission_required("view_backoffice")
def table_strategy(request, code: str):
    table = _table_or_404(code)
    chart = rtp.table_strategy_chart(services.table_rules(table))
    up_cards = list(next(iter(chart["hard"].values())).keys())
    return render(request, "tables/strategy.html", {"table": table, "chart": chart, "up_cards": up_cards})


@require_POST
@permission_required("configure_tables")
def table_rtp_start(request, code: str):
    table = _table_or_404(code)
    form = RtpRunForm(request.POST)
    if not form.is_valid():
        message = "; ".join(form.errors.get("hands", ["Choose how many hands to simulate."]))
        if request.htmx:
            return render(request, "tables/_rtp_run.html", {"table": table, "run": None, "error": message})
        messages.error(request, message)
        return redirect("table_detail", code=table.code)
    run = services.rtp_run_start(actor=request.user, table=table, hands=form.cleaned_data["hands"],
                                 origin=origin_from_request(request))
    if request.htmx:
        return render(request, "tables/_rtp_run.html", {"table": table, "run": run})
    return redirect("table_rtp_run", code=table.code, run_id=run.pk)


@permission_required("view_backoffice")
def table_rtp_run(request, code: str, run_id: int):
    table = _table_or_404(code)
    try:
        run = selectors.rtp_run_get(table=table, run_id=run_id)
    except TableRtpRun.DoesNotExist:
        raise Http404(f"No simulation {run_id} for table {code}") from None
    context = {"table": table, "run": run}
    if request.htmx:
        response = render(request, "tables/_rtp_run.html", context)
        if run.finished:
            response.status_code = 286  # tells htmx to stop polling
        return response
    return render(request, "tables/rtp_run.html", context)
