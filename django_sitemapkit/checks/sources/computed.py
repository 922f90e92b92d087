"""System checks of the declarations the database computes for a queryset source:
``noindex`` (E065), ``canonical`` (E066) and a ``lastmod`` expression (E067).

Each is compiled into the section's query (``sources/listing.py``), so a
mistake would fail every page of the section, or keep out rows it should not:
found here, at start-up. A field path that does not exist is E011's.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.exceptions import EmptyResultSet, FieldError
from django.db import models
from django.db.models import Q

from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.sources.canonical import is_text
from django_sitemapkit.sources.declaration import Declaration, SitemapSource
from django_sitemapkit.sources.lastmods import is_date, selected_field
from django_sitemapkit.sources.listing import (
    LASTMOD_ALIAS,
    VALUE_ALIAS,
    is_expression,
    lastmod_expression,
    per_row,
    without_noindex,
)


def check_computed(source: SitemapSource) -> list[CheckMessage]:
    return check_noindex(source) + check_canonical(source) + check_lastmod_expression(source)


def fields_of(model: type[models.Model], kind: type[Any] | tuple[type[Any], ...]) -> str:
    """The names of ``model``'s own fields of ``kind``, as a hint lists them."""
    names = [repr(field.name) for field in model._meta.get_fields() if isinstance(field, kind)]
    return " or ".join(names) if names else "none yet"


def noindex_problem(queryset: models.QuerySet[Any], noindex: object) -> str | None:
    """What is wrong with a declared ``noindex``, or ``None``."""
    if isinstance(noindex, str):
        field = selected_field(queryset, noindex)
        if field is None or isinstance(field, models.BooleanField):
            return None  # a path that does not exist is E011's
        return f"which names a {type(field).__name__}, not a BooleanField"
    if not (isinstance(noindex, Q) or is_expression(noindex)):
        return "which is neither a field path, a Q nor a boolean expression"
    if is_expression(noindex):
        try:
            query = queryset.alias(**{VALUE_ALIAS: noindex}).query
            output = query.annotations[VALUE_ALIAS].output_field
        except FieldError as exc:
            return f"which cannot be computed for {queryset.model._meta.label} ({exc})"
        if not isinstance(output, models.BooleanField):
            return f"whose value is a {type(output).__name__}, not a boolean"
    try:
        filtered = without_noindex(queryset, noindex)
        filtered.query.get_compiler(queryset.db).as_sql()
    except EmptyResultSet:
        return None  # true for every row: the section is empty, as declared
    except (FieldError, TypeError, ValueError) as exc:
        return f"which cannot filter {queryset.model._meta.label} ({exc})"
    return None


def check_noindex(source: SitemapSource) -> list[CheckMessage]:
    noindex = Declaration(source)["noindex"]
    if noindex is None:
        return []
    queryset = source.get_queryset()
    problem = noindex_problem(queryset, noindex)
    if problem is None:
        return []
    model = queryset.model
    return [
        Error(
            f"{describe(source)} declares noindex {noindex!r}, {problem}.",
            hint=f"Set noindex to a BooleanField of {model._meta.label} "
            f"({fields_of(model, models.BooleanField)}), a Q such as Q(status='draft'), or "
            "a boolean expression such as Exists(...); or remove it.",
            obj=type(source),
            id="sitemapkit.E065",
        )
    ]


def check_canonical(source: SitemapSource) -> list[CheckMessage]:
    canonical = Declaration(source)["canonical"]
    if canonical is None:
        return []
    model = source.get_queryset().model
    if not isinstance(canonical, str):
        problem = "not a field path (str)"
    else:
        field = selected_field(source.get_queryset(), canonical)
        if field is None or is_text(field):
            return []  # a path that does not exist is E011's
        problem = f"which names a {type(field).__name__}, not a text field"
    texts = fields_of(model, (models.CharField, models.TextField))
    return [
        Error(
            f"{describe(source)} declares canonical {canonical!r}, {problem}.",
            hint=f"Set canonical to the path of a CharField or TextField of "
            f"{model._meta.label} holding each row's canonical URL ({texts}), or remove it.",
            obj=type(source),
            id="sitemapkit.E066",
        )
    ]


def lastmod_problem(queryset: models.QuerySet[Any], expression: Any) -> str | None:
    try:
        computed = per_row(queryset, expression)
        annotated = queryset.annotate(**{LASTMOD_ALIAS: computed}).query
        resolved = annotated.annotations[LASTMOD_ALIAS]
        output = resolved.output_field
    except FieldError as exc:
        return f"which cannot be computed for {queryset.model._meta.label} ({exc})"
    if resolved.contains_over_clause:
        return "which is a window function: a row's lastmod cannot depend on other rows"
    if is_date(output):
        return None
    return f"whose value is a {type(output).__name__}, not a date or datetime"


def check_lastmod_expression(source: SitemapSource) -> list[CheckMessage]:
    expression = lastmod_expression(Declaration(source))
    if expression is None:
        return []
    problem = lastmod_problem(source.get_queryset(), expression)
    if problem is None:
        return []
    return [
        Error(
            f"{describe(source)} declares lastmod {expression!r}, {problem}.",
            hint="Compute a date or datetime from the model's fields, and give an expression "
            "of mixed types its type, such as Greatest('updated_at', 'published_on', "
            "output_field=DateTimeField()).",
            obj=type(source),
            id="sitemapkit.E067",
        )
    ]
