"""Checks of a source's ``lastmod`` (checks/sources/lastmod.py)."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import models
from django.db.models import F, Max, QuerySet
from django.test.utils import isolate_apps
from testapp.models import Article, Category
from testapp.sitemaps import ArticleSource

from django_sitemapkit import Field, SitemapSource, StaticSource
from django_sitemapkit.checks import check_sources
from django_sitemapkit.sources.lastmods import is_date

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"
ARTICLE_DATES = (
    "Set lastmod to a date or datetime field of testapp.Article ('updated_at' or 'published_on')"
)


class BadStaticLastmod(StaticSource):
    name = "static"
    urls = ["home"]
    lastmod: Any = "2024-01-01"


def test_e015_lastmod_constant(sources: Sources) -> None:
    sources(BadStaticLastmod)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadStaticLastmod declares lastmod '2024-01-01', which is neither a "
            "date, a datetime, nor a field path.",
            hint="Name a date or datetime field (lastmod = 'updated_at'), or define a "
            "lastmod(row) method.",
            obj=BadStaticLastmod,
            id="sitemapkit.E015",
        )
    ]


class GoodStaticLastmod(BadStaticLastmod):
    lastmod = dt.date(2024, 1, 1)


def test_e015_accepts_a_date(sources: Sources) -> None:
    sources(GoodStaticLastmod)
    assert check_sources() == []


def e063(source: type[SitemapSource], declared: str, kind: str, fix: str) -> Error:
    return Error(
        f"{SOURCE}.{source.__name__} declares lastmod {declared}, which names a {kind}, not "
        "a date or datetime field: every entry of the section would be skipped.",
        hint=f"{fix}, or define a lastmod(self, row) method that returns a date or datetime.",
        obj=source,
        id="sitemapkit.E063",
    )


@pytest.mark.parametrize(
    ("lastmod", "declared", "kind"),
    [
        # Found by trying: each passed the checks, and every page answered 500.
        ("title", "'title'", "CharField"),
        ("published", "'published'", "BooleanField"),
        ("priority", "'priority'", "FloatField"),
        ("pk", "'pk'", "BigAutoField"),
        (Field("category__name"), "Field('category__name')", "CharField"),
        # A transform whose value is a number.
        ("updated_at__year", "'updated_at__year'", "IntegerField"),
    ],
)
def test_e063_a_lastmod_field_that_holds_no_date(
    sources: Sources, lastmod: object, declared: str, kind: str
) -> None:
    source = type("NotADate", (ArticleSource,), {"lastmod": lastmod, "__module__": __name__})
    sources(source)
    assert check_sources() == [e063(source, declared, kind, ARTICLE_DATES)]


class CategoryByName(SitemapSource):
    name = "categories"
    queryset = Category.objects.all()
    url_name = "category-detail"
    url_kwargs = {"category": "slug"}
    lastmod = "name"


def test_e063_on_a_model_without_a_date_field_says_so(sources: Sources) -> None:
    sources(CategoryByName)
    assert check_sources() == [
        e063(
            CategoryByName,
            "'name'",
            "CharField",
            "testapp.Category has no date or datetime field: remove lastmod",
        )
    ]


class NewestPhoto(ArticleSource):
    """An annotation: its output field decides."""

    lastmod = "newest"

    def get_queryset(self) -> QuerySet[Article]:
        annotated: QuerySet[Article] = Article.objects.annotate(newest=Max("photos__position"))
        return annotated


class UpdatedAlias(NewestPhoto):
    def get_queryset(self) -> QuerySet[Article]:
        annotated: QuerySet[Article] = Article.objects.annotate(newest=F("updated_at"))
        return annotated


def test_e063_judges_an_annotation_by_its_output_field(sources: Sources) -> None:
    sources(NewestPhoto)
    assert check_sources() == [e063(NewestPhoto, "'newest'", "IntegerField", ARTICLE_DATES)]
    sources(UpdatedAlias)
    assert check_sources() == []


@pytest.mark.parametrize(
    "lastmod", ["updated_at", "published_on", Field("updated_at"), "updated_at__date", None]
)
def test_e063_accepts_date_and_datetime_fields(sources: Sources, lastmod: object) -> None:
    sources(type("Dated", (ArticleSource,), {"lastmod": lastmod, "__module__": __name__}))
    assert check_sources() == []


class Missing(ArticleSource):
    lastmod = "nope"


def test_a_path_that_does_not_exist_is_e011_alone(sources: Sources) -> None:
    sources(Missing)
    assert [error.id for error in check_sources()] == ["sitemapkit.E011"]


class ByTitle(ArticleSource):
    lastmod = "title"


def test_e063_is_registered(sources: Sources) -> None:
    sources(ByTitle)
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert (
        f"<class '{__name__}.ByTitle'>: (sitemapkit.E063) {SOURCE}.ByTitle declares lastmod "
        "'title', "
        "which names a CharField, not a date or datetime field: every entry of the section "
        f"would be skipped.\n\tHINT: {ARTICLE_DATES}, or define a lastmod(self, row) method "
        "that returns a date or datetime." in str(raised.value)
    )


class Stamp(models.Field):  # type: ignore[type-arg]
    """A custom field stored as a datetime."""

    def get_internal_type(self) -> str:
        return "DateTimeField"


def test_a_date_field_is_told_by_its_class_or_its_internal_type() -> None:
    assert is_date(models.DateField())
    assert is_date(models.DateTimeField())
    assert is_date(Stamp())
    assert not is_date(models.CharField())
    assert not is_date(models.IntegerField())


# -- W035: a lastmod field with auto_now=True -------------------------------------------


def w035(source: type[SitemapSource], declared: str, field: str, name: str) -> Warning:
    return Warning(
        f"{SOURCE}.{source.__name__} declares lastmod {declared}, which names {field}, a "
        "field with auto_now=True: every save() moves it, whether or not the page changed, "
        "and search engines stop trusting dates that move without their page.",
        hint=f"Drop auto_now and set {name} where the page's content changes (in save(), "
        "when the fields the page shows differ, or in the views that edit it); or define a "
        "lastmod(self, row) method that returns such a date.",
        obj=source,
        id="sitemapkit.W035",
    )


def edited_sources() -> tuple[type[SitemapSource], ...]:
    """Sources of a model made for the test, whose dates Django sets on every save()."""

    class Edited(models.Model):
        slug = models.CharField(max_length=50)
        saved_at = models.DateTimeField(auto_now=True)
        saved_on = models.DateField(auto_now=True)
        created_at = models.DateTimeField(auto_now_add=True)
        changed_at = models.DateTimeField(null=True)

        class Meta:
            app_label = "testapp"

        def __str__(self) -> str:
            return self.slug

    def source(lastmod: str | Field) -> type[SitemapSource]:
        name = lastmod.path if isinstance(lastmod, Field) else lastmod
        attributes = {
            "name": name.replace("_", "-"),
            "queryset": Edited._default_manager.all(),
            "url_name": "article-detail",
            "url_kwargs": {"slug": "slug"},
            "lastmod": lastmod,
            "__module__": __name__,
        }
        return type("By" + name.title().replace("_", ""), (SitemapSource,), attributes)

    paths: list[str | Field] = ["saved_at", Field("saved_on"), "created_at", "changed_at"]
    return tuple(map(source, paths))


def test_w035_a_lastmod_field_that_every_save_moves(sources: Sources) -> None:
    with isolate_apps("testapp"):
        saved_at, saved_on, created_at, changed_at = edited_sources()
        sources(saved_at, saved_on, created_at, changed_at)
        found = check_sources()
    # auto_now_add is set once, when the row is made: not this warning.
    assert found == [
        w035(saved_at, "'saved_at'", "testapp.Edited.saved_at", "saved_at"),
        w035(saved_on, "Field('saved_on')", "testapp.Edited.saved_on", "saved_on"),
    ]


def test_w035_is_registered(sources: Sources) -> None:
    output = io.StringIO()
    with isolate_apps("testapp"):
        sources(edited_sources()[0])
        call_command("check", stderr=output)
    assert (
        f"<class '{__name__}.BySavedAt'>: (sitemapkit.W035) {SOURCE}.BySavedAt declares "
        "lastmod 'saved_at', which names testapp.Edited.saved_at, a field with auto_now=True"
    ) in output.getvalue()


# -- W036: a lastmod constant in the future ----------------------------------------------


class FutureStaticLastmod(BadStaticLastmod):
    lastmod = dt.date(2999, 1, 1)


class FutureArticles(ArticleSource):
    lastmod: Any = dt.datetime(2999, 1, 1, tzinfo=dt.timezone.utc)


def test_w036_a_lastmod_constant_in_the_future(sources: Sources) -> None:
    sources(FutureStaticLastmod, FutureArticles)
    hint = "Set lastmod to when the section's pages last changed, or remove it."
    assert check_sources() == [
        Warning(
            f"{SOURCE}.FutureStaticLastmod declares lastmod datetime.date(2999, 1, 1), which "
            "is later than now: every entry is listed without it, as search engines refuse "
            "dates in the future.",
            hint=hint,
            obj=FutureStaticLastmod,
            id="sitemapkit.W036",
        ),
        Warning(
            f"{SOURCE}.FutureArticles declares lastmod datetime.datetime(2999, 1, 1, 0, 0, "
            "tzinfo=datetime.timezone.utc), which is later than now: every entry is listed "
            "without it, as search engines refuse dates in the future.",
            hint=hint,
            obj=FutureArticles,
            id="sitemapkit.W036",
        ),
    ]
