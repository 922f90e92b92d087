"""django_sitemapkit.compat.entries: an optional value never costs a URL in the drop-in."""

from __future__ import annotations

from typing import Any

import pytest
from contrib_side_by_side import SITE, serve_side_by_side
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as contrib
from django.test import RequestFactory
from lxml import etree
from sitemap_xml import NS, Url, parse_index, parse_urlset

from django_sitemapkit.compat import index, sitemap

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat")]


@pytest.fixture(autouse=True)
def side_by_side(settings: Any) -> None:
    serve_side_by_side(settings)


class CopiedMethods(Sitemap):  # type: ignore[type-arg]
    """A mixin's ``get_urls()``, as a large site's is written: its dicts hold the
    class's ``changefreq`` and ``priority`` methods themselves, never called, which
    contrib's template writes as nothing."""

    def items(self) -> list[str]:
        return ["/a/", "/b/", "/c/"]

    def location(self, item: str) -> str:
        return item

    def changefreq(self, item: str) -> str:
        return "daily"

    def priority(self, item: str) -> float:
        return 0.5

    def get_urls(
        self, page: int | str = 1, site: Any = None, protocol: str | None = None
    ) -> list[dict[str, Any]]:
        return [
            {
                "item": item,
                "location": f"{protocol}://{site.domain}{self.location(item)}",
                "lastmod": None,
                "changefreq": self.changefreq,
                "priority": self.priority,
            }
            for item in self.paginator.page(page).object_list
        ]


def contrib_locs(rf: RequestFactory, sitemaps: dict[str, Any], section: str) -> set[str]:
    response = contrib.sitemap(rf.get("/", secure=True), sitemaps, section=section)
    response.render()
    assert response.status_code == 200
    root = etree.fromstring(response.content)
    assert root.findall(".//sm:changefreq", NS) == []
    return {loc.text or "" for loc in root.iterfind(".//sm:loc", NS)}


def test_bound_methods_in_url_dicts_are_left_out_and_every_url_kept(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    copied = CopiedMethods()
    sitemaps = {"copied": copied}
    expected = contrib_locs(rf, sitemaps, "copied")
    response = sitemap(rf.get("/", secure=True), sitemaps, section="copied")
    assert response.status_code == 200
    urls = parse_urlset(response.content)  # type: ignore[attr-defined]
    assert urls == [Url(f"{SITE}/a/"), Url(f"{SITE}/b/"), Url(f"{SITE}/c/")]
    assert {url.loc for url in urls} == expected
    assert caplog.messages == [
        f"Left out the changefreq of URL '{SITE}/a/' of source 'copied': {copied.changefreq!r} "
        "is not one of always, hourly, daily, weekly, monthly, yearly, never.",
        f"Left out the priority of URL '{SITE}/a/' of source 'copied': {copied.priority!r} is "
        "not a number.",
        "Left out the changefreq of 2 more rows of source 'copied' on page 1 for the same "
        f"reason as URL '{SITE}/a/' (3 in all).",
        "Left out the priority of 2 more rows of source 'copied' on page 1 for the same "
        f"reason as URL '{SITE}/a/' (3 in all).",
    ]
    response = index(rf.get("/", secure=True), sitemaps, sitemap_url_name="compat-section")
    assert response.status_code == 200
    assert parse_index(response.content) == [  # type: ignore[attr-defined]
        (f"{SITE}/compat/sitemap-copied.xml", None)
    ]


class OutOfRange(Sitemap):  # type: ignore[type-arg]
    """A priority of 0 to 10, as some sites wrote it: every one outside 0.0 to 1.0."""

    changefreq = "weekly"

    def items(self) -> list[int]:
        return [1, 2, 3]

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    def priority(self, item: int) -> int:
        return 5 + item


def test_a_page_whose_every_priority_is_invalid_is_a_200_with_every_url(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    response = sitemap(rf.get("/"), {"ranked": OutOfRange}, section="ranked")
    assert response.status_code == 200
    assert parse_urlset(response.content) == [  # type: ignore[attr-defined]
        Url(f"{SITE}/n/{item}/", None, "weekly") for item in (1, 2, 3)
    ]
    assert caplog.messages == [
        "Left out the priority of item 1 of source 'ranked': 6 is outside 0.0 to 1.0.",
        "Left out the priority of 2 more rows of source 'ranked' on page 1 for the same "
        "reason as item 1 (3 in all).",
    ]


class TextLastmods(Sitemap):  # type: ignore[type-arg]
    """A ``lastmod()`` that returns text for every item, where contrib's index would
    take the newest text as a date."""

    changefreq = "weekly"
    priority = 0.5

    def items(self) -> list[int]:
        return [1, 2, 3]

    def location(self, item: int) -> str:
        return f"/n/{item}/"

    def lastmod(self, item: int) -> str:
        return f"2024-03-0{item}"


def test_a_lastmod_method_returning_text_keeps_every_url_and_dates_nothing(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    sitemaps = {"text": TextLastmods}
    response = index(rf.get("/"), sitemaps, sitemap_url_name="compat-section")
    assert response.status_code == 200
    assert "Last-Modified" not in response
    assert parse_index(response.content) == [  # type: ignore[attr-defined]
        (f"{SITE}/compat/sitemap-text.xml", None)
    ]
    response = sitemap(rf.get("/"), sitemaps, section="text")
    assert response.status_code == 200
    assert "Last-Modified" not in response
    assert parse_urlset(response.content) == [  # type: ignore[attr-defined]
        Url(f"{SITE}/n/{item}/", None, "weekly", "0.5") for item in (1, 2, 3)
    ]
    assert caplog.messages == [
        "Left out the lastmod of item 1 of source 'text': '2024-03-01' is not a date or datetime.",
        "Left out the lastmod of 2 more rows of source 'text' on page 1 for the same reason "
        "as item 1 (3 in all).",
    ]
