"""The kind of each documented declaration and hook, sitemapkit.E031
(checks/sources/declarations.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import StaticSource
from django_sitemapkit.checks import check_sources
from django_sitemapkit.checks.sources.declarations import CHECKED_ELSEWHERE, HOOK_HINTS, KINDS
from django_sitemapkit.sources.declaration import (
    DECLARED,
    HOOKS,
    QUERYSET_DECLARED,
    STATIC_DECLARED,
    BaseSource,
)

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"


def e031(source: type[BaseSource], attribute: str, shown: str, expected: str, hint: str) -> Error:
    return Error(
        f"{SOURCE}.{source.__name__} declares {attribute} {shown}, not {expected}.",
        hint=hint,
        obj=source,
        id="sitemapkit.E031",
    )


def declaring(
    base: type[BaseSource], class_name: str = "Declaring", /, **attributes: Any
) -> type[Any]:
    return type(class_name, (base,), {**attributes, "__module__": __name__})


def test_every_documented_name_has_a_check() -> None:
    documented = {*DECLARED, *QUERYSET_DECLARED, *STATIC_DECLARED}
    assert set(KINDS) | set(CHECKED_ELSEWHERE) == documented
    assert not set(KINDS) & set(CHECKED_ELSEWHERE)
    assert {hook for _, hook in HOOK_HINTS} == set(HOOKS)


class HooksShadowed(ArticleSource):
    location: Any = "/x/"
    get_queryset: Any = []


class StaticLocationShadowed(StaticSource):
    name = "static"
    urls = ["home"]
    location: Any = None


def test_e031_hooks_that_are_not_methods(sources: Sources) -> None:
    sources(HooksShadowed, StaticLocationShadowed)
    assert check_sources() == [
        e031(
            HooksShadowed,
            "location",
            "'/x/'",
            "a method",
            "Define location(self, row) as a method returning the row's path, or remove it to "
            "build locations from url_name or get_absolute_url().",
        ),
        e031(
            HooksShadowed,
            "get_queryset",
            "[]",
            "a method",
            "Define get_queryset(self) as a method returning a queryset, or remove it to list "
            "the rows of queryset.",
        ),
        e031(
            StaticLocationShadowed,
            "location",
            "None",
            "a method",
            "Define location(self, row) as a method returning the page's path, or remove it to "
            "build locations from urls.",
        ),
    ]


URL_KWARGS_HINT = (
    "Set url_kwargs to a dict from each keyword argument of the URL to the field path of its "
    "value, such as {'slug': 'slug'}."
)
PATHS = "a list or tuple of field paths (str)"
URLS_HINT = "Set urls to a list of URL names, (URL name, kwargs) pairs and paths starting with '/'."
LANGUAGES_HINT = (
    "Set languages to a list of codes from LANGUAGES, such as ['en', 'fr'], or to None to use "
    "every code of LANGUAGES."
)


@pytest.mark.parametrize(
    ("base", "attribute", "value", "expected", "hint"),
    [
        (
            ArticleSource,
            "url_kwargs",
            "slug",
            "a dict of URL argument to field path (str to str)",
            URL_KWARGS_HINT,
        ),
        (
            ArticleSource,
            "url_kwargs",
            {"slug": 1},
            "a dict of URL argument to field path (str to str)",
            URL_KWARGS_HINT,
        ),
        (
            ArticleSource,
            "fields",
            "title",
            PATHS,
            "Set fields = ('title',): a tuple of field paths, not one path.",
        ),
        (
            ArticleSource,
            "fields",
            5,
            PATHS,
            "Set fields to a tuple of field paths (str), such as ('title', 'category__slug').",
        ),
        (
            ArticleSource,
            "ordering",
            "-updated_at",
            PATHS,
            "Set ordering = ('-updated_at',): a tuple of field paths, not one path.",
        ),
        (
            ArticleSource,
            "ordering",
            ["-updated_at", 2],
            PATHS,
            "Set ordering to a tuple of field paths (str), such as ('-updated_at',).",
        ),
        (
            PagesSource,
            "urls",
            "home",
            "a list or tuple",
            "Set urls = ['home']: a list, not one string.",
        ),
        (PagesSource, "urls", {"home"}, "a list or tuple", URLS_HINT),
        (
            ArticleSource,
            "languages",
            "en",
            "a list, a tuple or None",
            "Set languages = ['en']: a list, not one string.",
        ),
        (PagesSource, "languages", 5, "a list, a tuple or None", LANGUAGES_HINT),
        (
            ArticleSource,
            "url_name",
            5,
            "a URL name (str) or None",
            "Set url_name to the name of a URL pattern, such as 'article-detail', or to None to "
            "use the model's get_absolute_url().",
        ),
        (
            ArticleSource,
            "queryset",
            Article,
            "a queryset",
            "Set queryset = Model.objects.all() (or a filtered queryset).",
        ),
        (
            ArticleSource,
            "use_instances",
            "yes",
            "True or False",
            "Set use_instances = True to hand per-row methods model instances, or "
            "use_instances = False to hand them dicts.",
        ),
        (
            ArticleSource,
            "raw_rows",
            0,
            "True or False",
            "Set raw_rows = True to read rows from the database cursor, or raw_rows = False to "
            "read them through values().",
        ),
        (
            PagesSource,
            "i18n",
            "yes",
            "True or False",
            "Set i18n = True to list each row once per language, or i18n = False for one URL "
            "per row.",
        ),
        (
            ArticleSource,
            "x_default",
            None,
            "True or False",
            "Set x_default = True to add an x-default alternate (the URL in LANGUAGE_CODE), or "
            "x_default = False for none.",
        ),
    ],
)
def test_e031_declarations_of_the_wrong_kind(
    sources: Sources,
    base: type[BaseSource],
    attribute: str,
    value: object,
    expected: str,
    hint: str,
) -> None:
    bad = declaring(base, **{attribute: value})
    sources(bad)
    assert check_sources() == [e031(bad, attribute, repr(value), expected, hint)]


@pytest.mark.parametrize(
    ("base", "attributes"),
    [
        (
            ArticleSource,
            {
                "queryset": Article.objects,
                "url_kwargs": MappingProxyType({"slug": "slug"}),
                "fields": ["title"],
                "ordering": ("-updated_at",),
                "use_instances": True,
                "raw_rows": False,
                "location": staticmethod(lambda row: "/x/"),
            },
        ),
        (
            PagesSource,
            {
                "urls": ("home",),
                "i18n": True,
                "languages": ("en",),
                "alternates": True,
                "x_default": True,
            },
        ),
        # Not documented for a StaticSource: the project's own names.
        (PagesSource, {"get_queryset": [], "url_kwargs": "slug", "fields": 5}),
    ],
)
def test_e031_accepts_the_documented_kinds(
    sources: Sources, base: type[BaseSource], attributes: dict[str, object]
) -> None:
    sources(declaring(base, **attributes))
    assert check_sources() == []


def test_e031_one_message_per_problem_and_no_other_check_of_that_source(
    sources: Sources,
) -> None:
    # Read as documented, "-rank" and 5 would make an E011 per character, and a
    # TypeError; limit=0 (E014) waits for the fix. Other sources are checked.
    bad = declaring(ArticleSource, "Bad", ordering="-rank", fields=5, limit=0, raw_rows="no")
    other = declaring(PagesSource, "Other", name="articles", changefreq="Weekly")
    sources(bad, other)
    messages = check_sources()
    assert [(message.id, message.obj) for message in messages] == [
        ("sitemapkit.E006", other),
        ("sitemapkit.E031", bad),
        ("sitemapkit.E031", bad),
        ("sitemapkit.E031", bad),
        ("sitemapkit.E008", other),
    ]
    assert [message.msg.split(", not ")[0] for message in messages[1:4]] == [
        f"{SOURCE}.Bad declares fields 5",
        f"{SOURCE}.Bad declares ordering '-rank'",
        f"{SOURCE}.Bad declares raw_rows 'no'",
    ]


def test_e031_is_registered(sources: Sources) -> None:
    sources(HooksShadowed)
    with pytest.raises(SystemCheckError) as info:
        call_command("check")
    assert (
        f"<class '{__name__}.HooksShadowed'>: (sitemapkit.E031) {SOURCE}.HooksShadowed "
        "declares location '/x/', not a method.\n\tHINT: Define location(self, row)"
    ) in str(info.value)
