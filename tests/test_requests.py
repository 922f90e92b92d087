"""Whatever a client sends, the answer is a 2xx, 3xx or 4xx, and never leaks.

Hypothesis generates requests over the views' whole URL space (section names
and page numbers of every shape, dot segments, encoded slashes, NUL, 10 kB
names, query strings), with any method and hostile headers (``Host``,
``X-Forwarded-*``, garbage validators, huge ``If-None-Match``), in each of the
three ``SITEMAPKIT_SERVE`` modes. For every request: no 500; a 200 carries a
schema-valid document whose every ``<loc>`` is on ``SITEMAPKIT_BASE_URL``;
HEAD has no body; and, through a Python audit hook (PEP 578), no file outside
the output directory is opened and no file is written, renamed or removed.
"""

from __future__ import annotations

import gzip
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import pytest
from django.core.management import call_command
from django.http import HttpResponseBase
from django.test import Client, override_settings
from django.urls import Resolver404, resolve
from factories import ArticleFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sitemap_xml import parse_index, parse_urlset, streamed

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"

PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# -- watching the file system (PEP 578 audit events) ---------------------------------------

#: The (event, path) pairs seen while a request runs; None when nothing is watched.
SEEN: list[tuple[str, str]] | None = None
WRITE_EVENTS = {"os.remove", "os.rename", "os.replace", "os.rmdir", "os.mkdir", "os.chmod"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def audit(event: str, args: tuple[Any, ...]) -> None:
    if SEEN is None or not args:
        return
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int):
            return  # os.fdopen() of a descriptor whose opening was seen already
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & WRITE_FLAGS
        )
        SEEN.append(("write" if writes else "read", os.fsdecode(path)))
    elif event in WRITE_EVENTS and isinstance(args[0], (str, bytes, os.PathLike)):
        SEEN.append(("write", os.fsdecode(args[0])))


# Hooks cannot be removed; this one does nothing unless SEEN is a list.
sys.addaudithook(audit)
#: Where the interpreter and its packages live: reading there is no leak.
PYTHON_FILES = {Path(prefix) for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix)}


def files_touched(
    client: Client, method: str, path: str, **headers: str
) -> tuple[HttpResponseBase, bytes, list[tuple[str, str]]]:
    """The response, its whole body, and every file opened or changed meanwhile."""
    global SEEN
    SEEN = []
    try:
        response = client.generic(method, path, headers=headers)
        body = streamed(response) if response.streaming else response.content
        return response, body, SEEN
    finally:
        SEEN = None


# -- what a client can send --------------------------------------------------------------

LATIN_1 = st.characters(max_codepoint=255)  # what a WSGI server hands Django as headers
SECTION = st.one_of(
    st.sampled_from(["articles", "pages", "nope", "..", ".", "%2e%2e", "%2F", "a%2Fb", "%00"]),
    st.sampled_from(["a" * 10_000, "articles/../pages", "ARTICLES", "articles\x00", "sitemap"]),
    st.text(max_size=20),
)
PAGE = st.one_of(
    st.sampled_from(["1", "2", "0", "-1", "01", "1e9", "\u0661", "", "1.0", " 1", "999999999"]),
    st.integers(-10, 10**20).map(str),
    st.text(max_size=6),
)
SUFFIX = st.sampled_from([".xml", ".xml.gz", ".gz", ".xml/", "", ".XML", ".xml.gz.gz", ".tmp"])
QUERY = st.one_of(st.just(""), st.text(LATIN_1, max_size=30).map(lambda q: "?" + quote(q)))


@st.composite
def paths(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["page", "index", "any"]))
    if kind == "index":
        path = "/sitemap" + draw(SUFFIX)
    elif kind == "page":
        # safe="%" keeps the generated escapes (%2e%2e, %2F, %00) for the server to decode.
        section = quote(draw(SECTION), safe="%")
        page = quote(draw(PAGE), safe="%")
        path = f"/sitemap-{section}-{page}{draw(SUFFIX)}"
    else:
        # Anything after the views' common prefix (the test project's other
        # URLs are not under test).
        path = "/sitemap" + quote(draw(st.text(max_size=40)), safe="%/")
    return path + draw(QUERY)


METHOD = st.sampled_from(
    ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"]
)
HEADER_VALUE = st.one_of(
    st.text(LATIN_1, max_size=60),
    st.sampled_from(["*", 'W/"x"', '"x"', "Sat, 02 Mar 2024 10:00:00 GMT", "0", "-1"]),
    st.sampled_from([", ".join(f'"{n:x}"' for n in range(12_000)), "gzip;q=" + "0" * 10_000]),
)
HEADERS = st.dictionaries(
    st.sampled_from(
        [
            "host",
            "x-forwarded-host",
            "x-forwarded-proto",
            "x-forwarded-for",
            "if-none-match",
            "if-modified-since",
            "if-match",
            "if-unmodified-since",
            "range",
            "accept-encoding",
            "script-name",
        ]
    ),
    HEADER_VALUE,
    max_size=4,
)


