"""What third-party sitemap code does, through contrib's views and the drop-in side by
side: with the corpus' classes where a package does it (django Fiber's absolute
locations, djangocms-stories' empty ones, djangocms-page-sitemap's callables,
django-hosts' per-host URLconfs),
with small classes of our own where none of the corpus does (``get_urls()``,
``_urls()`` and ``_items()`` overridden, a lazy ``Mapping``, ``alternates``, a
``paginator`` of its own)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from django.contrib.flatpages.models import FlatPage
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as contrib_views
from django.core.paginator import Paginator
from django.http import HttpResponseBase
from django.test import RequestFactory
from django.utils import translation
from djangocms_stories.cms_appconfig import StoriesConfig, config_defaults
from djangocms_stories.models import Post, PostContent
from djangocms_stories.sitemaps import StoriesSitemap
from fiber.models import Page as FiberPage
from fiber.sitemaps import FiberSitemap

from django_sitemapkit import compat
from thirdparty.compat_side_by_side import (
    WWW,
    Urls,
    at,
    dropin_urls,
    on_www,
    own_index,
    own_urls,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def www() -> None:
    on_www()


def body(response: HttpResponseBase) -> bytes:
    render = getattr(response, "render", None)
    if render is not None:
        render()
    assert response.status_code == 200, response.status_code
    return response.content  # type: ignore[attr-defined,no-any-return]


def side_by_side(
    rf: RequestFactory, sitemaps: Mapping[str, Any], query: str = ""
) -> tuple[Urls, Urls]:
    """contrib's view and the drop-in on the same dict, on www's host."""

    def request() -> Any:
        return rf.get(f"/sitemap.xml{query}", secure=True, headers={"Host": "www.example.com"})

    own = own_urls(body(contrib_views.sitemap(request(), sitemaps=dict(sitemaps))))
    return own, dropin_urls(body(compat.sitemap(request(), sitemaps=sitemaps)))


def index_pages(rf: RequestFactory, sitemaps: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The pages contrib's index and the drop-in's list for ``sitemaps``, by path."""
    from sitemap_xml import parse_index

    def request() -> Any:
        return rf.get("/sitemap.xml", secure=True, headers={"Host": "www.example.com"})

    own = own_index(
        body(contrib_views.index(request(), dict(sitemaps), sitemap_url_name="own-fiber"))
    )
    ours = parse_index(body(compat.index(request(), sitemaps, sitemap_url_name="dropin-fiber")))
    return (
        [loc.removeprefix(WWW).replace("/own/", "/") for loc, _ in own],
        [loc.removeprefix(WWW).replace("/dropin/", "/") for loc, _ in ours],
    )


def flat_pages(count: int = 5) -> list[FlatPage]:
    made = [FlatPage._default_manager.create(url=f"/p{n}/", title=f"P{n}") for n in range(count)]
    for page in made:
        page.sites.add(1)
    return made


def pages_urls(numbers: range) -> Urls:
    return {f"{WWW}/pages/p{n}/": None for n in numbers}


# -- Absolute locations: django Fiber ------------------------------------------


def test_fibers_absolute_location_is_written_once(rf: RequestFactory) -> None:
    """A Fiber page whose URL is absolute (Fiber's ``get_absolute_url()`` returns it as
    it is): contrib prefixes it with its own scheme and domain, a URL no crawler can
    read; the drop-in writes it once. One on another host is skipped."""
    FiberPage.objects.create(title="Fiber", url="/fiber/")
    FiberPage.objects.create(title="Here", url="https://www.example.com/fiber/here/")
    FiberPage.objects.create(title="There", url="https://elsewhere.example.org/there/")
    own, ours = side_by_side(rf, {"pages": FiberSitemap})
    assert set(own) == {
        f"{WWW}/fiber/",
        f"{WWW}https://www.example.com/fiber/here/",
        f"{WWW}https://elsewhere.example.org/there/",
    }
    assert set(ours) == {f"{WWW}/fiber/", f"{WWW}/fiber/here/"}


