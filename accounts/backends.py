"""Django's model backend, with a request's user and all their permissions loaded in one query.

Every API request authenticates from the session and then checks a role permission; Django's backend spends
three queries on that (the user, their own permissions, their groups' permissions). Here it is one read, so the
answer is as current as Django's: nothing is cached between requests.
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db import connection

from accounts.sessions import session_user


@cache
def _user_sql(user_model, where: str = "u.id = %s") -> tuple[str, list]:
    fields = list(user_model._meta.concrete_fields)
    columns = ", ".join(f"u.{field.column}" for field in fields)
    table = user_model._meta.db_table
    if connection.vendor == "postgresql":
        # The user's group names and permission ids first, then each permission by its key (OFFSET 0 keeps that
        # subquery apart): the auth tables are too small for autovacuum ever to analyze them, and on its default
        # estimates the planner hashed the whole permission table for every request (docs/benchmarks.md,
        # "PostgreSQL CPU per bet").
        sql = (
            f"SELECT {columns}, p.app_label, p.codename, x.group_name FROM {table} u "
            "LEFT JOIN LATERAL (SELECT NULL::integer AS permission_id, g.name AS group_name "
            "                   FROM auth_user_groups ug JOIN auth_group g ON g.id = ug.group_id "
            "                   WHERE ug.user_id = u.id "
            "                   UNION SELECT gp.permission_id, NULL FROM auth_user_groups ug "
            "                   JOIN auth_group_permissions gp ON gp.group_id = ug.group_id WHERE ug.user_id = u.id "
            "                   UNION SELECT up.permission_id, NULL FROM auth_user_user_permissions up "
            "                   WHERE up.user_id = u.id) x ON true "
            "LEFT JOIN LATERAL (SELECT ct.app_label, p.codename FROM auth_permission p "
            "                   JOIN django_content_type ct ON ct.id = p.content_type_id "
            "                   WHERE p.id = x.permission_id OFFSET 0) p ON true "
            f"WHERE {where}"
        )
    else:
        # SQLite (`make run`) has no LATERAL: the same rows by plain joins.
        sql = (
            f"SELECT {columns}, ct.app_label, p.codename, x.group_name FROM {table} u "
            "LEFT JOIN (SELECT ug.user_id, NULL AS permission_id, g.name AS group_name FROM auth_user_groups ug "
            "           JOIN auth_group g ON g.id = ug.group_id "
            "           UNION SELECT ug.user_id, gp.permission_id, NULL FROM auth_user_groups ug "
            "           JOIN auth_group_permissions gp ON gp.group_id = ug.group_id "
            "           UNION SELECT up.user_id, up.permission_id, NULL FROM auth_user_user_permissions up) x "
            "  ON x.user_id = u.id "
            "LEFT JOIN auth_permission p ON p.id = x.permission_id "
            "LEFT JOIN django_content_type ct ON ct.id = p.content_type_id "
            f"WHERE {where}"
        )
    return sql, fields


def user_sql(where: str = "u.id = %s") -> str:
    """The one statement reading a user with all their permissions and group names (one row per permission or
    group), for a caller that reads it inside a statement of its own (accounts.sessions); RoleBackend.user_from_rows
    reads its rows."""
    return _user_sql(get_user_model(), where)[0]


# An API key's user, found by the key's digest in the same one statement.
_BY_API_TOKEN = "u.id = (SELECT t.user_id FROM accounts_apitoken t WHERE t.digest = %s AND t.revoked_at IS NULL)"


class RoleBackend(ModelBackend):
    def get_user(self, user_id):
        user_model = get_user_model()
        try:
            user_id = user_model._meta.pk.to_python(user_id)
        except (ValidationError, TypeError, ValueError):
            return None
        read = session_user.get()
        if read is not None and read[0] == user_id:
            session_user.set(None)  # read with this request's session (accounts.sessions): taken once
            return read[1]
        return self._user_where(_user_sql(user_model), user_id)

    def get_user_by_api_token(self, digest: str):
        return self._user_where(_user_sql(get_user_model(), _BY_API_TOKEN), digest)

    def _user_where(self, query: tuple[str, list], value):
        sql, _fields = query
        with connection.cursor() as cursor:
            cursor.execute(sql, [value])
            rows = cursor.fetchall()
        return self.user_from_rows(rows)

    def user_from_rows(self, rows: list) -> object | None:
        """The user (None if absent or not allowed to sign in) from the rows of `user_sql`'s query."""
        user_model = get_user_model()
        fields = list(user_model._meta.concrete_fields)
        if not rows or rows[0][0] is None:
            return None
        values = _converted(user_model, fields, rows[0][:len(fields)])
        user = user_model.from_db(connection.alias, [field.attname for field in fields], values)
        if not self.user_can_authenticate(user):
            return None
        if not user.is_superuser:
            # What ModelBackend.get_all_permissions would have loaded; a superuser's "all" is left to it.
            user._perm_cache = {f"{app}.{codename}" for *_, app, codename, _group in rows if codename is not None}
        # The role every page's header shows (accounts.selectors.user_role), read in the same statement.
        user._group_names = frozenset(group for *_, group in rows if group is not None)
        return user


def _converted(user_model, fields: list, values) -> list:
    """Values as the ORM would convert them (SQLite returns dates and booleans as text and integers)."""
    out = []
    for field, value in zip(fields, values, strict=True):
        for converter in connection.ops.get_db_converters(field.get_col(user_model._meta.db_table)):
            value = converter(value, field, connection)
        out.append(value)
    return out
