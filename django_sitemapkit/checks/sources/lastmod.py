"""System checks of a source's ``lastmod``: a constant that is no date (E015), or one in
the future (W036); a field path whose field holds no date (E063), or one that every
save moves (W035).

The engine reads a ``lastmod`` field twice: per row, where a value that is no
date skips the row (logged), and per page, as the database's ``MAX()`` of the
column, for ``Last-Modified`` and the index. A text, number or boolean field
therefore skips every row of the section: found here, before a crawler does.
"""

from __future__ import annotations

from django.core.checks import CheckMessage, Error, Warning
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
from django_sitemapkit.values import Horizon, format_lastmod


def check_lastmod_constant(source: BaseSource) -> list[CheckMessage]:
    lastmod = type(source).lastmod
    if lastmod is None or callable(lastmod) or isinstance(lastmod, Field):
        return []
    if isinstance(source, SitemapSource) and isinstance(lastmod, str):
        return []  # a field path: check_lastmod_field()
    if isinstance(source, SitemapSource) and is_expression(lastmod):
        return []  # an expression: checks/sources/computed.py (E067)
    try:
        written = format_lastmod(lastmod)
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
    if Horizon().passed(written):
        return [
            Warning(
                f"{describe(source)} declares lastmod {lastmod!r}, which is later than now: "
                "every entry is listed without it, as search engines refuse dates in the "
                "future.",
                hint="Set lastmod to when the section's pages last changed, or remove it.",
                obj=type(source),
                id="sitemapkit.W036",
            )
        ]
    return []


def check_lastmod_field(source: SitemapSource) -> list[CheckMessage]:
    """E063 for a ``lastmod`` path whose field is not a ``DateField`` or
    ``DateTimeField`` (a path that does not exist is E011's); W035 for one whose
    field has ``auto_now=True``."""
    path = field_path(Declaration(source), "lastmod", True)
    if path is None:
        return []
    queryset = source.get_queryset()
    found = selected_field(queryset, path)
    if found is not None and is_date(found) and getattr(found, "auto_now", False):
        return [auto_now_warning(source, found)]
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


def auto_now_warning(source: SitemapSource, found: object) -> Warning:
    """W035: a ``lastmod`` field with ``auto_now=True``, which every ``save()`` moves."""
    assert isinstance(found, models.Field)
    return Warning(
        f"{describe(source)} declares lastmod {type(source).lastmod!r}, which names "
        f"{found.model._meta.label}.{found.name}, a field with auto_now=True: every save() "
        "moves it, whether or not the page changed, and search engines stop trusting "
        "dates that move without their page.",
        hint=f"Drop auto_now and set {found.name} where the page's content changes (in "
        "save(), when the fields the page shows differ, or in the views that edit it); or "
        "define a lastmod(self, row) method that returns such a date.",
        obj=type(source),
        id="sitemapkit.W035",
    )
