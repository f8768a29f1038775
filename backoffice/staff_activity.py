"""The staff-activity page (operators): every staff action in plain words, filtered, paged by keyset, and the same
rows as a streaming CSV.

Support cannot read it, not even their own rows: the record exists so that operators can oversee everyone on
staff, support included, and what support did is already in front of them where it matters (the round's audit
trail, the player's notes). A page of "your own actions" would be a second, partial copy of those.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache

from django import forms
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET
from ua_parser import parse as user_agent_parse

from accounts.models import StaffAction, StaffActionKind, StaffObjectKind
from accounts.permissions import permission_required
from accounts.selectors import StaffActivityFilter, staff_actions_iter, staff_actions_page
from wallet.currencies import money_format

VERBS = {
    StaffActionKind.TABLE_CREATED: "created",
    StaffActionKind.TABLE_CONFIGURED: "changed the configuration of",
    StaffActionKind.TABLE_OPENED: "opened",
    StaffActionKind.TABLE_PAUSED: "paused",
    StaffActionKind.TABLE_RESUMED: "resumed",
    StaffActionKind.TABLE_CLOSED: "closed",
    StaffActionKind.RTP_SIMULATION_STARTED: "started an RTP simulation of",
    StaffActionKind.ROUND_VOIDED: "voided",
    StaffActionKind.ROUND_REVERSED: "reversed",
    StaffActionKind.ROUND_RETRIED: "retried the settlement or refunds of",
    StaffActionKind.GOLDEN_CHIPS_GRANTED: "granted Golden Chips to",
    StaffActionKind.CHAT_DISABLED: "disabled the chat of",
    StaffActionKind.CHAT_ENABLED: "enabled the chat of",
    StaffActionKind.PLAYER_NOTE_ADDED: "wrote a note on",
    StaffActionKind.PASSWORD_RESET: "reset the password of",
    StaffActionKind.WORKER_PROBED: "sent a worker health probe",
    StaffActionKind.RG_LIMIT_SET: "entered a responsible-gambling limit for",
    StaffActionKind.RG_EXCLUSION_STARTED: "entered a time-out or self-exclusion for",
    StaffActionKind.RG_JURISDICTION_SET: "set the jurisdiction of",
    StaffActionKind.RG_REGISTER_ADDED: "added to the self-exclusion register:",
    StaffActionKind.RG_REGISTER_REMOVED: "removed from the self-exclusion register:",
    StaffActionKind.RG_JURISDICTION_CHANGED: "changed the responsible-gambling rules of",
    StaffActionKind.RG_EXCLUSION_END_REQUESTED: "asked, on the player's written request, to end the self-exclusion of",
    StaffActionKind.RG_EXCLUSION_END_WITHDRAWN: "withdrew the request to end the self-exclusion of",
}
assert set(VERBS) == set(StaffActionKind), "every staff action needs its words"

# The note itself is the why of a note; calling it a reason would misname it.
WHY_LABEL = {StaffActionKind.PLAYER_NOTE_ADDED: "note"}


class StaffActivityForm(forms.Form):
    who = forms.CharField(label="Who (user name)", required=False, max_length=150)
    action = forms.ChoiceField(label="Action", required=False,
                               choices=[("", "Every action"), *StaffActionKind.choices])
    object = forms.CharField(label="Table, game number or player", required=False, max_length=64)
    since = forms.DateField(label="From (UTC day)", required=False, input_formats=["%Y-%m-%d"],
                            widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label="To (UTC day, included)", required=False, input_formats=["%Y-%m-%d"],
                            widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("since") and cleaned.get("until") and cleaned["since"] > cleaned["until"]:
            raise forms.ValidationError("The period starts after it ends.")
        return cleaned

    def filters(self) -> StaffActivityFilter:
        data = self.cleaned_data
        return StaffActivityFilter(actor=data["who"].strip(), action=data["action"], object=data["object"].strip(),
                                   since=data["since"], until=data["until"])

    def query(self) -> dict[str, str]:
        """The filters as the query string they came from, for the paging and CSV links."""
        return {name: self.data[name] for name in self.fields if self.data.get(name)}


@lru_cache(maxsize=512)
def browser_words(user_agent: str) -> str:
    """"Firefox on Windows"; the few words a reader needs, not the header."""
    if not user_agent:
        return "no browser named"
    parsed = user_agent_parse(user_agent)
    browser = parsed.user_agent.family if parsed.user_agent and parsed.user_agent.family != "Other" else ""
    system = parsed.os.family if parsed.os and parsed.os.family != "Other" else ""
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or f"an unknown browser ({user_agent[:60]})"


def actor_words(row: StaffAction) -> str:
    name = row.actor.get_full_name() or row.actor.get_username()
    return f"{name} ({row.actor_role or 'no role'})"


def object_words(row: StaffAction) -> str:
    if row.object_kind == StaffObjectKind.NONE:
        # A register entry names an identity, who need not be one of our players.
        return str(row.details.get("identity", "")) if isinstance(row.details, dict) else ""
    if row.action == StaffActionKind.GOLDEN_CHIPS_GRANTED and "amount" in row.details:
        return f"{row.object_label} ({money_format(row.details['amount'], row.details['currency'])})"
    label = row.object_label or row.object_ref
    if row.object_kind in (StaffObjectKind.TABLE, StaffObjectKind.ROUND):
        return f"{row.get_object_kind_display()} {label}"
    return label


def object_url(row: StaffAction) -> str | None:
    if row.object_kind == StaffObjectKind.TABLE:
        return reverse("table_detail", args=[row.object_ref])
    if row.object_kind == StaffObjectKind.ROUND:
        return reverse("backoffice_round", args=[row.object_ref])
    if row.object_kind == StaffObjectKind.PLAYER and row.object_ref.isdigit():
        return reverse("backoffice_player", args=[int(row.object_ref)])
    return None


def origin_words(row: StaffAction) -> str:
    if row.address is None and not row.user_agent:
        return "from no web request (a shell or a command)"
    return f"from {row.address or 'an unknown address'}, {browser_words(row.user_agent)}"


def when_words(row: StaffAction) -> str:
    return f"{row.at:%Y-%m-%d %H:%M:%S} UTC"


@dataclass(frozen=True)
class ActivityLine:
    row: StaffAction
    when: str
    who: str
    verb: str
    object: str
    object_url: str | None
    change: str
    why_label: str
    why: str
    origin: str

    @property
    def sentence(self) -> str:
        """"Olivia (operator) closed table FB01 — reason: studio lighting failure — from 10.0.0.4, Firefox on
        Windows"."""
        parts = [" ".join(part for part in (self.who, self.verb, self.object) if part)]
        if self.change:
            parts[0] += f" ({self.change})"
        if self.why:
            parts.append(f"{self.why_label}: {self.why}")
        parts.append(self.origin)
        return " — ".join(parts)


