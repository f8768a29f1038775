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


def _frozen_roles_by_migration() -> list[tuple[str, tuple]]:
    """The roles each accounts migration that syncs the groups wrote, in the order the migrations run."""
    from django.db.migrations import RunPython
    from django.db.migrations.loader import MigrationLoader

    loader = MigrationLoader(None, ignore_no_migrations=True)
    [leaf] = loader.graph.leaf_nodes("accounts")
    return [(name, op.code.frozen_roles) for app, name in loader.graph.forwards_plan(leaf) if app == "accounts"
            for op in loader.graph.nodes[(app, name)].operations
            if isinstance(op, RunPython) and hasattr(op.code, "frozen_roles")]


def test_the_latest_migration_syncing_the_groups_states_the_roles_of_accounts_roles():
    # Migrations freeze the roles they wrote; a database gets today's only from a migration stating them.
    synced = _frozen_roles_by_migration()
    assert [name for name, _ in synced][:1] == ["0002_role_groups"]
    name, (permissions, role_permissions) = synced[-1]
    assert (permissions, role_permissions) == (roles.PERMISSIONS, roles.ROLE_PERMISSIONS), (
        f"accounts.roles differs from the roles migration {name} wrote: write a new migration that syncs the role "
        "groups (RunPython(groups_sync_migration(...)) with a frozen copy of PERMISSIONS and ROLE_PERMISSIONS)")
    for _, (permissions, role_permissions) in synced:
        assert set(role_permissions) == set(roles.ROLES)
        assert {c for codenames in role_permissions.values() for c in codenames} <= set(permissions)
