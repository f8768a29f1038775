"""roles_sync, which every test needing the roles calls first: in sync it only reads, and it repairs every way the
groups can drift from accounts.roles."""

import pytest
from django.contrib.auth.models import Group, Permission

from accounts import roles
from accounts.services import roles_sync


def _held() -> dict[str, set[str]]:
    return {role: set(Group.objects.get(name=role).permissions.values_list("codename", flat=True))
            for role in roles.ROLES}


WANTED = {role: set(codenames) for role, codenames in roles.ROLE_PERMISSIONS.items()}


@pytest.mark.django_db
def test_groups_in_sync_are_only_read(django_assert_max_num_queries):
    roles_sync()
    with django_assert_max_num_queries(3):
        roles_sync()
    assert _held() == WANTED


@pytest.mark.django_db
@pytest.mark.parametrize("drift", ["permission_removed", "permission_added", "group_deleted", "name_changed"])
def test_drifted_groups_are_repaired(drift):
    roles_sync()
    support = Group.objects.get(name=roles.SUPPORT)
    if drift == "permission_removed":
        support.permissions.remove(Permission.objects.get(codename="void_rounds"))
    elif drift == "permission_added":
        support.permissions.add(Permission.objects.get(codename="configure_tables"))
    elif drift == "group_deleted":
        support.delete()
    else:
        Permission.objects.filter(codename="play").update(name="Can do anything")
    roles_sync()
    assert _held() == WANTED
    assert Permission.objects.get(codename="play").name == f"Can {roles.PERMISSIONS['play']}"
