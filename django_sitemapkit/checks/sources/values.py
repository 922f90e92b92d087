"""System checks of each registered source's declarations: its name, constants,
queryset, field paths, URL names and static pages; its sites, and the hosts of
its absolute URLs, in ``source_sites``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.exceptions import FieldError
from django.urls import NoReverseMatch

from django_sitemapkit.checks.sites.source_sites import check_fixed_url, check_source_sites
from django_sitemapkit.checks.sources.computed import check_computed
from django_sitemapkit.checks.sources.declarations import check_kinds, describe
from django_sitemapkit.checks.sources.extensions import check_extensions
from django_sitemapkit.checks.sources.lastmod import check_lastmod_constant, check_lastmod_field
from django_sitemapkit.conf import MAX_URLS
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.resolution import namespaced_resolver
from django_sitemapkit.names import SECTION_NAME
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Declaration,
    Field,
    SitemapSource,
    StaticPage,
    StaticSource,
)
from django_sitemapkit.sources.listing import columns, declared_paths
from django_sitemapkit.values import CHANGEFREQS, format_priority


def check_sources(**kwargs: Any) -> list[CheckMessage]:
    errors = check_section_names(registry.all())
    for source in registry.all():
        errors += check_source(source)
    return errors


def check_section_names(sources: Iterable[BaseSource]) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    seen: dict[str, BaseSource] = {}
    for source in sources:
        name: object = source.name
        if not isinstance(name, str) or not SECTION_NAME.fullmatch(name):
            errors.append(
                Error(
                    f"{describe(source)} has the section name {source.name!r}, which cannot "
                    "appear safely in a file name.",
                    hint="Set name to 1 to 64 ASCII letters, digits, '-' or '_', starting "
                    "with a letter or digit.",
                    obj=type(source),
                    id="sitemapkit.E007",
                )
            )
            continue
        # Case-insensitive: pre-rendered files may land on a case-insensitive disk.
        other = seen.setdefault(source.name.lower(), source)
        if other is not source:
            errors.append(
                Error(
                    f"{describe(source)} has the section name {source.name!r}, already used "
                    f"by {describe(other)}.",
                    hint="Give each source its own name; names that differ only in case "
                    "count as the same.",
                    obj=type(source),
                    id="sitemapkit.E006",
                )
            )
    return errors


def check_source(source: BaseSource) -> list[CheckMessage]:
    errors = check_kinds(source)
    if errors:
        return errors  # the checks below read these declarations as documented
    errors = check_limit_attribute(source) + check_constants(source) + check_extensions(source)
    errors += check_source_sites(source)
    if isinstance(source, SitemapSource):
        errors += check_queryset_source(source)
    elif isinstance(source, StaticSource):
        errors += check_static_source(source)
    return errors


def check_limit_attribute(source: BaseSource) -> list[CheckMessage]:
    value = source.limit
    if value is None or (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_URLS
    ):
        return []
    return [
        Error(
            f"{describe(source)} declares limit {value!r}, not a whole number from 1 to "
            f"{MAX_URLS:,}.",
            hint=f"Set limit to a number from 1 to {MAX_URLS}, or remove it to use "
            "SITEMAPKIT_LIMIT.",
            obj=type(source),
            id="sitemapkit.E014",
        )
    ]


def check_constants(source: BaseSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    changefreq = type(source).changefreq
    if not (changefreq is None or callable(changefreq) or isinstance(changefreq, Field)) and (
        not isinstance(changefreq, str) or changefreq not in CHANGEFREQS
    ):
        errors.append(
            Error(
                f"{describe(source)} declares changefreq {changefreq!r}, which is not a "
                "protocol value.",
                hint=f"Use one of {', '.join(map(repr, CHANGEFREQS))}, "
                "Field('<field path>'), or a changefreq(row) method.",
                obj=type(source),
                id="sitemapkit.E008",
            )
        )
    priority = type(source).priority
    if not (priority is None or callable(priority) or isinstance(priority, Field)):
        try:
            format_priority(priority)
        except InvalidEntry:
            errors.append(
                Error(
                    f"{describe(source)} declares priority {priority!r}, which is not a "
                    "number from 0.0 to 1.0.",
                    hint="Use a number from 0.0 to 1.0, Field('<field path>'), or a "
                    "priority(row) method.",
                    obj=type(source),
                    id="sitemapkit.E009",
                )
            )
    return errors + check_lastmod_constant(source)


def check_queryset_source(source: SitemapSource) -> list[CheckMessage]:
    if source.queryset is None:
        return [
            Error(
                f"{describe(source)} declares no queryset.",
                hint="Set queryset = Model.objects.all() (or a filtered queryset).",
                obj=type(source),
                id="sitemapkit.E013",
            )
        ]
    errors = check_field_paths(source) + check_lastmod_field(source) + check_computed(source)
    if source.url_name is not None:
        errors += check_url_name(source, source.url_name, set(source.url_kwargs))
    elif not Declaration(source).overrides("location", SitemapSource) and not hasattr(
        source.get_queryset().model, "get_absolute_url"
    ):
        errors.append(
            Error(
                f"{describe(source)} has no url_name and its model "
                f"{source.get_queryset().model._meta.label} has no get_absolute_url().",
                hint="Set url_name and url_kwargs, define get_absolute_url() on the model, "
                "or override location(row) on the source.",
                obj=type(source),
                id="sitemapkit.E013",
            )
        )
    return errors


def check_field_paths(source: SitemapSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    ordering = [path.removeprefix("-") for path in source.ordering]
    declaration = Declaration(source)
    named = [*columns(declaration, lastmod=True), *ordering, *declared_paths(declaration)]
    for path in dict.fromkeys(named):
        try:
            source.get_queryset().values(path)
        except FieldError:
            errors.append(
                Error(
                    f"{describe(source)} names the field path {path!r}, which does not exist "
                    f"on {source.get_queryset().model._meta.label}.",
                    hint="Use a field name, or a path across relations such as 'category__slug'.",
                    obj=type(source),
                    id="sitemapkit.E011",
                )
            )
    return errors


def check_static_source(source: StaticSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    for item in source.urls:
        try:
            page = StaticPage.from_declaration(item)
        except TypeError as exc:
            errors.append(
                Error(
                    f"{describe(source)} lists {item!r} in urls, which is not a page.",
                    hint=str(exc).replace(f"{item!r} is not", "Use"),
                    obj=type(source),
                    id="sitemapkit.E017",
                )
            )
            continue
        if page.url_name is not None:
            errors += check_url_name(source, page.url_name, set(page.kwargs))
        elif page.path is not None:
            errors += check_fixed_url(source, page.path)
    return errors


#: E010's fix, by the kind of source: a static page has no url_kwargs.
URL_NAME_HINTS = {
    SitemapSource: "Set url_name to a name in your URLconf and url_kwargs to its arguments "
    "(URL argument -> field path).",
    StaticSource: "List in urls a name in your URLconf, a (URL name, {argument: value}) "
    "pair for a URL that takes arguments, or a path starting with '/'.",
}


def url_name_hint(source: BaseSource) -> str:
    return URL_NAME_HINTS[StaticSource if isinstance(source, StaticSource) else SitemapSource]


def check_url_name(source: BaseSource, url_name: str, kwargs: set[str]) -> list[CheckMessage]:
    accepted = url_parameter_sets(url_name)
    if any(kwargs >= required and kwargs <= allowed for required, allowed in accepted):
        return []
    if accepted:
        expected = " or ".join(repr(sorted(allowed)) for _, allowed in accepted)
        problem = f"takes the arguments {expected}, not {sorted(kwargs)!r}"
    else:
        problem = "is not a URL name of ROOT_URLCONF"
    return [
        Error(
            f"{describe(source)} names the URL {url_name!r}, which {problem}.",
            hint=url_name_hint(source),
            obj=type(source),
            id="sitemapkit.E010",
        )
    ]


def url_parameter_sets(url_name: str) -> list[tuple[set[str], set[str]]]:
    """(required, allowed) keyword sets of every pattern ``reverse(url_name)`` may use,
    in the resolver its namespace walk reaches (``namespaced_resolver()``)."""
    try:
        resolver, name = namespaced_resolver(url_name)
    except NoReverseMatch:
        return []
    sets = []
    for possibility, _pattern, defaults, _converters in resolver.reverse_dict.getlist(name):
        for _result, params in possibility:
            required = set(params) - set(defaults)
            sets.append((required, set(params) | set(defaults)))
    return sets
