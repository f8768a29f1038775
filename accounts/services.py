from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.utils import timezone

from accounts import roles
from accounts.models import BackOffice, WorkerHeartbeat
from casino.queue import task_queue


def roles_sync() -> None:
    """Idempotently (re)create the role groups; used by the data migration's logic and after test flushes."""
    content_type = ContentType.objects.get_for_model(BackOffice, for_concrete_model=False)
    roles.sync_groups(group_model=Group, permission_model=Permission, content_type=content_type)


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


def worker_heartbeat_request(*, user) -> WorkerHeartbeat:
    with transaction.atomic(durable=True):
        probe = WorkerHeartbeat.objects.create(requested_by=user)
        task_queue(name="accounts.tasks.worker_heartbeat_answer", args=(probe.pk,))
    return probe


def worker_heartbeat_answer(*, probe_id: int, worker: str) -> bool:
    """Compare-and-set so a redelivered task changes nothing."""
    updated = WorkerHeartbeat.objects.filter(pk=probe_id, answered_at__isnull=True).update(
        answered_at=timezone.now(), worker=worker[:200]
    )
    return bool(updated)
