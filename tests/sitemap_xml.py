"""Parse what the app emits, after validating it against the bundled official schemas."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple, cast
from urllib.parse import urlsplit

from django.http import StreamingHttpResponse
from django.test import Client
from lxml import etree

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NS = {"sm": SITEMAP_NS, "xhtml": XHTML_NS, "image": IMAGE_NS, "news": NEWS_NS, "video": VIDEO_NS}
DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'

# The official extension schemas (unchanged copies) and the driver schema that
# imports them all, shipped in the package; see its schemas/README.md. Under
# tox these are the built wheel's, so a schema missing from it fails the suite.
SCHEMAS = Path(str(files("django_sitemapkit") / "schemas"))
EXTENSIONS_SCHEMA = SCHEMAS / "urlset-extensions.xsd"
# Imports by URL in the driver and in xhtml1-strict.xsd: each is answered from
# a local file, never from the network.
XML_XSD_URL = "http://www.w3.org/2001/xml.xsd"


class Url(NamedTuple):
    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None


class ExtendedUrl(NamedTuple):
    """A ``<url>`` with the values of its extension elements.

    The list defaults are shared between instances, as any NamedTuple default
    is: compare them, never mutate them. parse_extended_urlset() always builds
    new lists.
    """

    loc: str
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    # (hreflang, href) of each <xhtml:link rel="alternate">.
    alternates: list[tuple[str, str]] = []
    # The <image:loc> of each <image:image>.
    images: list[str] = []
    # name, language, publication_date and title of the <news:news>.
    news: dict[str, str] | None = None
    # One dict per <video:video>; see _video().
    videos: list[dict[str, object]] = []


def _package_schema(name: str) -> bytes:
    # The installed package's copy: under tox that is the built wheel's, so a
    # schema missing from the wheel fails the suite.
    return (files("django_sitemapkit") / "schemas" / name).read_bytes()


@cache
def schema(name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.fromstring(_package_schema(name)))


class OfflineResolver(etree.Resolver):
    """Answers the schema imports by URL from local files and refuses any other URL.

    Imports by relative path (the copies beside the driver schema) are left to
    libxml2, which reads them from the driver's directory.
    """

    # lxml calls resolve(system_url, public_id, context); lxml-stubs leave out
    # the context argument.
    def resolve(  # type: ignore[override]
        self, system_url: str, public_id: str | None, context: object
    ) -> object:
        if system_url == XML_XSD_URL:
            xml_xsd = SCHEMAS / "xml.xsd"
            return self.resolve_string(xml_xsd.read_bytes(), context, base_url=xml_xsd.as_uri())
        if urlsplit(system_url).scheme not in ("", "file"):
            # lxml turns this into an XMLSchemaParseError ("Failed to parse the
            # XML resource"): a new import by URL needs a local copy here.
            raise LookupError(f"no local copy of {system_url}, and no network access")
        return None


@cache
def extensions_schema() -> etree.XMLSchema:
    """The driver schema: sitemap.xsd plus the xhtml, image, news and video schemas.

    Compiling it takes a few tenths of a second (xhtml1-strict.xsd is large),
    hence the cache.
    """
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.resolvers.add(OfflineResolver())
    return etree.XMLSchema(etree.parse(str(EXTENSIONS_SCHEMA), parser))


def _read(content: bytes) -> etree._Element:
    assert content.startswith(DECLARATION), content[:80]
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    return etree.fromstring(content, parser)


def parse(content: bytes, schema_name: str) -> etree._Element:
    root = _read(content)
    schema(schema_name).assertValid(root)
    return root


def _valid_urlset(content: bytes) -> etree._Element:
    """The root of a ``<urlset>`` valid against every schema its namespaces call for.

    A document whose root declares only the sitemap namespace is checked
    against sitemap.xsd alone, as before the extensions: the driver schema would
    give the same verdict, about a third slower. (An extension namespace declared
    below the root is then rejected by sitemap.xsd's strict wildcard, never
    let through.)
    """
    root = _read(content)
    if set(root.nsmap.values()) <= {SITEMAP_NS}:
        schema("sitemap.xsd").assertValid(root)
        return root
    # The driver accepts any global element of the five schemas as the root
    # (<image:image>, <html>...); sitemap.xsd alone accepts only <urlset>.
    assert root.tag == f"{{{SITEMAP_NS}}}urlset", root.tag
    extensions_schema().assertValid(root)
    return root


def _text(element: etree._Element, name: str) -> str | None:
    found = element.find(f"sm:{name}", NS)
    return None if found is None else found.text


def parse_urlset(content: bytes) -> list[Url]:
    """The ``<url>`` entries of a schema-valid ``<urlset>``, in document order."""
    root = _valid_urlset(content)
    return [
        Url(*(_text(url, name) for name in ("loc", "lastmod", "changefreq", "priority")))  # type: ignore[arg-type]
        for url in root.iterfind("sm:url", NS)
    ]


def parse_extended_urlset(content: bytes) -> list[ExtendedUrl]:
    """The ``<url>`` entries of a schema-valid ``<urlset>`` with their extensions, in order."""
    return [_extended_url(url) for url in _valid_urlset(content).iterfind("sm:url", NS)]


def namespaces(content: bytes) -> dict[str | None, str]:
    """Prefix (None for the default namespace) -> URI of each declaration on the root."""
    return dict(_read(content).nsmap)


def _extended_url(url: etree._Element) -> ExtendedUrl:
    return ExtendedUrl(
        loc=_child_text(url, "sm:loc"),
        lastmod=_text(url, "lastmod"),
        changefreq=_text(url, "changefreq"),
        priority=_text(url, "priority"),
        alternates=_alternates(url),
        images=[_child_text(image, "image:loc") for image in url.iterfind("image:image", NS)],
        news=_news(url),
        videos=[_video(video) for video in url.iterfind("video:video", NS)],
    )


def _content(element: etree._Element) -> str:
    # The whole text of a simple element: .text stops at a comment, and is None
    # for an empty element, which some types (xs:string, xs:anyURI) allow.
    # lxml-stubs type the pieces as str | bytes; Python 3's lxml gives str.
    return "".join(cast(Iterator[str], element.itertext()))


def _child_text(element: etree._Element, path: str) -> str:
    """The text of a child that the schema requires."""
    found = element.find(path, NS)
    assert found is not None, f"no {path} in {etree.tostring(element)!r}"
    return _content(found)


def _alternates(url: etree._Element) -> list[tuple[str, str]]:
    found = []
    for link in url.iterfind("xhtml:link", NS):
        # rel holds space-separated link types, compared case-insensitively in HTML.
        if "alternate" not in (link.get("rel") or "").lower().split():
            continue
        hreflang, href = link.get("hreflang"), link.get("href")
        # XHTML makes both optional; an alternate without them says nothing.
        assert hreflang is not None, etree.tostring(link)
        assert href is not None, etree.tostring(link)
        found.append((hreflang, href))
    return found


def _news(url: etree._Element) -> dict[str, str] | None:
    """The required values of the ``<news:news>``; access, genres, keywords and
    stock_tickers are not read."""
    items = url.findall("news:news", NS)
    if not items:
        return None
    # sitemap.xsd's wildcard would let several through; Google reads one per URL.
    assert len(items) == 1, f"{len(items)} <news:news> in one <url>"
    news = items[0]
    return {
        "name": _child_text(news, "news:publication/news:name"),
        "language": _child_text(news, "news:publication/news:language"),
        "publication_date": _child_text(news, "news:publication_date"),
        "title": _child_text(news, "news:title"),
    }


def _video(video: etree._Element) -> dict[str, object]:
    """Local name -> text of each child of a ``<video:video>``.

    The repeatable <video:tag> gives a list under "tag"; <video:tvshow>, the one
    child with children, gives a dict of theirs. Each attribute of a child is a
    key "<element>@<attribute>" (player_loc@allow_embed, restriction@relationship,
    platform@relationship, uploader@info...). Another repeated child (price, id,
    content_segment_loc) fails instead of overwriting the first.
    """
    fields: dict[str, object] = {}
    for child in _child_elements(video):
        name = etree.QName(child).localname
        if name == "tag":
            cast(list[str], fields.setdefault("tag", [])).append(_content(child))
            continue
        assert name not in fields, f"<video:{name}> repeated: not supported by this helper"
        if len(child):
            fields[name] = {etree.QName(c).localname: _content(c) for c in _child_elements(child)}
        else:
            fields[name] = _content(child)
        for attr in child.attrib:
            fields[f"{name}@{etree.QName(attr).localname}"] = child.get(attr)
    return fields


def _child_elements(element: etree._Element) -> Iterator[etree._Element]:
    # Comments and processing instructions are children too.
    return (child for child in element if isinstance(child.tag, str))


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


def versions_served(client: Client, base_url: str) -> Iterator[tuple[str, set[bytes]]]:
    """Each file the served index names, and what the readers of it get, decompressed:
    a client that accepts gzip and one that does not at its ``.xml`` URL, and any
    client at its ``.gz`` URL. The URL the index names must answer 200; the others
    200 or 404 (a 404 is left out)."""
    _, index, _ = fetch(client, "/sitemap.xml")
    for loc, _ in parse_index(index):
        page = loc.removeprefix(base_url + "/").removesuffix(".gz")
        got = set()
        for url, headers in [
            (f"/{page}", {}),
            (f"/{page}", {"Accept-Encoding": "gzip"}),
            (f"/{page}.gz", {}),
        ]:
            status, body, answered = fetch(client, url, **headers)
            assert status in (200, 404), (url, headers, status)
            assert status == 200 or loc != base_url + url, (url, headers, status)
            if status == 200:
                coded = url.endswith(".gz") or answered.get("Content-Encoding") == "gzip"
                got.add(gzip.decompress(body) if coded else body)
        yield loc, got
