"""Checks of the URLconf and middleware (checks/urls.py)."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.middleware.gzip import GZipMiddleware
from django.test import override_settings
from django.utils import translation
from testapp.models import Article

from django_sitemapkit import SitemapSource, StaticSource
from django_sitemapkit.checks import check_middleware, check_urls
from django_sitemapkit.sources import BaseSource

# -- URLconf ---------------------------------------------------------------------------


W003 = Warning(
    "django_sitemapkit.urls is mounted under '/shop/': by the protocol's location rule "
    "the sitemap may then list only URLs under that path, and other entries are "
    "skipped.",
    hint="Include django_sitemapkit.urls at the root of your URLconf: "
    "path('', include('django_sitemapkit.urls')).",
    id="sitemapkit.W003",
)


W002 = Warning(
    "django_sitemapkit.urls is not included in ROOT_URLCONF, so the sitemap index and "
    "pages have no URL.",
    hint="Add path('', include('django_sitemapkit.urls')) to your urlpatterns.",
    id="sitemapkit.W002",
)


@override_settings(ROOT_URLCONF="testapp.urls_without_sitemaps")
def test_w002_urls_not_included() -> None:
    assert check_urls() == [W002]


@override_settings(ROOT_URLCONF="testapp.urls_dropin")
def test_w002_quiet_while_the_drop_in_serves_the_sitemap(sources: Callable[..., None]) -> None:
    # Found by following docs/migrating.md: Step 1 serves the sitemap through the
    # drop-in views, and W002 asked for URLs no section needed.
    sources()
    assert check_urls() == []
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "sitemapkit.W002" not in out.getvalue()


@override_settings(ROOT_URLCONF="testapp.urls_dropin")
def test_w002_under_the_drop_in_once_a_section_is_registered() -> None:
    # Step 2 without the app's URLs: the registered sections have none.
    assert check_urls() == [W002]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_w003_mounted_under_a_sub_path() -> None:
    assert check_urls() == [W003]


@override_settings(ROOT_URLCONF="testapp.urls_subpath", FORCE_SCRIPT_NAME="/shop")
def test_w003_quiet_when_the_whole_site_is_under_the_prefix() -> None:
    # Mounted at the root of a site deployed under /shop/shop/... is still a
    # sub-path; mounted at the root of the URLconf is not.
    assert check_urls()[0].id == "sitemapkit.W003"
    with override_settings(ROOT_URLCONF="testapp.urls"):
        assert check_urls() == []


# -- E033: every source outside the sub-path ------------------------------------------


class BlogPostSource(SitemapSource):
    name = "blog"
    queryset = Article.objects.all()
    url_name = "blog-detail"
    url_kwargs = {"slug": "slug"}


class LegalSource(StaticSource):
    name = "legal"
    urls = [
        "/legal/",
        ("blog-detail", {"slug": "welcome"}),
        "https://www.example.com/about/",
        "/shop/../blog/",
    ]


class ShopSource(SitemapSource):
    name = "shop"
    queryset = Article.objects.all()
    url_name = "article-detail"  # /shop/<slug>/ in urls_subpath
    url_kwargs = {"slug": "slug"}


class ShopPageSource(StaticSource):
    name = "shop-pages"
    urls = ["/legal/", "/shop/terms/"]


class AbsoluteUrlSource(SitemapSource):
    name = "absolute"
    queryset = Article.objects.all()  # Article.get_absolute_url(): anything


class LocatedSource(SitemapSource):
    name = "located"
    queryset = Article.objects.all()
    url_name = "blog-detail"
    url_kwargs = {"slug": "slug"}

    def location(self, row: Any) -> str:
        return f"/shop/{row['slug']}/"


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_e033_every_source_outside_the_sub_path(sources: Callable[..., None]) -> None:
    sources(BlogPostSource, LegalSource)
    assert check_urls() == [
        Error(
            "django_sitemapkit.urls is mounted under '/shop/', and the URLs of every source "
            f"fall outside it (Sitemap source {__name__}.BlogPostSource, Sitemap source "
            f"{__name__}.LegalSource): by the protocol's location rule every entry is "
            "skipped, and the index lists pages that all answer 404.",
            hint="Include django_sitemapkit.urls at the root of your URLconf: "
            "path('', include('django_sitemapkit.urls')).",
            id="sitemapkit.E033",
        )
    ]


@pytest.mark.parametrize("inside", [ShopSource, ShopPageSource])
@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_e033_quiet_when_one_source_is_inside(
    sources: Callable[..., None], inside: type[BaseSource]
) -> None:
    sources(BlogPostSource, LegalSource, inside)
    assert check_urls() == [W003]


@pytest.mark.parametrize("unknown", [AbsoluteUrlSource, LocatedSource])
@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_e033_quiet_when_a_source_location_is_unknown(
    sources: Callable[..., None], unknown: type[BaseSource]
) -> None:
    sources(BlogPostSource, unknown)
    assert check_urls() == [W003]


@override_settings(ROOT_URLCONF="testapp.urls_i18n_subpath", LANGUAGE_CODE="en")
def test_e033_reads_directory_and_sources_in_one_language(sources: Callable[..., None]) -> None:
    # Another language active (a translated management command, say): the
    # directory, /en/shop/, is read in LANGUAGE_CODE like the sources' URLs.
    sources(ShopSource)
    with translation.override("fr"):
        assert check_urls() == [
            Warning(
                "django_sitemapkit.urls is mounted under '/en/shop/': by the protocol's "
                "location rule the sitemap may then list only URLs under that path, and "
                "other entries are skipped.",
                hint=W003.hint,
                id="sitemapkit.W003",
            )
        ]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_e033_quiet_without_sources(sources: Callable[..., None]) -> None:
    sources()
    assert check_urls() == [W003]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_e033_is_registered(sources: Callable[..., None]) -> None:
    sources(BlogPostSource)
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E033"):
        call_command("check")


# -- middleware ----------------------------------------------------------------------


class CompressingMiddleware(GZipMiddleware):
    pass


def not_a_class(get_response: object) -> object:
    return get_response


GZIP_HINT = (
    "Remove it from MIDDLEWARE and compress in the web server or CDN instead, by content "
    "type (application/xml, not application/gzip)."
)


def w004(entry: str) -> Warning:
    return Warning(
        f"MIDDLEWARE lists {entry!r}, which compresses responses without regard to their type: "
        "the sitemap's .xml.gz files (application/gzip) would be gzipped a second time.",
        hint=GZIP_HINT,
        id="sitemapkit.W004",
    )


@override_settings(
    MIDDLEWARE=[
        "django.middleware.common.CommonMiddleware",
        "no.such.Middleware",
        "testapp.NoSuchMiddleware",
        f"{__name__}.not_a_class",
        "django.middleware.gzip.GZipMiddleware",
        f"{__name__}.CompressingMiddleware",
    ]
)
def test_w004_gzip_middleware_and_its_subclasses() -> None:
    assert check_middleware() == [
        w004("django.middleware.gzip.GZipMiddleware"),
        w004(f"{__name__}.CompressingMiddleware"),
    ]


def test_w004_survives_a_middleware_whose_module_fails_to_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_middleware.py").write_text("raise RuntimeError('needs a setting')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    middleware = ["broken_middleware.Middleware", "django.middleware.gzip.GZipMiddleware"]
    with override_settings(MIDDLEWARE=middleware):
        assert check_middleware() == [w004("django.middleware.gzip.GZipMiddleware")]


@override_settings(MIDDLEWARE=["django.middleware.common.CommonMiddleware"])
def test_w004_quiet_without_it() -> None:
    assert check_middleware() == []


@override_settings(
    MIDDLEWARE=["django.middleware.gzip.GZipMiddleware"],
    ROOT_URLCONF="testapp.urls_without_sitemaps",
)
def test_w004_quiet_when_the_sitemap_is_not_mounted() -> None:
    assert check_middleware() == []


@override_settings(MIDDLEWARE=["django.middleware.gzip.GZipMiddleware"])
def test_middleware_check_is_registered() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert (
        "?: (sitemapkit.W004) MIDDLEWARE lists 'django.middleware.gzip.GZipMiddleware', "
        "which compresses responses" in out.getvalue()
    )
