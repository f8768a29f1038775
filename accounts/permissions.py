"""Page guards that say what is missing, so the 403 page can tell the user which role would let them in."""

from functools import cache, wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.signals import setting_changed

from accounts import roles


def missing_permission_message(codename: str) -> str:
    allowed = roles.roles_for_permission(codename)
    return (
        f"This page needs the permission to {roles.PERMISSIONS[codename]}, "
        f"which the role{'s' if len(allowed) > 1 else ''} {' and '.join(allowed)} "
        f"{'have' if len(allowed) > 1 else 'has'}."
    )


@cache
def _loaded_permissions_decide() -> bool:
    """Whether user.has_perm(p) is `p in user._perm_cache` for an active user who is not a superuser: Django's
    PermissionsMixin.has_perm asks each backend that has a has_perm, and ModelBackend's answers from that set,
    which accounts.backends loads with the user. Checked once against the configured user model and backends."""
    from django.contrib.auth import get_backends, get_user_model
    from django.contrib.auth.backends import ModelBackend
    from django.contrib.auth.models import PermissionsMixin

    if get_user_model().has_perm is not PermissionsMixin.has_perm:
        return False
    return all(isinstance(backend, ModelBackend) and type(backend).has_perm is ModelBackend.has_perm
               and type(backend).get_all_permissions is ModelBackend.get_all_permissions
               for backend in get_backends() if hasattr(backend, "has_perm"))


def _backends_changed(*, setting, **kwargs) -> None:
    if setting in ("AUTHENTICATION_BACKENDS", "AUTH_USER_MODEL"):
        _loaded_permissions_decide.cache_clear()


setting_changed.connect(_backends_changed, dispatch_uid="accounts.permissions.backends_changed")


def _holds_any(user, names: frozenset[str]) -> bool:
    """user.has_perm(name) for any of these names, in one set test when the user's permissions were loaded with
    it (Django's has_perm walks the backends, importing each, once per name)."""
    loaded = getattr(user, "_perm_cache", None)
    if loaded is None or user.is_superuser or not _loaded_permissions_decide():
        return any(user.has_perm(name) for name in names)
    return user.is_active and not loaded.isdisjoint(names)


def has_role_permission(user, codename: str) -> bool:
    return user.is_authenticated and _holds_any(user, frozenset((f"accounts.{codename}",)))


_STAFF_PERMISSION_NAMES = frozenset(f"accounts.{codename}" for codename in roles.STAFF_PERMISSIONS)


def is_staff_user(user) -> bool:
    """Operator, support or an admin: anyone who reaches more than their own play. Reads the permissions the
    request's user was loaded with (accounts.backends), so it runs no statement."""
    if not user.is_authenticated:
        return False
    if user.is_staff or user.is_superuser:
        return True
    return _holds_any(user, _STAFF_PERMISSION_NAMES)


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
