from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Q
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import roles
from accounts.models import ApiToken, LoginRecord, PasswordChangeDemand, StaffAction, WorkerHeartbeat


def user_role(user) -> str | None:
    if not user.is_authenticated:
        return None
    # A request's user comes with its groups' names (accounts.backends): no statement on every page's header.
    names = getattr(user, "_group_names", None)
    if names is None:
        names = {group.name for group in user.groups.all()}
    for role in roles.ROLES:
        if role in names:
            return role
    return None


def worker_heartbeats_recent(*, limit: int = 10) -> list[WorkerHeartbeat]:
    return list(WorkerHeartbeat.objects.select_related("requested_by")[:limit])


def login_records_recent(*, user, limit: int = 10) -> list:
    return list(LoginRecord.objects.filter(user=user).order_by("-id")[:limit])


def api_tokens_of(*, user, active: bool = False) -> list[ApiToken]:
    tokens = ApiToken.objects.filter(user=user)
    if active:
        tokens = tokens.filter(revoked_at__isnull=True)
    return list(tokens.order_by("-id"))


def api_token_get(*, token_id: int) -> ApiToken:
    return ApiToken.objects.get(pk=token_id)


def second_factor_enrolled(*, user) -> bool:
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def recovery_codes_left(*, user) -> int:
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


def password_change_demanded(*, user) -> bool:
    return PasswordChangeDemand.objects.filter(user=user, met_at__isnull=True).exists()


STAFF_ACTIVITY_PAGE_SIZE = 50


@dataclass(frozen=True)
class StaffActivityFilter:
    """What the staff-activity page narrows to; every part optional. Dates are UTC days, both included."""

    actor: str = ""  # a user name, any case
    action: str = ""  # a StaffActionKind value
    object: str = ""  # a table code, a game number or a player's user name, any case
    since: date | None = None
    until: date | None = None


def _staff_actions(filters: StaffActivityFilter):
    rows = StaffAction.objects.select_related("actor")
    if filters.actor:
        rows = rows.filter(actor__username__iexact=filters.actor)
    if filters.action:
        rows = rows.filter(action=filters.action)
    if filters.object:
        rows = rows.filter(Q(object_ref__iexact=filters.object) | Q(object_label__iexact=filters.object))
    if filters.since:
        rows = rows.filter(at__gte=datetime.combine(filters.since, time.min, tzinfo=UTC))
    if filters.until:
        rows = rows.filter(at__lt=datetime.combine(filters.until + timedelta(days=1), time.min, tzinfo=UTC))
    return rows.order_by("-id")


def staff_actions_page(*, filters: StaffActivityFilter, before: int | None = None,
                       limit: int = STAFF_ACTIVITY_PAGE_SIZE) -> tuple[list[StaffAction], int | None]:
    """Newest first, `limit` rows older than the row id `before`; and the cursor of the next page (or None)."""
    rows = _staff_actions(filters)
    if before is not None:
        rows = rows.filter(id__lt=before)
    page = list(rows[:limit + 1])
    return page[:limit], (page[limit - 1].pk if len(page) > limit else None)


def staff_actions_iter(*, filters: StaffActivityFilter) -> Iterator[StaffAction]:
    """Every matching row, newest first, read in chunks (the CSV export streams it)."""
    return _staff_actions(filters).iterator(chunk_size=1000)
