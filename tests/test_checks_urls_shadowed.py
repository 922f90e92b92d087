"""W062: an earlier pattern of ROOT_URLCONF answers the URLs of django_sitemapkit.urls
(checks/urls.py), found by resolving the app's own URLs through the URLconf."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO

import pytest
from django.core.checks import Warning
from django.core.management import call_command
from django.test import override_settings

from django_sitemapkit import StaticSource
from django_sitemapkit.checks import check_urls

REMOVE = (
    "Remove the pattern {route!r} from your urlpatterns: django_sitemapkit.urls serves the "
    "sitemap now, and path('', include('django_sitemapkit.contrib_redirects')), placed after "
    "it, answers the old page URLs (docs/migrating.md, Step 2)."
)


def w062(route: str, view: str, url: str, more: str, hint: str) -> Warning:
    return Warning(
        f"The URL pattern {route!r} ({view}) comes before django_sitemapkit.urls in "
        f"ROOT_URLCONF and answers {url!r}{more}, which django_sitemapkit.urls serves: the "
        "sitemap's own view is never reached there.",
        hint=hint,
        id="sitemapkit.W062",
    )


DROPIN_INDEX = w062(
    "sitemap.xml",
    "django_sitemapkit.compat.views.index",
    "/sitemap.xml",
    "",
    REMOVE.format(route="sitemap.xml"),
)
DROPIN_PAGES = w062(
    "sitemap-<section>.xml",
    "django_sitemapkit.compat.views.sitemap",
    "/sitemap-articles-1.xml",
    " (and 1 other sitemap URL)",
    REMOVE.format(route="sitemap-<section>.xml"),
)


@override_settings(ROOT_URLCONF="testapp.urls_dropin_first")
def test_w062_step_1_patterns_left_above_the_apps_urls() -> None:
    # Found by following docs/migrating.md: Step 1's sitemap-<section>.xml read
    # sitemap-articles-1.xml as the contrib section "articles-1", a 404, with a
    # clean check.
    assert check_urls() == [DROPIN_INDEX, DROPIN_PAGES]


@override_settings(ROOT_URLCONF="testapp.urls_redirects_first")
def test_w062_contrib_redirects_included_first() -> None:
    route = "sitemap-<sitemapkit_section:section>.xml"
    assert check_urls() == [
        w062(
            route,
            "django_sitemapkit.contrib_redirects.contrib_page",
            "/sitemap-articles-1.xml",
            " (and 1 other sitemap URL)",
            f"Move path('', include('django_sitemapkit.urls')) above the pattern {route!r} in "
            "your urlpatterns.",
        )
    ]


@override_settings(ROOT_URLCONF="testapp.urls_dropin_first")
def test_w062_samples_every_registered_section(sources: Callable[..., None]) -> None:
    class Five(StaticSource):
        name = "a5"
        urls = ["/"]

    class Shop(StaticSource):
        name = "shop"
        urls = ["/"]
        sites = ["shop"]

    sources(Five, Shop)
    messages = check_urls()
    assert [message.msg for message in messages] == [
        DROPIN_INDEX.msg,
        DROPIN_PAGES.msg.replace("articles-1", "a5-1"),
    ]


@pytest.mark.parametrize(
    "urlconf", ["testapp.urls", "testapp.urls_contrib_redirects", "testapp.urls_compat"]
)
def test_w062_quiet_when_the_apps_urls_answer_first(urlconf: str) -> None:
    with override_settings(ROOT_URLCONF=urlconf):
        assert check_urls() == []


@override_settings(ROOT_URLCONF="testapp.urls_dropin_first")
def test_w062_is_registered() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert f"?: (sitemapkit.W062) {DROPIN_PAGES.msg}\n\tHINT: {DROPIN_PAGES.hint}\n" in (
        out.getvalue()
    )
