"""What the tests of the drop-in on third-party classes share (test_compat_*.py): each
package's own sitemap view (/own/, thirdparty/urls.py) and the drop-in (/dropin/),
the app's own URLs after ``compat.register()``, and ``build_sitemaps``, read as
the same sets of URLs and lastmods."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.contrib.sites.models import Site as DjangoSite
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from lxml import etree
from sitemap_xml import NS, parse_index, parse_urlset, streamed

from django_sitemapkit import compat
from django_sitemapkit.registry import registry

UTC = dt.timezone.utc
WWW = "https://www.example.com"
BLOG = "https://blog.example.com"
#: Two sites on two hosts, as a project serving two Wagtail sites configures them.
TWO_SITES = {"www": WWW, "blog": BLOG}
#: What a URL's lastmod is compared by: its day. contrib's template writes a page's
#: lastmods as dates, the drop-in writes the datetime; the tests' dates are at noon
#: UTC, the same day in every time zone near this one.
Urls = dict[str, str | None]


def at(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, 1, 12, tzinfo=UTC) + dt.timedelta(days=day)


def on_www() -> None:
    """The current Site (SITE_ID = 1) on the base URL's host, as contrib's views need
    it to write the same host; Django's per-process cache of it emptied."""
    DjangoSite.objects.filter(pk=1).update(domain="www.example.com", name="www")
    DjangoSite.objects.clear_cache()


def host_of(base_url: str) -> str:
    return base_url.partition("://")[2]


def get(client: Client, url: str, base_url: str = WWW) -> bytes:
    response = client.get(url, secure=True, headers={"Host": host_of(base_url)})
    assert (url, response.status_code) == (url, 200)
    return streamed(response) if response.streaming else response.content


def own_urls(body: bytes) -> Urls:
    """A page of a package's own view (contrib's template), unvalidated: its URLs and days."""
    root = etree.fromstring(body)
    found: Urls = {}
    for url in root.iterfind("sm:url", NS):
        lastmod = url.findtext("sm:lastmod", None, NS)
        found[url.findtext("sm:loc", "", NS)] = None if lastmod is None else lastmod[:10]
    return found


def dropin_urls(body: bytes) -> Urls:
    """A page of the drop-in or of this app, validated against the schema."""
    return {
        url.loc: None if url.lastmod is None else url.lastmod[:10] for url in parse_urlset(body)
    }


def own_index(body: bytes) -> list[tuple[str, str | None]]:
    root = etree.fromstring(body)
    return [
        (item.findtext("sm:loc", "", NS), item.findtext("sm:lastmod", None, NS))
        for item in root.iterfind("sm:sitemap", NS)
    ]


def same_instant(own: str | None, ours: str | None) -> bool:
    """Whether two index lastmods are one instant: contrib writes microseconds and the
    time zone's offset, the drop-in whole seconds in UTC."""
    if own is None or ours is None:
        return own is ours
    seen = dt.datetime.fromisoformat(own).replace(microsecond=0)
    return seen == dt.datetime.fromisoformat(ours)


def compared(
    client: Client, package: str, base_url: str = WWW, query: str = ""
) -> tuple[Urls, Urls]:
    """The URLs of the package's own view and of the drop-in, on ``base_url``'s host."""
    own = own_urls(get(client, f"/own/{package}.xml{query}", base_url))
    ours = dropin_urls(get(client, f"/dropin/{package}.xml{query}", base_url))
    return own, ours


def queries(client: Client, url: str, base_url: str = WWW) -> int:
    """How many queries answering ``url`` runs, its body read whole, once a first
    request has filled the caches every view shares (content types, Wagtail's
    site root paths, contrib's current Site)."""
    get(client, url, base_url)
    with CaptureQueriesContext(connection) as captured:
        get(client, url, base_url)
    return len(captured.captured_queries)


def compared_index(client: Client, package: str, base_url: str = WWW) -> None:
    """The drop-in's index on ``base_url`` lists the pages the package's own index
    lists there, with the same lastmods. contrib's index writes every page on the
    current Site's domain (SITE_ID's, www), whatever the host asked: the drop-in
    writes them on the site's base URL, so the pages are compared by path."""
    own = own_index(get(client, f"/own/{package}-index.xml", base_url))
    ours = parse_index(get(client, f"/dropin/{package}-index.xml", base_url))
    assert all(loc.startswith(f"{base_url}/dropin/") for loc, _ in ours), ours
    own_paths = [urlsplit(loc)._replace(scheme="", netloc="").geturl() for loc, _ in own]
    our_paths = [urlsplit(loc)._replace(scheme="", netloc="").geturl() for loc, _ in ours]
    assert [path.replace("/own/", "/dropin/") for path in own_paths] == our_paths, (own, ours)
    for (_, own_lastmod), (_, our_lastmod) in zip(own, ours, strict=True):
        assert same_instant(own_lastmod, our_lastmod), (own_lastmod, our_lastmod)


@contextmanager
def registered(sitemaps: Mapping[str, Any]) -> Iterator[None]:
    """Only ``sitemaps``' sections registered, as a project's sitemaps.py would."""
    saved = registry.all()
    registry._sources = []
    compat.register(sitemaps)
    try:
        yield
    finally:
        registry._sources = saved


def app_urls(client: Client, base_url: str = WWW) -> Urls:
    """Every URL of this app's sitemap on ``base_url``: the index, then each page."""
    found: Urls = {}
    for loc, _ in parse_index(get(client, "/sitemap.xml", base_url)):
        assert loc.startswith(base_url + "/"), loc
        found |= dropin_urls(get(client, loc.removeprefix(base_url), base_url))
    return found


def built_urls(directory: Path) -> Urls:
    """Every URL of the pages ``build_sitemaps`` wrote in ``directory``."""
    found: Urls = {}
    for page in sorted(directory.glob("sitemap-*.xml")):
        found |= dropin_urls(page.read_bytes())
    return found


def build(output: Path) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0)
