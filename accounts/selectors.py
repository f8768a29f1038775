from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import roles
from accounts.models import ApiToken, LoginRecord, PasswordChangeDemand, WorkerHeartbeat


def user_role(user) -> str | None:
    if not user.is_authenticated:
        return None
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
