"""E118, with ``check --deploy``: a section whose first rows mostly make no URL
(checks/sources/losses.py, sources/losses.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from django.contrib.sitemaps import Sitemap
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from django.urls import include, path
from factories import bulk_articles
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit import compat
from django_sitemapkit.checks import check_section_losses
from django_sitemapkit.sources.losses import SAMPLE_ROWS

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]

HTTP_FIX = (
    "Make location() (or the URL builder it calls) return paths starting with '/', which "
    "the sitemap writes on 'https://www.example.com'; or, if the site is served on "
    "'http://www.example.com', set SITEMAPKIT_BASE_URL to 'http://www.example.com'."
)


class OnHttp(ArticleSource):
    """A project's URL builder, which writes http in development."""

    def location(self, row: Any) -> str:
        return "http://www.example.com" + super().location(row).removeprefix(
            "https://www.example.com"
        )


class OnHttpSitemap(Sitemap):  # type: ignore[type-arg]
    """docs/migrating.md's PostSitemap with such a URL builder."""

    def items(self) -> Any:
        return Article.objects.filter(published=True).order_by("pk")

    def location(self, item: Article) -> str:
        return f"http://www.example.com/articles/{item.slug}/"


def test_a_section_on_another_scheme_is_an_error(sources: Sources) -> None:
    sources(OnHttp)
    bulk_articles(3)
    assert check_section_losses() == [
        Error(
            "Section 'articles' skips 3 of its first 3 URLs: they are on "
            "'http://www.example.com', and the site's base URL is 'https://www.example.com' "
            "(a sitemap lists URLs of its base URL's scheme and host only).",
            hint=HTTP_FIX,
            obj=OnHttp,
            id="sitemapkit.E118",
        )
    ]


def test_a_contrib_class_registered_on_another_scheme_is_an_error(sources: Sources) -> None:
    sources()
    compat.register({"posts": OnHttpSitemap})
    bulk_articles(2)
    [found] = check_section_losses()
    assert (found.msg, found.hint, found.id) == (
        "Section 'posts' skips 2 of its first 2 URLs: they are on 'http://www.example.com', "
        "and the site's base URL is 'https://www.example.com' (a sitemap lists URLs of its "
        "base URL's scheme and host only).",
        HTTP_FIX,
        "sitemapkit.E118",
    )


class SomeRelative(ArticleSource):
    """A row whose slug starts with "bad" gets a relative location, which is invalid."""

    def location(self, row: Any) -> str:
        if row["slug"].startswith("bad"):
            return f"articles/{row['slug']}/"
        return super().location(row)


def test_half_the_rows_lost_is_no_finding_and_more_is(sources: Sources) -> None:
    sources(SomeRelative)
    first, second, third, _ = bulk_articles(4)
    Article.objects.filter(pk__in=[first.pk, second.pk]).update(slug="bad")
    assert check_section_losses() == []
    Article.objects.filter(pk=third.pk).update(slug="bad")
    assert check_section_losses() == [
        Error(
            "Section 'articles' skips 3 of its first 4 URLs as invalid; the first: Skipped "
            f"pk={first.pk} of source 'articles': location 'articles/bad/' is relative; "
            "return a path starting with '/'.",
            hint="Fix the cause the first row's reason names (the section's location(), "
            "url_name or values); the log names the reason of each row skipped.",
            obj=SomeRelative,
            id="sitemapkit.E118",
        )
    ]


def test_it_reads_no_more_than_the_sample(sources: Sources) -> None:
    sources(OnHttp)
    bulk_articles(SAMPLE_ROWS + 5)
    [found] = check_section_losses()
    assert found.msg.startswith(
        f"Section 'articles' skips {SAMPLE_ROWS} of its first {SAMPLE_ROWS} URLs: "
    )


def test_a_valid_section_is_clean(sources: Sources) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    assert check_section_losses() == []


@override_settings(SITEMAPKIT_STRICT=False)
def test_e118_runs_with_deploy_only(sources: Sources) -> None:
    sources(OnHttp)
    bulk_articles(1)
    call_command("check")
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E118\) Section 'articles' skips"):
        call_command("check", deploy=True)


class ContribLocation(ArticleSource):
    """contrib's location(item), which reads a model instance's method."""

    def location(self, row: Any) -> str:
        return str(row.get_absolute_url())


def test_e119_a_section_whose_first_rows_raise(sources: Sources) -> None:
    sources(ContribLocation)
    bulk_articles(1)
    assert check_section_losses() == [
        Error(
            "Section 'articles' cannot be read: its first rows raise AttributeError: 'dict' "
            "object has no attribute 'get_absolute_url'.",
            hint="A per-row method (location(row), lastmod(row), ...) is given a dict of the "
            "columns the source reads, not a model instance: read row['field'] and list the "
            "fields in fields, or set use_instances = True.",
            obj=ContribLocation,
            id="sitemapkit.E119",
        )
    ]


#: docs/migrating.md's Step 1: the drop-in's views over a contrib dict.
urlpatterns = [
    path("sitemap.xml", compat.index, {"sitemaps": {"posts": OnHttpSitemap}}),
    path(
        "sitemap-<section>.xml",
        compat.sitemap,
        {"sitemaps": {"posts": OnHttpSitemap}},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("", include("testapp.urls")),
]


@override_settings(ROOT_URLCONF=__name__)
def test_a_class_the_drop_in_s_patterns_serve_on_another_scheme(sources: Sources) -> None:
    sources()
    bulk_articles(2)
    # The object is the class as the drop-in serves it, named after the dict's key.
    assert [
        (found.msg, found.hint, found.obj.contrib, found.id) for found in check_section_losses()
    ] == [
        (
            "Section 'posts' skips 2 of its first 2 URLs: they are on "
            "'http://www.example.com', and the site's base URL is 'https://www.example.com' "
            "(a sitemap lists URLs of its base URL's scheme and host only).",
            HTTP_FIX,
            OnHttpSitemap,
            "sitemapkit.E118",
        )
    ]


class OnDocsSitemap(Sitemap):  # type: ignore[type-arg]
    """A class served on the docs host only (django-hosts routes its pattern there)."""

    def items(self) -> Any:
        return Article.objects.filter(published=True).order_by("pk")

    def location(self, item: Article) -> str:
        return f"https://docs.example.com/articles/{item.slug}/"


#: The same patterns in ROOT_URLCONF, as per-host URLconfs leave them for the checks.
urls_on_docs = ModuleType("urls_on_docs")
urls_on_docs.urlpatterns = [  # type: ignore[attr-defined]
    path("sitemap.xml", compat.index, {"sitemaps": {"docs": OnDocsSitemap}}),
    path(
        "sitemap-<section>.xml",
        compat.sitemap,
        {"sitemaps": {"docs": OnDocsSitemap}},
        name="django.contrib.sitemaps.views.sitemap",
    ),
]


@override_settings(
    ROOT_URLCONF=urls_on_docs,
    SITEMAPKIT_SITES={"www": "https://www.example.com", "docs": "https://docs.example.com"},
    ALLOWED_HOSTS=["www.example.com", "docs.example.com"],
)
def test_a_drop_in_class_that_lists_one_site_whole_is_no_loss_of_the_others(
    sources: Sources,
) -> None:
    # The drop-in's patterns may be routed on one host only: no finding while the
    # class lists its URLs whole on one site.
    sources()
    bulk_articles(2)
    assert check_section_losses() == []