def activity_line(row: StaffAction) -> ActivityLine:
    change = row.details.get("summary", "") if row.action == StaffActionKind.TABLE_CONFIGURED else ""
    if row.action == StaffActionKind.RTP_SIMULATION_STARTED and "hands" in row.details:
        change = f"{row.details['hands']:,} hands"
    return ActivityLine(row=row, when=when_words(row), who=actor_words(row), verb=VERBS[row.action],
                        object=object_words(row), object_url=object_url(row), change=change,
                        why_label=WHY_LABEL.get(row.action, "reason"), why=row.reason, origin=origin_words(row))


def _before(request) -> int | None:
    raw = request.GET.get("before") or ""
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise ValueError("The 'before' cursor must be a whole number.")
    return int(raw)


def _bad_filters(request, form: StaffActivityForm, message: str = ""):
    errors = message or "; ".join(e for errors in form.errors.values() for e in errors)
    if request.path.endswith(".csv"):
        return HttpResponseBadRequest(f"Nothing exported: {errors}", content_type="text/plain")
    return render(request, "backoffice/staff_activity.html", {"form": form, "error": errors, "lines": []},
                  status=400)


@require_GET
@permission_required("view_staff_activity")
def staff_activity(request):
    form = StaffActivityForm(request.GET)
    if not form.is_valid():
        return _bad_filters(request, form)
    try:
        before = _before(request)
    except ValueError as error:
        return _bad_filters(request, form, str(error))
    rows, next_before = staff_actions_page(filters=form.filters(), before=before)
    query = form.query()
    base = reverse("staff_activity")
    context = {
        "form": form, "lines": [activity_line(row) for row in rows], "first_page": before is None,
        "older_url": f"{base}?{urlencode(query | {'before': next_before})}" if next_before else None,
        "csv_url": f"{reverse('staff_activity_csv')}?{urlencode(query)}",
        "filtered": bool(query),
    }
    if request.htmx and before is not None:
        return render(request, "backoffice/_staff_activity_rows.html", context)
    return render(request, "backoffice/staff_activity.html", context)


def _cell(text: str) -> str:
    # Reasons and user agents are typed by people; a spreadsheet must not run one as a formula.
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


CSV_HEADER = ["id", "when (UTC)", "who", "role", "action", "object kind", "object", "reason or note", "address",
              "browser", "user agent", "change", "in words"]


@require_GET
@permission_required("view_staff_activity")
def staff_activity_csv(request):
    """Every row the filters select (all pages, newest first), streamed: an export never holds them in memory."""
    form = StaffActivityForm(request.GET)
    if not form.is_valid():
        return _bad_filters(request, form)
    filters = form.filters()

    class Echo:
        def write(self, value):
            return value

    writer = csv.writer(Echo())

    def lines():
        yield writer.writerow(CSV_HEADER)
        for row in staff_actions_iter(filters=filters):
            line = activity_line(row)
            yield writer.writerow([
                row.pk, row.at.strftime("%Y-%m-%d %H:%M:%S"), row.actor.get_username(), row.actor_role,
                row.get_action_display(), row.object_kind, _cell(row.object_label or row.object_ref),
                _cell(row.reason), row.address or "", _cell(browser_words(row.user_agent)), _cell(row.user_agent),
                _cell(line.change), _cell(line.sentence),
            ])

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="staff-activity.csv"'
    return response
