import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts import roles
from accounts.client import client_ip, client_user_agent
from accounts.models import (
    ApiToken,
    BackOffice,
    LoginRecord,
    PasswordChangeDemand,
    StaffActionKind,
    WorkerHeartbeat,
)
from accounts.permissions import has_role_permission, is_staff_user, require_permission
from accounts.staffaudit import Origin, password_reset_record, staff_action_record
from accounts.tokens import api_token_digest, api_token_new_key
from casino.queue import task_queue


def roles_sync() -> None:
    """Idempotently (re)create the role groups; used by the data migration's logic and after test flushes."""
    content_type = ContentType.objects.get_for_model(BackOffice, for_concrete_model=False)
    if _roles_in_sync(content_type):
        return  # two reads instead of some forty writes: every test that needs the roles calls this first
    roles.sync_groups(group_model=Group, permission_model=Permission, content_type=content_type)


def _roles_in_sync(content_type) -> bool:
    """Whether the role groups hold exactly the permissions of accounts.roles, each with its description."""
    names = dict(Permission.objects.filter(content_type=content_type).values_list("codename", "name"))
    if any(names.get(codename) != f"Can {description}" for codename, description in roles.PERMISSIONS.items()):
        return False
    held = set(Group.permissions.through.objects.filter(group__name__in=roles.ROLES).values_list(
        "group__name", "permission__content_type_id", "permission__codename"))
    wanted = {(role, content_type.pk, codename) for role, codenames in roles.ROLE_PERMISSIONS.items()
              for codename in codenames}
    # A role group without any permission has no row here: the sets differ and the groups are repaired.
    return held == wanted


def user_create(*, username: str, password: str, role: str, email: str = "", first_name: str = ""):
    if role not in roles.ROLES:
        raise ValueError(f"Unknown role {role!r}; expected one of {', '.join(roles.ROLES)}")
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.create_user(
            username=username, password=password, email=email, first_name=first_name,
            is_staff=role in (roles.OPERATOR, roles.SUPPORT),
        )
        user.groups.add(Group.objects.get(name=role))
    return user


def worker_heartbeat_request(*, user, origin: Origin | None = None) -> WorkerHeartbeat:
    with transaction.atomic(durable=True):
        probe = WorkerHeartbeat.objects.create(requested_by=user)
        staff_action_record(actor=user, action=StaffActionKind.WORKER_PROBED, origin=origin, at=probe.requested_at,
                            details={"probe": probe.pk})
        task_queue(name="accounts.tasks.worker_heartbeat_answer", args=(probe.pk,))
    return probe


def worker_heartbeat_answer(*, probe_id: int, worker: str) -> bool:
    """Compare-and-set so a redelivered task changes nothing."""
    updated = WorkerHeartbeat.objects.filter(pk=probe_id, answered_at__isnull=True).update(
        answered_at=timezone.now(), worker=worker[:200]
    )
    return bool(updated)


# --- login records ---------------------------------------------------------------------------------------------

def login_record_write(*, event: str, request, username: str, user=None, detail: str = "") -> LoginRecord:
    """One append-only row per login, logout, refused login and second-factor check; never updated."""
    return LoginRecord.objects.create(
        event=event, username=username[:150], user=user, ip_address=client_ip(request) if request else None,
        user_agent=client_user_agent(request) if request else "", detail=detail[:200],
    )


# --- the second factor -----------------------------------------------------------------------------------------

def second_factor_enrolment_start(*, user) -> TOTPDevice:
    """The authenticator to be confirmed: the unconfirmed one already shown (a reload keeps its QR code), or a
    new random secret. Refused once the user has a confirmed one: a second factor is reset by an operator."""
    if TOTPDevice.objects.filter(user=user, confirmed=True).exists():
        raise ValueError(f"{user.get_username()} already has an authenticator; reset it to enrol a new one")
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("-id").first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="authenticator", confirmed=False)
    return device


def second_factor_enrolment_confirm(*, user, device: TOTPDevice, token: str) -> list[str] | None:
    """The first code from the new authenticator confirms it; returns the recovery codes (shown once), or None
    when the code is wrong."""
    with transaction.atomic(durable=True):
        device = TOTPDevice.objects.select_for_update().get(pk=device.pk, user=user, confirmed=False)
        if not device.verify_token(token.strip()):
            return None
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        return _recovery_codes_replace(user=user)


