"""Page guards that say what is missing, so the 403 page can tell the user which role would let them in."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from accounts import roles


def missing_permission_message(codename: str) -> str:
    allowed = roles.roles_for_permission(codename)
    return (
        f"This page needs the permission to {roles.PERMISSIONS[codename]}, "
        f"which the role{'s' if len(allowed) > 1 else ''} {' and '.join(allowed)} "
        f"{'have' if len(allowed) > 1 else 'has'}."
    )


def has_role_permission(user, codename: str) -> bool:
    return user.is_authenticated and user.has_perm(f"accounts.{codename}")


def is_staff_user(user) -> bool:
    """Operator, support or an admin: anyone who reaches more than their own play. Reads the permissions the
    request's user was loaded with (accounts.backends), so it runs no statement."""
    if not user.is_authenticated:
        return False
    if user.is_staff or user.is_superuser:
        return True
    return any(user.has_perm(f"accounts.{codename}") for codename in roles.STAFF_PERMISSIONS)


def require_permission(user, codename: str) -> None:
    if not has_role_permission(user, codename):
        raise PermissionDenied(missing_permission_message(codename))


def permission_required(codename: str):
    if codename not in roles.PERMISSIONS:
        raise ValueError(f"Unknown permission {codename!r}")

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            require_permission(request.user, codename)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
