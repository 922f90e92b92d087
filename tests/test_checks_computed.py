"""Checks of the declarations the database computes (checks/sources/computed.py):
``noindex`` (E065), ``canonical`` (E066) and a ``lastmod`` expression (E067)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db.models import (
    BooleanField,
    Count,
    DateTimeField,
    Exists,
    ExpressionWrapper,
    F,
    Max,
    OuterRef,
    Q,
    Window,
)
from django.db.models.functions import Greatest, Upper
from django.db.models.lookups import GreaterThan
from test_listing import Listed
from testapp.models import Photo

from django_sitemapkit import StaticSource
from django_sitemapkit.checks import check_sources

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"
BOOLEANS = "Set noindex to a BooleanField of testapp.Article ('published' or 'seo_noindex')"
TEXTS = "('slug' or 'title' or 'changefreq' or 'canonical_url')"


def declaring(**attributes: Any) -> type[Listed]:
    return type("Declared", (Listed,), attributes)


def e065(source: type[Listed], problem: str) -> Error:
    return Error(
        f"{SOURCE}.Declared declares noindex {source.noindex!r}, {problem}.",
        hint=f"{BOOLEANS}, a Q such as Q(status='draft'), or a boolean expression such as "
        "Exists(...); or remove it.",
        obj=source,
        id="sitemapkit.E065",
    )


GOOD_NOINDEX = {
    "field": "seo_noindex",
    "q": Q(seo_noindex=True) | Q(title__startswith="Draft"),
    "q across a relation": Q(photos__url="private"),
    "exists": Exists(Photo.objects.filter(article=OuterRef("pk"), url="private")),
    "wrapped q": ExpressionWrapper(Q(priority__lt=0.1), output_field=BooleanField()),
    "aggregate": GreaterThan(Count("photos"), 1),
}


@pytest.mark.django_db
@pytest.mark.parametrize("noindex", GOOD_NOINDEX.values(), ids=GOOD_NOINDEX.keys())
def test_e065_accepts_a_boolean_field_a_q_and_a_boolean_expression(
    sources: Sources, noindex: Any
) -> None:
    sources(declaring(noindex=noindex))
    assert check_sources() == []


BAD_NOINDEX = {
    "a text field": ("title", "which names a CharField, not a BooleanField"),
    "a flag": (True, "which is neither a field path, a Q nor a boolean expression"),
    "a list": (["seo_noindex"], "which is neither a field path, a Q nor a boolean expression"),
    "a q on a field it lacks": (
        Q(seo_noindx=True),
        "which cannot filter testapp.Article (Cannot resolve keyword 'seo_noindx' into field. "
        "Choices are: canonical_url, category, category_id, changefreq, clips, gallery, id, "
        "photos, priority, published, published_on, seo_noindex, slug, title, updated_at)",
    ),
    "a text expression": (Upper("title"), "whose value is a CharField, not a boolean"),
    "an expression of a field it lacks": (
        F("seo_noindx"),
        "which cannot be computed for testapp.Article (Cannot resolve keyword 'seo_noindx' "
        "into field. Choices are: canonical_url, category, category_id, changefreq, clips, "
        "gallery, id, photos, priority, published, published_on, seo_noindex, slug, title, "
        "updated_at)",
    ),
}


@pytest.mark.parametrize(("noindex", "problem"), BAD_NOINDEX.values(), ids=BAD_NOINDEX.keys())
def test_e065_refuses_anything_else(sources: Sources, noindex: Any, problem: str) -> None:
    source = declaring(noindex=noindex)
    sources(source)
    assert check_sources() == [e065(source, problem)]


def test_a_noindex_path_that_does_not_exist_is_e011(sources: Sources) -> None:
    source = declaring(noindex="seo_noindx", canonical="canonical_ur")
    sources(source)
    assert [(error.id, error.msg) for error in check_sources()] == [
        (
            "sitemapkit.E011",
            f"{SOURCE}.Declared names the field path {path!r}, which does not exist on "
            "testapp.Article.",
        )
        for path in ("seo_noindx", "canonical_ur")
    ]


def e066(source: type[Listed], problem: str) -> Error:
    return Error(
        f"{SOURCE}.Declared declares canonical {source.canonical!r}, {problem}.",
        hint="Set canonical to the path of a CharField or TextField of testapp.Article "
        f"holding each row's canonical URL {TEXTS}, or remove it.",
        obj=source,
        id="sitemapkit.E066",
    )


@pytest.mark.parametrize("canonical", ["canonical_url", "category__slug", "title"])
def test_e066_accepts_a_text_field(sources: Sources, canonical: str) -> None:
    sources(declaring(canonical=canonical))
    assert check_sources() == []


@pytest.mark.parametrize(
    ("canonical", "problem"),
    [
        ("updated_at", "which names a DateTimeField, not a text field"),
        # The column of a foreign key is the related model's key.
        ("category", "which names a BigAutoField, not a text field"),
        (F("canonical_url"), "not a field path (str)"),
        (True, "not a field path (str)"),
    ],
)
def test_e066_refuses_anything_else(sources: Sources, canonical: Any, problem: str) -> None:
    source = declaring(canonical=canonical)
    sources(source)
    assert check_sources() == [e066(source, problem)]


def e067(source: type[Listed], problem: str) -> Error:
    return Error(
        f"{SOURCE}.Declared declares lastmod {source.lastmod!r}, {problem}.",
        hint="Compute a date or datetime from the model's fields, and give an expression "
        "of mixed types its type, such as Greatest('updated_at', 'published_on', "
        "output_field=DateTimeField()).",
        obj=source,
        id="sitemapkit.E067",
    )


GOOD_LASTMOD = {
    "greatest": Greatest("updated_at", "photos__updated_at"),
    # A datetime and a date: Django takes the first one's type.
    "datetime and date": Greatest("updated_at", "published_on"),
    "typed": Greatest("published_on", "updated_at", output_field=DateTimeField()),
    "aggregate": Max("photos__updated_at"),
    "a field": F("updated_at"),
}


@pytest.mark.parametrize("lastmod", GOOD_LASTMOD.values(), ids=GOOD_LASTMOD.keys())
def test_e067_accepts_an_expression_of_dates(sources: Sources, lastmod: Any) -> None:
    sources(declaring(lastmod=lastmod))
    assert check_sources() == []


BAD_LASTMOD = {
    "mixed types": (
        Greatest("updated_at", "priority"),
        "which cannot be computed for testapp.Article (Expression contains mixed types: "
        "DateTimeField, FloatField. You must set output_field.)",
    ),
    "a count": (Count("photos"), "whose value is a IntegerField, not a date or datetime"),
    "text": (Upper("title"), "whose value is a CharField, not a date or datetime"),
    "a field it lacks": (
        Max("photos__updated"),
        "which cannot be computed for testapp.Article (Unsupported lookup 'updated' for "
        "BigAutoField or join on the field not permitted.)",
    ),
    "a window": (
        Window(Max("updated_at")),
        "which is a window function: a row's lastmod cannot depend on other rows",
    ),
}


@pytest.mark.parametrize(("lastmod", "problem"), BAD_LASTMOD.values(), ids=BAD_LASTMOD.keys())
def test_e067_refuses_anything_else(sources: Sources, lastmod: Any, problem: str) -> None:
    source = declaring(lastmod=lastmod)
    sources(source)
    assert check_sources() == [e067(source, problem)]


class StaticWithExpression(StaticSource):
    name = "static"
    urls = ["home"]
    lastmod: Any = F("updated_at")


def test_an_expression_on_static_pages_is_still_e015(sources: Sources) -> None:
    sources(StaticWithExpression)
    assert [error.id for error in check_sources()] == ["sitemapkit.E015"]


def test_the_checks_run_with_django_s(sources: Sources) -> None:
    sources(declaring(noindex="title", canonical="updated_at", lastmod=Upper("title")))
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")
    for check_id in ("sitemapkit.E065", "sitemapkit.E066", "sitemapkit.E067"):
        assert check_id in str(raised.value)
