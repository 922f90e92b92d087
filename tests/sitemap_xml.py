"""Parse what the app emits, after validating it against the bundled official schemas."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from typing import NamedTuple, cast

from django.http import StreamingHttpResponse
from django.test import Client
from lxml import etree

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'


class Url(NamedTuple):
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None


@cache
def schema(name: str) -> etree.XMLSchema:
    path = files("django_sitemapkit") / "schemas" / name
    return etree.XMLSchema(etree.fromstring(path.read_bytes()))


def parse(content: bytes, schema_name: str) -> etree._Element:
    assert content.startswith(DECLARATION), content[:80]
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(content, parser)
    schema(schema_name).assertValid(root)
    return root


def _text(element: etree._Element, name: str) -> str | None:
    found = element.find(f"sm:{name}", NS)
    return None if found is None else found.text


def parse_urlset(content: bytes) -> list[Url]:
    """The ``<url>`` entries of a schema-valid ``<urlset>``, in document order."""
    root = parse(content, "sitemap.xsd")
    return [
        Url(*(_text(url, name) for name in ("loc", "lastmod", "changefreq", "priority")))  # type: ignore[arg-type]
        for url in root.iterfind("sm:url", NS)
    ]


def parse_index(content: bytes) -> list[tuple[str, str | None]]:
    """(loc, lastmod) of each ``<sitemap>`` of a schema-valid ``<sitemapindex>``."""
    root = parse(content, "siteindex.xsd")
    return [
        (_text(item, "loc") or "", _text(item, "lastmod"))
        for item in root.iterfind("sm:sitemap", NS)
    ]


def fetch(client: Client, url: str, **headers: str) -> tuple[int, bytes, dict[str, str]]:
    """Status, whole body and headers of a GET, streaming or not."""
    response = client.get(url, headers=headers)
    body = streamed(response) if response.streaming else response.content
    return response.status_code, body, dict(response.headers)


def streamed(response: object) -> bytes:
    """The whole body of a streaming response."""
    assert isinstance(response, StreamingHttpResponse), type(response)
    return b"".join(cast(Iterator[bytes], response.streaming_content))
