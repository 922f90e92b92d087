"""System checks of a source's ``lastmod``: a constant that is no date (E015), and a
field path whose field holds no date (E063).

The engine reads a ``lastmod`` field twice: per row, where a value that is no
date skips the row (logged), and per page, as the database's ``MAX()`` of the
column, for ``Last-Modified`` and the index. A text, number or boolean field
therefore skips every row of the section: found here, before a crawler does.
"""

from __future__ import annotations

from django.core.checks import CheckMessage, Error
from django.db import models

from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Declaration,
    Field,
    SitemapSource,
)
from django_sitemapkit.sources.entries import field_path
from django_sitemapkit.sources.lastmods import is_date, selected_field
from django_sitemapkit.sources.listing import is_expression
from django_sitemapkit.values import format_lastmod


def check_lastmod_constant(source: BaseSource) -> list[CheckMessage]:
    lastmod = type(source).lastmod
    if lastmod is None or callable(lastmod) or isinstance(lastmod, Field):
        return []
    if isinstance(source, SitemapSource) and isinstance(lastmod, str):
        return []  # a field path: check_lastmod_field()
    if isinstance(source, SitemapSource) and is_expression(lastmod):
        return []  # an expression: checks/sources/computed.py (E067)
    try:
        format_lastmod(lastmod)
    except InvalidEntry:
        return [
            Error(
                f"{describe(source)} declares lastmod {lastmod!r}, which is neither a "
                "date, a datetime, nor a field path.",
                hint="Name a date or datetime field (lastmod = 'updated_at'), or define "
                "a lastmod(row) method.",
                obj=type(source),
                id="sitemapkit.E015",
            )
        ]
    return []


def check_lastmod_field(source: SitemapSource) -> list[CheckMessage]:
    """E063 for a ``lastmod`` path whose field is not a ``DateField`` or
    ``DateTimeField`` (a path that does not exist is E011's)."""
    path = field_path(Declaration(source), "lastmod", True)
    if path is None:
        return []
    queryset = source.get_queryset()
    found = selected_field(queryset, path)
    if found is None or is_date(found):
        return []
    return [
        Error(
            f"{describe(source)} declares lastmod {type(source).lastmod!r}, which names a "
            f"{type(found).__name__}, not a date or datetime field: every entry of the "
            "section would be skipped.",
            hint=f"{date_fields_fix(queryset.model)}, or define a lastmod(self, row) method "
            "that returns a date or datetime.",
            obj=type(source),
            id="sitemapkit.E063",
        )
    ]


def date_fields_fix(model: type[models.Model]) -> str:
    """The fields a ``lastmod`` could name instead, in the order the model declares them."""
    label = model._meta.label
    dates = [field.name for field in model._meta.get_fields() if is_date(field)]
    if not dates:
        return f"{label} has no date or datetime field: remove lastmod"
    return f"Set lastmod to a date or datetime field of {label} ({' or '.join(map(repr, dates))})"
