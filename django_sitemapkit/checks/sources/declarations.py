"""How the checks name a source, and the kind of each documented declaration
(``sitemapkit.E031``).

A source holds only the names the README documents
(``sources.declaration``: ``DECLARED``, ``QUERYSET_DECLARED``,
``STATIC_DECLARED`` and ``HOOKS``). The values of most declarations have a
check of their own (``CHECKED_ELSEWHERE``); this module checks the kind of
the others, and that a hook is still a method. The other checks and the
engine read those as the documented kinds, so a source with such a problem
gets only its E031 messages until it is fixed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.core.checks import CheckMessage, Error
from django.db import models

from django_sitemapkit.sources.declaration import (
    HOOKS,
    BaseSource,
    Declaration,
    SitemapSource,
    StaticSource,
    documented,
)

#: The declarations whose values other checks examine, kinds included.
CHECKED_ELSEWHERE = {
    "name": "sitemapkit.E007",
    "limit": "sitemapkit.E014",
    "lastmod": "sitemapkit.E015",
    "changefreq": "sitemapkit.E008",
    "priority": "sitemapkit.E009",
    "alternates": "sitemapkit.E027",
    "images": "sitemapkit.E028",
    "videos": "sitemapkit.E028",
    "news": "sitemapkit.E029",
    "noindex": "sitemapkit.E065",
    "canonical": "sitemapkit.E066",
    "depends_on": "sitemapkit.E112",
}


@dataclass(frozen=True)
class Kind:
    """What a declaration must be: ``accepts(value)``, named in the message as
    ``expected``; ``hint`` is the fix, given the value."""

    accepts: Callable[[object], bool]
    expected: str
    hint: Callable[[object], str]


def is_bool(value: object) -> bool:
    return isinstance(value, bool)


def is_strings(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)


def is_str_mapping(value: object) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(key, str) and isinstance(item, str) for key, item in value.items()
    )


def flag(attribute: str, meaning: str, otherwise: str) -> Kind:
    return Kind(
        is_bool,
        "True or False",
        lambda value: f"Set {attribute} = True {meaning}, or {attribute} = False {otherwise}.",
    )


def paths(attribute: str, example: str) -> Kind:
    def hint(value: object) -> str:
        if isinstance(value, str):
            return f"Set {attribute} = ({value!r},): a tuple of field paths, not one path."
        return f"Set {attribute} to a tuple of field paths (str), such as {example}."

    return Kind(is_strings, "a list or tuple of field paths (str)", hint)


def sequence(attribute: str, items: str, *, none: str | None = None) -> Kind:
    """A list or tuple (or ``None``, meaning ``none``) of ``items``."""

    def accepts(value: object) -> bool:
        return isinstance(value, (list, tuple)) or (none is not None and value is None)

    def hint(value: object) -> str:
        if isinstance(value, str):
            return f"Set {attribute} = [{value!r}]: a list, not one string."
        otherwise = "" if none is None else f", or to None {none}"
        return f"Set {attribute} to a list of {items}{otherwise}."

    expected = "a list or tuple" if none is None else "a list, a tuple or None"
    return Kind(accepts, expected, hint)


def site_names(value: object) -> str:
    if isinstance(value, str):
        return f"Set sites = [{value!r}]: a list of site names, not one string."
    return (
        "Set sites to a list of the names of the sites that list the source, such as "
        "['www'], or to None to list it on every site."
    )


KINDS: Mapping[str, Kind] = {
    "sites": Kind(
        lambda value: value is None or is_strings(value),
        "a list or tuple of site names (str) or None",
        site_names,
    ),
    "i18n": flag("i18n", "to list each row once per language", "for one URL per row"),
    "languages": sequence(
        "languages",
        "codes from LANGUAGES, such as ['en', 'fr']",
        none="to use every code of LANGUAGES",
    ),
    "x_default": flag(
        "x_default", "to add an x-default alternate (the URL in LANGUAGE_CODE)", "for none"
    ),
    "queryset": Kind(
        lambda value: value is None or isinstance(value, (models.QuerySet, models.Manager)),
        "a queryset",
        lambda value: "Set queryset = Model.objects.all() (or a filtered queryset).",
    ),
    "url_name": Kind(
        lambda value: value is None or isinstance(value, str),
        "a URL name (str) or None",
        lambda value: (
            "Set url_name to the name of a URL pattern, such as 'article-detail', "
            "or to None to use the model's get_absolute_url()."
        ),
    ),
    "url_kwargs": Kind(
        is_str_mapping,
        "a dict of URL argument to field path (str to str)",
        lambda value: (
            "Set url_kwargs to a dict from each keyword argument of the URL to the "
            "field path of its value, such as {'slug': 'slug'}."
        ),
    ),
    "fields": paths("fields", "('title', 'category__slug')"),
    "ordering": paths("ordering", "('-updated_at',)"),
    "use_instances": flag(
        "use_instances", "to hand per-row methods model instances", "to hand them dicts"
    ),
    "raw_rows": flag(
        "raw_rows", "to read rows from the database cursor", "to read them through values()"
    ),
    "title": Kind(
        lambda value: value is None or isinstance(value, str),
        "a field path (str) or None",
        lambda value: (
            "Set title to the field path of each row's title, such as 'headline' or "
            "'category__name', or to None to show each URL's path."
        ),
    ),
    "urls": sequence("urls", "URL names, (URL name, kwargs) pairs and paths starting with '/'"),
}

HOOK_HINTS = {
    (SitemapSource, "location"): "Define location(self, row) as a method returning the row's "
    "path, or remove it to build locations from url_name or get_absolute_url().",
    (SitemapSource, "get_queryset"): "Define get_queryset(self) as a method returning a "
    "queryset, or remove it to list the rows of queryset.",
    (SitemapSource, "get_site_queryset"): "Define get_site_queryset(self, site) as a method "
    "returning a queryset, or remove it to list the rows of get_queryset() on every site.",
    (StaticSource, "location"): "Define location(self, row) as a method returning the page's "
    "path, or remove it to build locations from urls.",
}


def check_kinds(source: BaseSource) -> list[CheckMessage]:
    """E031: a hook that is not a method, or a declaration of the wrong kind."""
    declaration = Declaration(source)
    base, attributes = documented(source)
    errors = [
        kind_error(source, hook, declaration.hook(hook), "a method", HOOK_HINTS[base, hook])
        for hook in HOOKS
        if (base, hook) in HOOK_HINTS and not callable(declaration.hook(hook))
    ]
    for attribute in attributes:
        kind = KINDS.get(attribute)
        value = declaration[attribute]
        if kind is not None and not kind.accepts(value):
            errors.append(kind_error(source, attribute, value, kind.expected, kind.hint(value)))
    return errors


def kind_error(
    source: BaseSource, attribute: str, value: object, expected: str, hint: str
) -> CheckMessage:
    return Error(
        f"{describe(source)} declares {attribute} {value!r}, not {expected}.",
        hint=hint,
        obj=type(source),
        id="sitemapkit.E031",
    )


def describe(source: BaseSource) -> str:
    cls = type(source)
    return f"Sitemap source {cls.__module__}.{cls.__qualname__}"
