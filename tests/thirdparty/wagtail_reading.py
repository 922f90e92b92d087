"""Reading a host's sitemaps for the Wagtail tests: the app's whole index and every
page it names, and Wagtail's own sitemap view, each as a server answers it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.test import Client, override_settings
from sitemap_xml import ExtendedUrl, parse_extended_urlset, parse_index, parse_urlset, streamed

from django_sitemapkit import register, registry
from django_sitemapkit.sources.lastmods import clear_cache


def get(host: str, path: str) -> Any:
    return Client().get(path, HTTP_HOST=host, secure=True)


def listed(host: str) -> list[ExtendedUrl]:
    """Every URL of every page the index of ``host`` names, in order."""
    index = get(host, "/sitemap.xml")
    assert index.status_code == 200, index
    urls = []
    for loc, _ in parse_index(streamed(index)):
        page = get(host, loc.removeprefix(f"https://{host}"))
        assert page.status_code == 200, (loc, page)
        urls += parse_extended_urlset(streamed(page))
    return urls


def wagtail_listed(host: str) -> dict[str, str | None]:
    """Each location Wagtail's own sitemap view lists on ``host``, with its lastmod."""
    response = get(host, "/wagtail-sitemap.xml")
    assert response.status_code == 200, response
    return {url.loc: url.lastmod for url in parse_urlset(response.content)}


@contextmanager
def serving(*sources: type[Any], **settings: Any) -> Iterator[None]:
    """``sources`` registered, on the i18n URLconf, each Wagtail Site a site."""
    for source in sources:
        register(source)
    clear_cache()
    try:
        with override_settings(
            **{"ROOT_URLCONF": "thirdparty.urls_wagtail_i18n", "SITEMAPKIT_SITES": "wagtail"}
            | settings
        ):
            yield
    finally:
        for source in sources:
            registry.unregister(source)
        clear_cache()