# -- the served data ---------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """Rows, their built files in ``tmp_path/sitemaps``, and decoys next to that directory
    with the names of sitemap files: none of them may ever be read."""
    for n in range(3):
        ArticleFactory.create(slug=f"a{n}")
    output = tmp_path / "sitemaps"
    call_command("build_sitemaps", output=str(output), verbosity=0)
    for name in ["sitemap.xml", "sitemap-articles-1.xml", "sitemap-articles-1.xml.gz"]:
        (tmp_path / name).write_bytes(b"SECRET")
    (output / ".sitemap-articles-2.xml.dead0000.tmp").write_bytes(b"SECRET")
    return output


def routed(path: str) -> bool:
    """Whether ``path`` reaches one of the sitemap views at all."""
    try:
        match = resolve(unquote(urlsplit(path).path))
    except Resolver404:
        return False
    return match.namespace == "sitemapkit"


def check_response(
    output: Path,
    method: str,
    path: str,
    response: HttpResponseBase,
    body: bytes,
    touched: list[Any],
) -> None:
    status = response.status_code
    assert status in {200, 304, 400, 404, 405, 412}, (status, body[:300])
    assert b"SECRET" not in body
    for what, name in touched:
        assert what == "read", (what, name)
        resolved = Path(os.path.abspath(name))
        # Python's own files (a module imported late, the time zone data)
        # may be read; anything else only in the output directory (the build
        # its link points to).
        in_output = resolved.parent in (output, Path(os.path.realpath(output)))
        assert in_output or any(map(resolved.is_relative_to, PYTHON_FILES)), name
    if not routed(path):
        assert status == 404
        return
    if method not in ("GET", "HEAD"):
        assert status == 405
        assert response["Allow"] == "GET, HEAD"
        return
    if method == "HEAD" or status != 200:
        if method == "HEAD":
            assert body == b""
        return
    check_document(response, body)


def check_document(response: HttpResponseBase, body: bytes) -> None:
    """A 200's body is a schema-valid document, every location on the base URL."""
    if response["Content-Type"] == "application/gzip" or response.get("Content-Encoding"):
        body = gzip.decompress(body)
    if b"<sitemapindex" in body[:200]:
        locs = [loc for loc, _ in parse_index(body)]
    else:
        locs = [url.loc for url in parse_urlset(body)]
    assert locs
    for loc in locs:
        assert urlsplit(loc)[:2] == ("https", "www.example.com"), loc


@pytest.mark.parametrize("serve", ["database", "files", "files-or-database"])
@PROPERTY
@given(method=METHOD, path=paths(), headers=HEADERS)
def test_no_request_gets_a_500_or_leaves_the_directory(
    client: Client, site: Path, serve: str, method: str, path: str, headers: dict[str, str]
) -> None:
    with override_settings(SITEMAPKIT_SERVE=serve, SITEMAPKIT_OUTPUT_DIR=str(site)):
        response, body, touched = files_touched(client, method, path, **headers)
    check_response(site, method, path, response, body, touched)


@pytest.mark.parametrize("serve", ["database", "files"])
@pytest.mark.parametrize(
    "path",
    ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"],
)
def test_hostile_headers_change_nothing_in_the_document(
    client: Client, site: Path, serve: str, path: str
) -> None:
    hostile = {
        "host": "evil.example",
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "http",
        "forwarded": "host=evil.example;proto=http",
        "if-modified-since": "not a date",
        "if-none-match": ", ".join(f'"{n:x}"' for n in range(12_000)),
        "accept-encoding": "identity",
    }
    with override_settings(
        SITEMAPKIT_SERVE=serve,
        SITEMAPKIT_OUTPUT_DIR=str(site),
        # A project behind a proxy trusts these headers for its own URLs;
        # the sitemap still takes its host from SITEMAPKIT_BASE_URL alone.
        USE_X_FORWARDED_HOST=True,
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    ):
        plain = client.get(path, headers={"accept-encoding": "identity"})
        # SCRIPT_NAME comes from the server's environ, not a header.
        attacked = client.get(path, headers=hostile, SCRIPT_NAME="/evil", SERVER_NAME="evil")
        assert attacked.status_code == plain.status_code == 200
        assert streamed_or_content(attacked) == streamed_or_content(plain)


def streamed_or_content(response: HttpResponseBase) -> bytes:
    return streamed(response) if response.streaming else response.content  # type: ignore[attr-defined]