def _recovery_codes_replace(*, user) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name="recovery codes", confirmed=True)
    codes = [StaticToken.random_token() for _ in range(settings.SECOND_FACTOR_RECOVERY_CODES)]
    StaticToken.objects.bulk_create([StaticToken(device=device, token=code) for code in codes])
    return codes


def second_factor_verify(*, user, token: str):
    """The device that accepts this code (six digits: the authenticator; otherwise a recovery code, used up),
    or None and why not. Each device's own throttle (django-otp) slows repeated wrong codes."""
    token = token.strip().replace(" ", "").lower()
    model = TOTPDevice if token.isdigit() else StaticDevice
    with transaction.atomic(durable=True):
        device = model.objects.select_for_update().filter(user=user, confirmed=True).first()
        if device is None:
            return None, "That is not an authenticator code, and this account has no recovery codes left."
        allowed, extra = device.verify_is_allowed()
        if not allowed:
            wait = extra.get("locked_until")
            when = f" Try again after {wait:%H:%M:%S} UTC." if wait else ""
            return None, f"Too many wrong codes in a row.{when}"
        if not device.verify_token(token):
            return None, "That code is wrong or already used."
    return device, ""


def second_factor_reset(*, user) -> int:
    """A lost or replaced phone: every authenticator and recovery code of the user goes; they enrol again at
    their next login (and any session of theirs must pass the new factor)."""
    with transaction.atomic(durable=True):
        removed, _ = TOTPDevice.objects.filter(user=user).delete()
        removed_static = StaticDevice.objects.filter(user=user).count()
        StaticDevice.objects.filter(user=user).delete()
    return removed + removed_static


def second_factor_enrol_with_key(*, user, key_hex: str) -> TOTPDevice:
    """A confirmed authenticator with a given secret: for demo accounts, whose secret is printed beside their
    login so a person trying the demo can add it to an authenticator app. Never for real staff."""
    with transaction.atomic(durable=True):
        TOTPDevice.objects.filter(user=user).delete()
        return TOTPDevice.objects.create(user=user, name="authenticator", key=key_hex, confirmed=True)


# --- API keys --------------------------------------------------------------------------------------------------

def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new API key for a player's game client; the key is returned once and only its digest is kept."""
    if is_staff_user(user):
        raise PermissionDenied("Staff accounts cannot hold API keys: they sign in with the browser.")
    name = name.strip()
    if not name or len(name) > 100:
        raise ValidationError("Name the key (1 to 100 characters), e.g. the device it is for.")
    key = api_token_new_key()
    token = ApiToken.objects.create(user=user, name=name, prefix=key[:8], digest=api_token_digest(key))
    return token, key


def api_token_revoke(*, actor, token: ApiToken) -> bool:
    """The owner revokes their own key; staff who look players up revoke any player's. Compare-and-set: False
    when it was revoked already."""
    if token.user_id != actor.pk and not has_role_permission(actor, "lookup_players"):
        raise PermissionDenied("Only the key's owner or support can revoke it.")
    revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=actor)
    return bool(revoked)


# --- passwords -------------------------------------------------------------------------------------------------

def password_change(*, user, password: str) -> None:
    """The user's own new password (already validated). Every other session of theirs ends at its next request:
    Django's session hash changes with the password. An open demand for a change is met."""
    with transaction.atomic(durable=True):
        user.set_password(password)
        user.save(update_fields=["password"])
        PasswordChangeDemand.objects.filter(user=user, met_at__isnull=True).update(met_at=timezone.now())


def password_reset_temporary(*, actor, player, reason: str, origin: Origin | None = None) -> str:
    """Support sets a random temporary password for a player who lost theirs (given to the player once, after
    checking who they are); the player must choose their own at their next login. Their sessions end. The reason
    (how the caller was identified) goes to the staff-activity record."""
    require_permission(actor, "lookup_players")
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("Say why the password is reset (how the caller was identified).")
    if is_staff_user(player):
        raise PermissionDenied("A staff password is not reset from the support page.")
    temporary = "-".join(secrets.token_hex(3) for _ in range(3))
    with transaction.atomic(durable=True):
        player.set_password(temporary)
        player.save(update_fields=["password"])
        PasswordChangeDemand.objects.filter(user=player, met_at__isnull=True).update(met_at=timezone.now())
        PasswordChangeDemand.objects.create(user=player, demanded_by=actor)
        password_reset_record(actor=actor, user=player, origin=origin, reason=reason)
    return temporary
