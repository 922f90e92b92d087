"""A section's ``lastmod`` column without a database index (I001): a suggestion.

The index's validator, and the validator a page's kept start is read under, ask
the database for the section's newest ``lastmod`` (``sources/summary.py``). With
an index on the column that is one step down the index; without one, a read of
every row of the section, on every request of the index, a 304 included.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Info
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import Declaration, SitemapSource
from django_sitemapkit.sources.entries import field_path


def check_lastmod_indexes(**kwargs: Any) -> list[CheckMessage]:
    found: list[CheckMessage] = []
    for source in registry.all():
        if isinstance(source, SitemapSource) and source.queryset is not None:
            found += check_lastmod_index(source)
    return found


def lastmod_column(source: SitemapSource) -> models.Field[Any, Any] | None:
    """The model's own concrete field the ``lastmod`` path names; ``None`` for a path
    across a relation, an annotation or an expression (no index of this model's
    table can answer those) and for one that does not exist (E011 says so)."""
    path = field_path(Declaration(source), "lastmod", True)
    if path is None or "__" in path:
        return None
    model = source.get_queryset().model
    try:
        field = model._meta.get_field(path)
    except FieldDoesNotExist:
        return None
    return field if isinstance(field, models.Field) and field.concrete else None


def leads(fields: Any, name: str) -> bool:
    """Whether ``name`` is the first column of an index on ``fields`` (a descending one
    too): the only column of a composite index whose newest value it finds at once."""
    return bool(fields) and str(fields[0]).removeprefix("-") == name


def is_indexed(field: models.Field[Any, Any]) -> bool:
    """An index of the field's own, its unique constraint, or one whose first column
    it is, without a condition (a partial index holds only some of the rows)."""
    # db_index is set by Field.__init__ (django-stubs leaves it out).
    if getattr(field, "db_index", False) or field.unique or field.primary_key:
        return True
    meta = field.model._meta
    names = {field.name, field.attname}
    declared = [
        *(index for index in meta.indexes if index.condition is None),
        *(
            constraint
            for constraint in meta.constraints
            if isinstance(constraint, models.UniqueConstraint) and constraint.condition is None
        ),
    ]
    if any(leads(getattr(item, "fields", ()), name) for item in declared for name in names):
        return True
    return any(leads(together, name) for together in meta.unique_together for name in names)


def check_lastmod_index(source: SitemapSource) -> list[CheckMessage]:
    field = lastmod_column(source)
    if field is None or is_indexed(field):
        return []
    model = field.model._meta.label
    return [
        Info(
            f"{describe(source)} declares lastmod {type(source).lastmod!r}, which names "
            f"{model}.{field.name}, a column with no database index: the sitemap index's "
            "validator (its 304 included) reads the newest value by reading every row of "
            "the section.",
            hint=f"Add db_index=True to {model}.{field.name} (or "
            f'models.Index(fields=["{field.name}"], name="...") to {model}\'s Meta.indexes), '
            "then run makemigrations and migrate.",
            obj=type(source),
            id="sitemapkit.I001",
        )
    ]
