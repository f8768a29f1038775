"""The API's role guard: one DRF permission class per set of role permissions, for every app's API views."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from accounts.permissions import has_role_permission, missing_permission_message


def role_permission(*codenames: str) -> type[BasePermission]:
    """A DRF permission: the user holds any of these role permissions; a refusal names the first one."""

    class HasRole(BasePermission):
        message = missing_permission_message(codenames[0])

        def has_permission(self, request, view) -> bool:
            return any(has_role_permission(request.user, codename) for codename in codenames)

    HasRole.__name__ = "Has_" + "_or_".join(codenames)
    return HasRole
