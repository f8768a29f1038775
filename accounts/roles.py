"""The three kinds of user and what each may do. Groups are created from this by a data migration."""

OPERATOR = "operator"
SUPPORT = "support"
PLAYER = "player"
ROLES = (OPERATOR, SUPPORT, PLAYER)

# codename -> human description; the 403 page quotes the description so a user knows what is missing.
PERMISSIONS = {
    "configure_tables": "configure tables, bet limits and paytables",
    "view_dashboard": "read the operator dashboard",
    "view_backoffice": "read every table, round and player",
    "lookup_players": "look up players, game numbers and transactions",
    "void_rounds": "void a round",
    "grant_golden_chips": "grant Golden Chips to a player",
    "view_staff_activity": "read the record of every staff action",
    "configure_jurisdictions": "change the responsible-gambling rules of each jurisdiction",
    "play": "play and hold a wallet",
}

ROLE_PERMISSIONS = {
    OPERATOR: ("configure_tables", "view_dashboard", "view_backoffice", "void_rounds", "grant_golden_chips",
               "view_staff_activity", "configure_jurisdictions"),
    SUPPORT: ("view_backoffice", "lookup_players", "void_rounds"),
    PLAYER: ("play",),
}


STAFF_ROLES = (OPERATOR, SUPPORT)
# Holding any of these makes a user staff: they sign in with a second factor and a stronger password.
STAFF_PERMISSIONS = frozenset(codename for role in STAFF_ROLES for codename in ROLE_PERMISSIONS[role])


def roles_for_permission(codename: str) -> list[str]:
    return [role for role, codenames in ROLE_PERMISSIONS.items() if codename in codenames]


def sync_groups(*, group_model, permission_model, content_type, permissions: dict[str, str] | None = None,
                role_permissions: dict[str, tuple[str, ...]] | None = None) -> None:
    """Create or repair the role groups; takes models as arguments so a migration can pass historical ones, and
    the roles too, so a migration writes the roles frozen in it rather than today's."""
    permissions = PERMISSIONS if permissions is None else permissions
    role_permissions = ROLE_PERMISSIONS if role_permissions is None else role_permissions
    for codename, description in permissions.items():
        permission_model.objects.update_or_create(
            content_type=content_type, codename=codename, defaults={"name": f"Can {description}"}
        )
    for role, codenames in role_permissions.items():
        group, _ = group_model.objects.get_or_create(name=role)
        group.permissions.set(permission_model.objects.filter(content_type=content_type, codename__in=codenames))


def groups_sync_migration(permissions: dict[str, str], role_permissions: dict[str, tuple[str, ...]]):
    """A data migration's RunPython: the role groups as the migration states them (a frozen copy, never this
    module's dicts: an edit here must not change what an old migration wrote), through its historical models.
    A change to PERMISSIONS or ROLE_PERMISSIONS needs a new migration with a copy of the new ones
    (tests/accounts/test_roles_sync.py fails until the latest such migration states today's roles)."""

    def sync(apps, schema_editor) -> None:
        content_type_model = apps.get_model("contenttypes", "ContentType")
        content_type, _ = content_type_model.objects.get_or_create(app_label="accounts", model="backoffice")
        sync_groups(group_model=apps.get_model("auth", "Group"), permission_model=apps.get_model("auth", "Permission"),
                    content_type=content_type, permissions=permissions, role_permissions=role_permissions)

    sync.frozen_roles = (permissions, role_permissions)  # type: ignore[attr-defined]
    return sync