def test_an_empty_location_is_skipped_where_contrib_writes_the_domain(
    rf: RequestFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """A djangocms-stories post of an app config no URLconf serves: its
    ``get_absolute_url()`` swallows the ``NoReverseMatch`` and returns ``""``, which
    contrib writes as the domain alone (the home page, with the post's lastmod);
    the drop-in skips it and says why."""
    served = StoriesConfig.objects.create(**config_defaults, namespace="stories")
    unserved = StoriesConfig.objects.create(**config_defaults, namespace="unserved")
    for n, config in enumerate((served, unserved)):
        post = Post.objects.create(app_config=config, date_published=at(n))
        PostContent.objects.create(post=post, language="en", title="Story", slug=f"story-{n}")
    own, ours = side_by_side(rf, {"stories": StoriesSitemap})
    assert set(own) == {f"{WWW}/stories/2024/03/01/story-0/", WWW}
    assert set(ours) == {f"{WWW}/stories/2024/03/01/story-0/"}
    unserved_content = PostContent.objects.get(post__app_config=unserved)
    assert [record.getMessage() for record in caplog.records] == [
        f"Skipped pk={unserved_content.pk} of source 'stories': location '' is relative; "
        "return a path starting with '/'."
    ]


# -- get_urls(), _urls(), _items() overridden -----------------------------------


class SiteGivenSitemap(Sitemap[FlatPage]):
    """``get_urls()`` overridden to pass a site of its own choosing (as Mezzanine's
    ``DisplayableSitemap`` does), and to add a URL of its own to the page."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def get_urls(self, page: int | str = 1, site: Any = None, protocol: Any = None) -> Any:
        from django.contrib.sites.models import Site

        urls = super().get_urls(page, site=Site.objects.get(pk=1), protocol=protocol)
        return [*urls, {"location": f"{WWW}/extra/", "lastmod": at(3), "item": None}]


class OwnUrlsSitemap(Sitemap[FlatPage]):
    """``_urls()`` overridden: each dict rewritten, one more priority and lastmod."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def _urls(self, page: Any, protocol: str, domain: str) -> list[dict[str, Any]]:
        urls = super()._urls(page, protocol, domain)  # type: ignore[misc]
        return [{**url, "priority": "0.3", "lastmod": at(1)} for url in urls]


class OwnItemsSitemap(Sitemap[tuple[FlatPage, str]]):
    """``_items()`` overridden (what ``i18n`` classes do): one unit per page and
    language, its location built from both."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def _items(self) -> list[Any]:
        return [(page, code) for page in self.items() for code in ("en", "fr")]

    def _location(self, item: Any, force_lang_code: Any = None) -> str:
        page, code = item
        return f"/{code}{page.url}"


def test_get_urls_overridden_with_a_site_and_an_extra_url(rf: RequestFactory) -> None:
    flat_pages(3)
    own, ours = side_by_side(rf, {"pages": SiteGivenSitemap})
    expected = {
        **{f"{WWW}/pages/p{n}/": None for n in range(3)},
        f"{WWW}/extra/": at(3).date().isoformat(),
    }
    assert (own, ours) == (expected, expected)


def test_urls_overridden(rf: RequestFactory) -> None:
    flat_pages(3)
    own, ours = side_by_side(rf, {"pages": OwnUrlsSitemap})
    expected = {f"{WWW}/pages/p{n}/": at(1).date().isoformat() for n in range(3)}
    assert (own, ours) == (expected, expected)


def test_items_overridden(rf: RequestFactory) -> None:
    flat_pages(2)
    own, ours = side_by_side(rf, {"pages": OwnItemsSitemap})
    expected = {f"{WWW}/{code}/p{n}/": None for n in range(2) for code in ("en", "fr")}
    assert (own, ours) == (expected, expected)
    assert index_pages(rf, {"pages": OwnItemsSitemap}) == (["/fiber-pages.xml"],) * 2


class BoundMethodsSitemap(Sitemap[FlatPage]):
    """The dicts of ``get_urls()`` hold bound methods as ``changefreq`` and
    ``priority``, as the mixin of issue 43's site puts them there."""

    changefreq = "weekly"

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def page_priority(self) -> Any:
        return 0.5

    def get_urls(self, page: int | str = 1, site: Any = None, protocol: Any = None) -> Any:
        urls = super().get_urls(page, site=site, protocol=protocol)
        return [
            {**url, "changefreq": self.page_priority, "priority": self.page_priority}
            for url in urls
        ]


def test_bound_methods_in_get_urls_dicts_keep_every_url(rf: RequestFactory) -> None:
    flat_pages(3)
    own, ours = side_by_side(rf, {"pages": BoundMethodsSitemap})
    assert (own, ours) == (pages_urls(range(3)), pages_urls(range(3)))


# -- Callables for every attribute ----------------------------------------------


class CallablesSitemap(Sitemap[FlatPage]):
    """``location``, ``lastmod``, ``changefreq`` and ``priority`` all methods, ``limit``
    and ``protocol`` properties."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def location(self, item: FlatPage) -> str:
        return f"/flat{item.url}"

    def lastmod(self, item: FlatPage) -> Any:
        return at(item.pk)

    def changefreq(self, item: FlatPage) -> str:
        return "daily" if item.pk % 2 else "monthly"

    def priority(self, item: FlatPage) -> float:
        return float(item.pk % 10) / 10

    @property
    def limit(self) -> int:  # type: ignore[override]
        return 2

    @property
    def protocol(self) -> str:  # type: ignore[override]
        return "https"


def test_callables_for_every_attribute(rf: RequestFactory) -> None:
    pages = flat_pages(5)
    pages_seen = [side_by_side(rf, {"pages": CallablesSitemap}, f"?p={n}") for n in (1, 2, 3)]
    expected = [
        {f"{WWW}/flat{page.url}": at(page.pk).date().isoformat() for page in pages[start:end]}
        for start, end in ((0, 2), (2, 4), (4, 5))
    ]
    assert pages_seen == [(urls, urls) for urls in expected]


# -- A lazy Mapping of sections -------------------------------------------------


class LazySections(Mapping[str, Any]):
    """A ``sitemaps`` mapping whose sections are made when first read, as a project
    builds them from its apps; contrib's views only iterate it and read its keys."""

    def __init__(self) -> None:
        self.made: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key != "pages":
            raise KeyError(key)
        return self.made.setdefault(key, OwnUrlsSitemap)

    def __iter__(self) -> Iterator[str]:
        return iter(["pages"])

    def __len__(self) -> int:
        raise TypeError("the sections are counted only once they are all made")


def test_a_lazy_mapping_is_served(rf: RequestFactory) -> None:
    flat_pages(2)
    expected = {f"{WWW}/pages/p{n}/": at(1).date().isoformat() for n in range(2)}
    assert side_by_side(rf, LazySections()) == (expected, expected)
    assert index_pages(rf, LazySections()) == (["/fiber-pages.xml"],) * 2


# -- alternates ------------------------------------------------------------------


class AlternatesSitemap(Sitemap[FlatPage]):
    i18n = True
    alternates = True
    x_default = True
    languages = ["en", "fr"]

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    def location(self, item: FlatPage) -> str:
        return f"/{translation.get_language()}{item.url}"


def alternates_of(content: bytes) -> dict[str, list[tuple[str | None, str | None]]]:
    from lxml import etree

    ns = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = etree.fromstring(content)
    return {
        url.findtext("sm:loc", "", ns): sorted(
            (link.get("hreflang"), link.get("href")) for link in url.iterfind("x:link", ns)
        )
        for url in root.iterfind("sm:url", ns)
    }


def test_alternates_and_x_default(rf: RequestFactory) -> None:
    flat_pages(2)
    sitemaps: dict[str, Any] = {"pages": AlternatesSitemap}

    def request() -> Any:
        return rf.get("/sitemap.xml", secure=True, headers={"Host": "www.example.com"})

    own = alternates_of(body(contrib_views.sitemap(request(), sitemaps=sitemaps)))
    ours = alternates_of(body(compat.sitemap(request(), sitemaps=sitemaps)))
    links = {
        n: [
            ("en", f"{WWW}/en/p{n}/"),
            ("fr", f"{WWW}/fr/p{n}/"),
            ("x-default", f"{WWW}/p{n}/"),
        ]
        for n in range(2)
    }
    expected = {f"{WWW}/{code}/p{n}/": links[n] for n in range(2) for code in ("en", "fr")}
    assert own == ours == expected


# -- A paginator of its own ------------------------------------------------------


class OwnPaginatorSitemap(Sitemap[FlatPage]):
    """``paginator`` overridden: pages of two, newest first, whatever ``limit``."""

    def items(self) -> Any:
        return FlatPage._default_manager.order_by("url")

    @property
    def paginator(self) -> Paginator[FlatPage]:
        return Paginator(FlatPage._default_manager.order_by("-url"), 2)


def test_a_paginator_of_its_own(rf: RequestFactory) -> None:
    flat_pages(5)
    seen = [side_by_side(rf, {"pages": OwnPaginatorSitemap}, f"?p={n}") for n in (1, 2, 3)]
    expected = [pages_urls(range(4, 2, -1)), pages_urls(range(2, 0, -1)), pages_urls(range(1))]
    assert seen == [(urls, urls) for urls in expected]
    pages = ["/fiber-pages.xml", "/fiber-pages.xml?p=2", "/fiber-pages.xml?p=3"]
    assert index_pages(rf, {"pages": OwnPaginatorSitemap}) == (pages, pages)
