"""Querysets compiled to SQL once per process and run again with fresh parameters, several in one round trip.

The ledger audit runs the same dozen read-only querysets every time (after every test of the suite, and from
`manage.py ledger_audit` and the dashboard): building and compiling them cost Django more than PostgreSQL spends
running them. A CompiledQuery builds its queryset once per database, keeps the SQL and the result converters, and
runs that SQL again with the parameters of this run: a time such as `now - STUCK_AFTER` stays a parameter, bound on
every run, never a value frozen into the cached SQL. queries_run sends several at once (a psycopg pipeline: one
round trip).

A parameter must reach the SQL as it was given (a datetime compared with a column): compiling with two different
sample values finds where each lands, and a queryset whose SQL changes with them, or whose parameter Django
adapts (SQLite turns datetimes into text), is not cached but built and evaluated on every run, as before.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet
from django.db.models.query import ValuesIterable, ValuesListIterable


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple
    slots: tuple[tuple[int, str], ...]  # (position in params, parameter name)
    col_count: int
    converters: tuple[tuple[int, tuple, Any], ...]  # (column, converter functions, expression)
    names: tuple[str, ...] | None  # dict rows (values()) keyed by these; None: tuples (values_list())

    def statement(self, values: dict[str, Any]) -> tuple[str, list]:
        params = list(self.params)
        for position, name in self.slots:
            params[position] = values[name]
        return self.sql, params

    def rows(self, fetched: list, connection: BaseDatabaseWrapper) -> list:
        rows = []
        for fetched_row in fetched:
            row = list(fetched_row[:self.col_count])
            for column, functions, expression in self.converters:
                value = row[column]
                for function in functions:
                    value = function(value, expression, connection)
                row[column] = value
            rows.append(dict(zip(self.names, row, strict=True)) if self.names is not None else tuple(row))
        return rows


def _samples(names: Sequence[str], year: int) -> dict[str, datetime]:
    return {name: datetime(year, 1, 1 + i, tzinfo=UTC) for i, name in enumerate(names)}


class CompiledQuery:
    """build(**params) -> a values() or values_list() queryset; its parameters are datetimes used as given.
    Call it with this run's values to get a query for queries_run."""

    def __init__(self, build: Callable[..., QuerySet], *params: str):
        self.build = build
        self.params = params
        self._compiled: dict[tuple[str, str], _Compiled | None] = {}

    def __call__(self, **values: Any) -> "BoundQuery":
        if set(values) != set(self.params):
            raise TypeError(f"this query takes {sorted(self.params)}, not {sorted(values)}")
        return BoundQuery(self, values)

    def compiled(self, connection: BaseDatabaseWrapper) -> _Compiled | None:
        """The SQL for this database, compiled on first use; None where it cannot be reused (see the module)."""
        key = (connection.alias, connection.vendor)
        if key not in self._compiled:
            self._compiled[key] = self._compile(connection)
        return self._compiled[key]

    def _compile(self, connection: BaseDatabaseWrapper) -> _Compiled | None:
        from django.core.exceptions import EmptyResultSet

        one, two = _samples(self.params, 1901), _samples(self.params, 1951)
        querysets = [self.build(**one).using(connection.alias), self.build(**two).using(connection.alias)]
        if any(qs._iterable_class not in (ValuesIterable, ValuesListIterable) for qs in querysets):
            raise TypeError("a CompiledQuery builds a values() or values_list() queryset")
        compilers = [qs.query.get_compiler(connection=connection) for qs in querysets]
        try:
            (sql, params), (sql_two, params_two) = (compiler.as_sql() for compiler in compilers)
        except EmptyResultSet:
            return None
        if sql != sql_two or len(params) != len(params_two):
            return None
        by_value = {value: name for name, value in one.items()}
        slots = []
        for position, (value, value_two) in enumerate(zip(params, params_two, strict=True)):
            if value == value_two:
                continue  # a constant of the queryset
            name = by_value.get(value) if isinstance(value, datetime) else None
            if name is None or value_two != two[name]:
                return None  # a parameter Django adapted or combined: not reusable as given
            slots.append((position, name))
        if {name for _position, name in slots} != set(self.params):
            return None
        compiler = compilers[0]
        fields = [selected[0] for selected in compiler.select[0:compiler.col_count]]
        if compiler.has_composite_fields(fields):
            return None
        converters = tuple((column, tuple(functions), expression)
                           for column, (functions, expression) in compiler.get_converters(fields).items())
        query = querysets[0].query
        names = None
        if querysets[0]._iterable_class is ValuesIterable:
            names = tuple(query.selected) if query.selected else (
                *query.extra_select, *query.values_select, *query.annotation_select)
            if len(names) != compiler.col_count:
                return None
        return _Compiled(sql, tuple(params), tuple(slots), compiler.col_count, converters, names)


@dataclass(frozen=True)
class BoundQuery:
    query: CompiledQuery
    values: dict[str, Any]

    def evaluate(self, using: str) -> list:
        """The rows as the queryset itself gives them (the path where the SQL is not reused)."""
        return list(self.query.build(**self.values).using(using))


def _pipeline(connection: BaseDatabaseWrapper):
    """psycopg 3's pipeline on this connection (statements sent together, one round trip), or None."""
    if connection.vendor != "postgresql":
        return None
    connection.ensure_connection()
    raw = connection.connection
    pipeline = getattr(raw, "pipeline", None)
    if pipeline is None:
        return None
    import psycopg

    return pipeline if psycopg.Capabilities().has_pipeline() else None


def queries_run(queries: Sequence[BoundQuery], *, using: str = DEFAULT_DB_ALIAS) -> list[list]:
    """The rows of each query, in order: the compiled ones in one round trip where the database allows it."""
    connection = connections[using]
    results: list[list | None] = [None] * len(queries)
    statements = []
    for index, bound in enumerate(queries):
        compiled = bound.query.compiled(connection)
        if compiled is None:
            results[index] = bound.evaluate(using)
        else:
            statements.append((index, compiled, compiled.statement(bound.values)))
    pipeline = _pipeline(connection) if len(statements) > 1 else None
    cursors = [connection.cursor() for _ in statements]
    try:
        with connection.wrap_database_errors:
            if pipeline is not None:
                with pipeline():
                    for cursor, (_index, _compiled, (sql, params)) in zip(cursors, statements, strict=True):
                        cursor.execute(sql, params)
                    fetched = [cursor.fetchall() for cursor in cursors]
            else:
                fetched = []
                for cursor, (_index, _compiled, (sql, params)) in zip(cursors, statements, strict=True):
                    cursor.execute(sql, params)
                    fetched.append(cursor.fetchall())
    finally:
        for cursor in cursors:
            cursor.close()
    for (index, compiled, _statement), rows in zip(statements, fetched, strict=True):
        results[index] = compiled.rows(rows, connection)
    return results  # type: ignore[return-value]
