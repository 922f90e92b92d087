"""The corpus (thirdparty/corpus.py) through contrib's views and the drop-in side by
side: for each package's classes, with a few rows of its models, the same URLs and
lastmods on the site's host, the same index, status and cache headers, alone,
behind ``cache_page`` and behind ``ConditionalGetMiddleware``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils.http import http_date
from lxml import etree
from sitemap_xml import NS

from thirdparty.compat_side_by_side import (
    TWO_SITES,
    WWW,
    app_urls,
    build,
    built_urls,
    compared,
    compared_index,
    dropin_urls,
    get,
    host_of,
    on_www,
    own_urls,
    registered,
)
from thirdparty.corpus import CORPUS, Package

pytestmark = pytest.mark.django_db

#: The response headers a cache or a crawler acts on.
CACHE_HEADERS = ("Last-Modified", "Cache-Control", "Expires", "Vary", "X-Robots-Tag")


@pytest.fixture(params=CORPUS, ids=[package.name for package in CORPUS])
def package(request: pytest.FixtureRequest, client: Client) -> Package:
    """A package of the corpus, its rows made, contrib's view listing what it lists."""
    on_www()
    cache.clear()
    made: Package = request.param
    expected = made.make()
    assert own_urls(get(client, f"/own/{made.name}.xml")) == expected
    return made


def headers(client: Client, url: str, **extra: str) -> tuple[int, dict[str, str | None]]:
    response = client.get(url, secure=True, headers={"Host": host_of(WWW), **extra})
    return response.status_code, {name: response.get(name) for name in CACHE_HEADERS}


def test_the_drop_in_lists_what_contribs_view_lists(client: Client, package: Package) -> None:
    own, ours = compared(client, package.name)
    assert ours == own


def values_of(body: bytes) -> dict[str, tuple[str | None, str | None]]:
    """Each URL's changefreq and priority, as written (a priority as a number)."""
    root = etree.fromstring(body)
    found = {}
    for url in root.iterfind("sm:url", NS):
        priority = url.findtext("sm:priority", None, NS)
        found[url.findtext("sm:loc", "", NS)] = (
            url.findtext("sm:changefreq", None, NS),
            None if priority is None else str(Decimal(priority).normalize()),
        )
    return found


def test_the_drop_in_writes_contribs_changefreqs_and_priorities(
    client: Client, package: Package
) -> None:
    own = values_of(get(client, f"/own/{package.name}.xml"))
    assert values_of(get(client, f"/dropin/{package.name}.xml")) == own


def test_registered_sections_and_the_build_list_them(
    client: Client, package: Package, tmp_path: Path
) -> None:
    own = own_urls(get(client, f"/own/{package.name}.xml"))
    with registered(package.sitemaps):
        assert app_urls(client) == own
        build(tmp_path)
    assert built_urls(tmp_path) == own


def test_the_drop_in_index_lists_contribs_pages(client: Client, package: Package) -> None:
    compared_index(client, package.name)


def test_the_status_and_cache_headers_are_contribs(client: Client, package: Package) -> None:
    own = headers(client, f"/own/{package.name}.xml")
    assert headers(client, f"/dropin/{package.name}.xml") == own
    # A page past the last is a 404 on both.
    assert (
        client.get(f"/dropin/{package.name}.xml?p=2", secure=True).status_code,
        client.get(f"/own/{package.name}.xml?p=2", secure=True).status_code,
    ) == (404, 404)


def test_cache_page_gives_both_the_same_headers(client: Client, package: Package) -> None:
    own = headers(client, f"/own-cached/{package.name}.xml")
    ours = headers(client, f"/dropin-cached/{package.name}.xml")
    assert ours == own
    assert own[1]["Cache-Control"] == "max-age=60"
    # The second answer is the cache's, with the same headers.
    assert headers(client, f"/dropin-cached/{package.name}.xml") == ours


def test_conditional_get_answers_both_alike(package: Package, settings: Any) -> None:
    """Behind ``ConditionalGetMiddleware`` both have an ETag (of their own bytes) and
    answer 304 to it and to their ``Last-Modified``; alone, only the drop-in has an
    ETag (docs/migrating.md, Step 1)."""
    alone = Client()
    assert alone.get(f"/own/{package.name}.xml", secure=True).get("ETag") is None
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, "django.middleware.http.ConditionalGetMiddleware"]
    client = Client()  # its handler loads the middleware now
    own = headers(client, f"/own/{package.name}.xml")
    assert headers(client, f"/dropin/{package.name}.xml") == own
    for prefix in ("own", "dropin"):
        url = f"/{prefix}/{package.name}.xml"
        etag = client.get(url, secure=True)["ETag"]
        assert headers(client, url, **{"If-None-Match": etag})[0] == 304
        modified = own[1]["Last-Modified"]
        if modified is not None:
            assert headers(client, url, **{"If-Modified-Since": modified})[0] == 304
        assert headers(client, url, **{"If-Modified-Since": http_date(0)})[0] == 200


def test_the_test_clients_host_gets_site_ids_sitemap(client: Client, package: Package) -> None:
    """A project's own sitemap test requests the test client's host, ``testserver``:
    contrib serves SITE_ID's site there, and so does the drop-in with one site
    (``SITEMAPKIT_BASE_URL``)."""
    own = own_urls(client.get(f"/own/{package.name}.xml", secure=True).content)
    response = client.get(f"/dropin/{package.name}.xml", secure=True)
    assert (response.status_code, dropin_urls(response.content)) == (200, own)


def test_with_two_sites_the_test_clients_host_gets_site_ids_sitemap(
    client: Client, package: Package, settings: Any
) -> None:
    settings.SITEMAPKIT_SITES = TWO_SITES
    own = own_urls(client.get(f"/own/{package.name}.xml", secure=True).content)
    response = client.get(f"/dropin/{package.name}.xml", secure=True)
    assert response.status_code == 200
    assert dropin_urls(response.content) == own
