"""The views under ASGI: bodies stream as asynchronous iterators, never collected whole."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, cast

import pytest
from asgiref.sync import async_to_sync
from django.core.management import call_command
from django.http import StreamingHttpResponse
from django.test import AsyncClient, Client, override_settings
from factories import bulk_articles
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.sitemaps import ArticleSource, PagesSource

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


class SmallPages(ArticleSource):
    limit = 700


async def fetch_async(url: str, **headers: str) -> tuple[int, list[bytes], StreamingHttpResponse]:
    response: Any = await AsyncClient().get(url, headers=headers)
    assert isinstance(response, StreamingHttpResponse)
    content = cast(AsyncIterator[bytes], response.streaming_content)
    chunks = [chunk async for chunk in content]
    return response.status_code, chunks, response


def asgi_get(url: str, **headers: str) -> tuple[int, list[bytes], StreamingHttpResponse]:
    # The test's own thread runs the view's synchronous code (thread_sensitive),
    # with the test's database connection and transaction.
    return async_to_sync(fetch_async)(url, **headers)


@pytest.mark.parametrize(
    "url", ["/sitemap.xml", "/sitemap-articles-1.xml", "/sitemap-articles-2.xml.gz"]
)
def test_asgi_streams_the_bytes_wsgi_sends_asynchronously(
    client: Client, sources: Sources, url: str
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(1_000)
    status, chunks, response = asgi_get(url)
    # filterwarnings = error: Django's "must consume synchronous iterators"
    # warning, and the collecting it announces, would fail the request.
    assert response.is_async
    body = b"".join(chunks)
    assert (status, body) == fetch(client, url)[:2]
    document = gzip.decompress(body) if url.endswith(".gz") else body
    parsed = parse_index(document) if url == "/sitemap.xml" else parse_urlset(document)
    assert parsed  # valid against the official schema, and not empty


def test_a_large_page_arrives_in_several_chunks(sources: Sources) -> None:
    sources(ArticleSource)
    bulk_articles(3_000)
    status, chunks, _ = asgi_get("/sitemap-articles-1.xml")
    assert status == 200
    assert len(parse_urlset(b"".join(chunks))) == 3_000
    assert len(chunks) > 3
    assert max(map(len, chunks)) < 2 * 64 * 1024


def test_built_files_stream_asynchronously(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(50)
    call_command("build_sitemaps", output=str(tmp_path), verbosity=0)
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        status, chunks, response = asgi_get(
            "/sitemap-articles-1.xml", **{"Accept-Encoding": "gzip"}
        )
    assert (status, response["Content-Encoding"], response.is_async) == (200, "gzip", True)
    body = b"".join(chunks)
    assert body == (tmp_path / "sitemap-articles-1.xml.gz").read_bytes()
    assert gzip.decompress(body) == (tmp_path / "sitemap-articles-1.xml").read_bytes()
    assert len(parse_urlset(gzip.decompress(body))) == 50
