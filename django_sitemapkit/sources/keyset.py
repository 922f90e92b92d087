"""Keyset ("seek") paging: a page starts where the previous one's key left off.

``queryset[950000:1000000]`` makes the database step over 950,000 rows,
joins and all, before the first one it returns, so each page costs more than
the one before. Reading ``key >= first key of the page`` in the same order
costs the same for every page. That needs a total order on columns that are
never NULL (a NULL compares as unknown in SQL and would drop rows), which a
source's ordering gives when it names concrete, non-null fields of the model
and ends with the primary key (``SitemapSource.order_by()`` sees to that).
Any other ordering is paged by offset, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.db.models import Q


class KeyColumn(NamedTuple):
    name: str
    descending: bool


def ordering_key(model: type[models.Model], ordering: Sequence[str]) -> list[KeyColumn] | None:
    """The columns of ``ordering`` as a key for seeking, or ``None`` if it cannot be one."""
    key = []
    for entry in ordering:
        name = entry.removeprefix("-")
        if name != "pk" and not is_plain_column(model, name):
            return None
        key.append(KeyColumn(name, entry.startswith("-")))
    if not key or key[-1].name not in ("pk", model._meta.pk.name):
        return None
    return key


def is_plain_column(model: type[models.Model], name: str) -> bool:
    """A local, concrete, non-null field that orders by its own value.

    A relation is excluded: ordering by it follows the related model's
    ``Meta.ordering``, not the column.
    """
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return bool(getattr(field, "concrete", False) and not field.null and not field.is_relation)


def fits(model: type[models.Model], key: Sequence[KeyColumn], values: Sequence[Any]) -> bool:
    """Whether ``values`` (read back from a manifest or a job) are a value of each
    column of ``key``, of the very type the column gives: a seek with anything else
    would fail in the database, or compare as no row of the column ever does."""
    if len(values) != len(key):
        return False
    for column, value in zip(key, values, strict=True):
        field = model._meta.pk if column.name == "pk" else model._meta.get_field(column.name)
        assert isinstance(field, models.Field), field  # a plain column (is_plain_column)
        try:
            read = field.to_python(value)
        except (ValidationError, TypeError, ValueError):
            return False
        # type(): a datetime is a date, and True an int, to isinstance().
        if type(read) is not type(value) or read != value:
            return False
    return True


def from_start(key: Sequence[KeyColumn], start: Sequence[Any]) -> Q:
    """Rows at or after ``start`` in the order of ``key``.

    ``(a, b) >= (x, y)`` spelt out so every database takes it, with each
    column's direction: ``a > x OR (a = x AND b >= y)``.
    """
    return compared(key, start, after=True)


def before(key: Sequence[KeyColumn], stop: Sequence[Any]) -> Q:
    """Rows strictly before ``stop`` in the order of ``key``: ``a < x OR (a = x AND b < y)``."""
    return compared(key, stop, after=False)


def between(key: Sequence[KeyColumn], low: Sequence[Any] | None, high: Sequence[Any] | None) -> Q:
    """Rows from ``low`` (included) up to ``high`` (excluded); ``None`` is open-ended."""
    condition = Q()
    if low is not None:
        condition &= from_start(key, low)
    if high is not None:
        condition &= before(key, high)
    return condition


def compared(key: Sequence[KeyColumn], values: Sequence[Any], *, after: bool) -> Q:
    condition = Q(pk__in=[])
    equal: dict[str, Any] = {}
    last = len(key) - 1
    for position, (column, value) in enumerate(zip(key, values, strict=True)):
        forward = after != column.descending
        comparison = ("gt" if forward else "lt") + ("e" if after and position == last else "")
        condition |= Q(**equal, **{f"{column.name}__{comparison}": value})
        equal[column.name] = value
    return condition
