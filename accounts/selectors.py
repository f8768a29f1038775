from accounts import roles
from accounts.models import WorkerHeartbeat


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
