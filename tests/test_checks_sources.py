"""Checks of each source's declarations (checks/sources/values.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.core.checks import Error
from django.test import override_settings
from django.urls import NoReverseMatch, reverse
from testapp.models import Article, Category
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import Field, SitemapSource, StaticSource
from django_sitemapkit.checks import check_sources

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"


class OtherHost(StaticSource):
    name = "elsewhere"
    urls = ["/fine/", "https://www.example.com/fine/", "https://cdn.example.net/file/"]


def test_e005_fixed_url_on_another_host(sources: Sources) -> None:
    sources(OtherHost)
    assert check_sources() == [
        Error(
            f"{SOURCE}.OtherHost lists the URL 'https://cdn.example.net/file/', which is not on "
            "SITEMAPKIT_BASE_URL 'https://www.example.com'.",
            hint="A sitemap lists URLs of one host only: list a path starting with '/', "
            "or remove the URL.",
            obj=OtherHost,
            id="sitemapkit.E005",
        )
    ]


@override_settings(SITEMAPKIT_BASE_URL=None)
def test_e005_is_not_checked_on_the_current_sites_domain(sources: Sources) -> None:
    # The host is the Site's, in the database: not read here (no django_db mark,
    # so a query would fail the test), and no URL is called foreign on a guess.
    sources(OtherHost)
    assert check_sources() == []


class Duplicate(ArticleSource):
    name = "Articles"


def test_e006_duplicate_section_names(sources: Sources) -> None:
    sources(ArticleSource, PagesSource, Duplicate)
    assert check_sources() == [
        Error(
            f"{SOURCE}.Duplicate has the section name 'Articles', already used by "
            "Sitemap source testapp.sitemaps.ArticleSource.",
            hint="Give each source its own name; names that differ only in case count as the same.",
            obj=Duplicate,
            id="sitemapkit.E006",
        )
    ]


@pytest.mark.parametrize("name", ["", "../etc", "a/b", "a b", "-lead", "\u00e9t\u00e9", "x" * 65])
def test_e007_unsafe_section_name(sources: Sources, name: str) -> None:
    unsafe = type("Unsafe", (PagesSource,), {"name": name, "__module__": __name__})
    sources(unsafe)
    assert check_sources() == [
        Error(
            f"{SOURCE}.Unsafe has the section name {name!r}, which cannot appear safely in a "
            "file name.",
            hint="Set name to 1 to 64 ASCII letters, digits, '-' or '_', starting with a "
            "letter or digit.",
            obj=unsafe,
            id="sitemapkit.E007",
        )
    ]


class BadChangefreq(ArticleSource):
    changefreq = "Weekly"


def test_e008_changefreq(sources: Sources) -> None:
    sources(BadChangefreq)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadChangefreq declares changefreq 'Weekly', which is not a protocol value.",
            hint="Use one of 'always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', "
            "'never', Field('<field path>'), or a changefreq(row) method.",
            obj=BadChangefreq,
            id="sitemapkit.E008",
        )
    ]


@pytest.mark.parametrize("value", [1.5, -0.1, "0.5"])
def test_e009_priority(sources: Sources, value: object) -> None:
    bad = type("BadPriority", (ArticleSource,), {"priority": value, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadPriority declares priority {value!r}, which is not a number from "
            "0.0 to 1.0.",
            hint="Use a number from 0.0 to 1.0, Field('<field path>'), or a priority(row) method.",
            obj=bad,
            id="sitemapkit.E009",
        )
    ]


class UnknownUrl(ArticleSource):
    url_name = "no-such-url"


class WrongKwargs(ArticleSource):
    url_kwargs = {"pk": "pk"}


class StaticWrongKwargs(StaticSource):
    name = "static"
    urls = ["home", ("category-detail", {})]


SOURCE_E010_HINT = (
    "Set url_name to a name in your URLconf and url_kwargs to its arguments "
    "(URL argument -> field path)."
)
# A StaticSource has no url_kwargs: its pages are names, pairs, or paths.
STATIC_E010_HINT = (
    "List in urls a name in your URLconf, a (URL name, {argument: value}) pair for a URL "
    "that takes arguments, or a path starting with '/'."
)


@pytest.mark.parametrize(
    ("source", "problem", "hint"),
    [
        (
            UnknownUrl,
            "names the URL 'no-such-url', which is not a URL name of ROOT_URLCONF",
            SOURCE_E010_HINT,
        ),
        (
            WrongKwargs,
            "names the URL 'article-detail', which takes the arguments ['slug'], not ['pk']",
            SOURCE_E010_HINT,
        ),
        (
            StaticWrongKwargs,
            "names the URL 'category-detail', which takes the arguments ['category'], not []",
            STATIC_E010_HINT,
        ),
    ],
)
def test_e010_url_name_does_not_reverse(
    sources: Sources, source: type, problem: str, hint: str
) -> None:
    sources(source)
    assert check_sources() == [
        Error(
            f"{SOURCE}.{source.__name__} {problem}.",
            hint=hint,
            obj=source,
            id="sitemapkit.E010",
        )
    ]


class Namespaced(ArticleSource):
    url_name = "sitemapkit:page"
    url_kwargs = {"section": "slug", "page": "pk"}


def test_e010_accepts_namespaced_url_names(sources: Sources) -> None:
    sources(Namespaced)
    assert check_sources() == []


E010_HINT = (
    "Set url_name to a name in your URLconf and url_kwargs to its arguments "
    "(URL argument -> field path)."
)
# The application namespace "blog" and the instance namespace "blog" of the
# "news" app, included in either order: reverse("blog:post") picks the app.
BOTH_ORDERS = pytest.mark.parametrize(
    "urlconf", ["testapp.urls_namespaces_blog_first", "testapp.urls_namespaces_news_first"]
)


def namespaced(url_name: str, url_kwargs: dict[str, str]) -> type[SitemapSource]:
    attributes = {"url_name": url_name, "url_kwargs": url_kwargs, "__module__": __name__}
    return type("NamespacedSource", (ArticleSource,), attributes)


@BOTH_ORDERS
def test_e010_an_application_namespace_before_an_instance_namespace(
    sources: Sources, urlconf: str
) -> None:
    correct = namespaced("blog:post", {"slug": "slug"})
    sources(correct)
    with override_settings(ROOT_URLCONF=urlconf):
        assert reverse("blog:post", kwargs={"slug": "x"}) == "/weblog/x/"
        assert check_sources() == []


@BOTH_ORDERS
def test_e010_refuses_the_arguments_of_the_instance_namespace(
    sources: Sources, urlconf: str
) -> None:
    wrong = namespaced("blog:post", {"year": "pk", "slug": "slug"})
    sources(wrong)
    with override_settings(ROOT_URLCONF=urlconf):
        with pytest.raises(NoReverseMatch):
            reverse("blog:post", kwargs={"year": 2024, "slug": "x"})
        assert check_sources() == [
            Error(
                f"{SOURCE}.NamespacedSource names the URL 'blog:post', which takes the "
                "arguments ['slug'], not ['slug', 'year'].",
                hint=E010_HINT,
                obj=wrong,
                id="sitemapkit.E010",
            )
        ]


@override_settings(ROOT_URLCONF="testapp.urls_templates")
def test_e010_counts_the_arguments_of_the_namespace_prefix(sources: Sources) -> None:
    # "localized" is included under "<slug:lang>/blog/": reverse() needs lang too.
    correct = namespaced("localized:post", {"lang": "category__slug", "slug": "slug"})
    sources(correct)
    assert check_sources() == []
    wrong = namespaced("localized:post", {"slug": "slug"})
    sources(wrong)
    assert check_sources() == [
        Error(
            f"{SOURCE}.NamespacedSource names the URL 'localized:post', which takes the "
            "arguments ['lang', 'slug'], not ['slug'].",
            hint=E010_HINT,
            obj=wrong,
            id="sitemapkit.E010",
        )
    ]


def test_e010_unknown_namespace(sources: Sources) -> None:
    unknown = namespaced("nowhere:post", {"slug": "slug"})
    sources(unknown)
    assert check_sources() == [
        Error(
            f"{SOURCE}.NamespacedSource names the URL 'nowhere:post', which is not a URL "
            "name of ROOT_URLCONF.",
            hint=E010_HINT,
            obj=unknown,
            id="sitemapkit.E010",
        )
    ]


class BadPaths(SitemapSource):
    name = "bad-paths"
    queryset = Article.objects.all()
    url_name = "article-detail"
    url_kwargs = {"slug": "category__nope"}
    lastmod = "modified"
    priority = Field("weight")
    ordering = ("-rank",)


def test_e011_field_paths(sources: Sources) -> None:
    sources(BadPaths)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadPaths names the field path {path!r}, which does not exist on "
            "testapp.Article.",
            hint="Use a field name, or a path across relations such as 'category__slug'.",
            obj=BadPaths,
            id="sitemapkit.E011",
        )
        for path in ["category__nope", "modified", "weight", "rank"]
    ]


class NoQueryset(SitemapSource):
    name = "none"


class NoLocation(SitemapSource):
    name = "no-location"
    queryset = Category.objects.all()


def test_e013_no_queryset_or_no_way_to_locate(sources: Sources) -> None:
    sources(NoQueryset, NoLocation)
    hint = (
        "Set url_name and url_kwargs, define get_absolute_url() on the model, "
        "or override location(row) on the source."
    )
    assert check_sources() == [
        Error(
            f"{SOURCE}.NoQueryset declares no queryset.",
            hint="Set queryset = Model.objects.all() (or a filtered queryset).",
            obj=NoQueryset,
            id="sitemapkit.E013",
        ),
        Error(
            f"{SOURCE}.NoLocation has no url_name and its model testapp.Category has no "
            "get_absolute_url().",
            hint=hint,
            obj=NoLocation,
            id="sitemapkit.E013",
        ),
    ]


@pytest.mark.parametrize("value", [0, 50_001, "10", True])
def test_e014_source_limit(sources: Sources, value: object) -> None:
    bad = type("BadLimit", (ArticleSource,), {"limit": value, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadLimit declares limit {value!r}, not a whole number from 1 to 50,000.",
            hint="Set limit to a number from 1 to 50000, or remove it to use SITEMAPKIT_LIMIT.",
            obj=bad,
            id="sitemapkit.E014",
        )
    ]


class BadStaticItem(StaticSource):
    name = "static"
    urls = ["home", 42]


def test_e017_static_item(sources: Sources) -> None:
    sources(BadStaticItem)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadStaticItem lists 42 in urls, which is not a page.",
            hint="Use a URL name, a (URL name, kwargs) pair, or a path starting with '/'.",
            obj=BadStaticItem,
            id="sitemapkit.E017",
        )
    ]
