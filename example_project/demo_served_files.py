"""The ``served`` check of demo_files_check.py: with the server running
``SITEMAPKIT_SERVE=files``, every document of a site, fetched plain, gzipped and as
``.xml.gz``, is the bytes of its built file; a conditional GET answers 304 and a
page that was not built is a 404."""

from __future__ import annotations

import argparse
from pathlib import Path

from lxml import etree

from demo_built_files import GZ, INDEX, SITEMAP_FILE
from demo_counts import section_of
from demo_http import NS, CheckFailed, Response, Site, connect_to, fetch, wait_until_up


def served(args: argparse.Namespace) -> str:
    connect_to(args.server)
    several = len(args.site) > 1
    done = [
        served_site(site, site.files(args.directory, several), args.server_pid, args.wait)
        for site in args.site
    ]
    return "; ".join(done)


def served_site(site: Site, directory: Path, server_pid: int | None, wait: float) -> str:
    base_url = site.base_url
    wait_until_up(base_url, server_pid, wait)
    # The pages in the index's order (``built`` checked they are the files on disk).
    index = etree.fromstring((directory / INDEX).read_bytes())
    locs = [str(loc).strip() for loc in index.xpath("sm:sitemap/sm:loc/text()", namespaces=NS)]
    names = [INDEX] + [loc.rsplit("/", 1)[-1].removesuffix(GZ) for loc in locs]
    print(f"\n== {base_url} served with SITEMAPKIT_SERVE=files vs. the files in {directory}")
    fetches = 0
    for name in names:
        xml = (directory / name).read_bytes()
        compressed = (directory / (name + GZ)).read_bytes()
        plain = expect_file(base_url, name, {"Accept-Encoding": "identity"}, xml, "application/xml")
        zipped = expect_file(
            base_url, name, {"Accept-Encoding": "gzip"}, compressed, "application/xml", "gzip"
        )
        expect_file(
            base_url, name + GZ, {"Accept-Encoding": "identity"}, compressed, "application/gzip"
        )
        fetches += 3
        if plain.header("ETag") == zipped.header("ETag"):
            raise CheckFailed(f"{name}: the plain and the gzip answers share an ETag")
    page = names[1] if len(names) > 1 else INDEX
    first = fetch(f"{base_url}/{page}", {"Accept-Encoding": "gzip"})
    etag = first.header("ETag") or ""
    again = fetch(f"{base_url}/{page}", {"Accept-Encoding": "gzip", "If-None-Match": etag})
    print(f"   {page} with If-None-Match: {etag}\n      -> {again.describe()}")
    if again.status != 304 or again.body:
        raise CheckFailed(f"expected an empty 304, got {again.status}")
    unbuilt = unbuilt_page(names)
    missing = fetch(f"{base_url}/{unbuilt}")
    print(f"   {unbuilt} (not built) -> {missing.describe()}")
    if missing.status != 404:
        raise CheckFailed(f"GET /{unbuilt} answered {missing.status}, expected 404")
    return (
        f"{site.name}: file mode serves the built bytes ({fetches} GETs of {len(names)} documents: "
        "plain, Content-Encoding: gzip and .xml.gz), 304 on If-None-Match, 404 for a page not built"
    )


def expect_file(
    base_url: str,
    name: str,
    headers: dict[str, str],
    expected: bytes,
    content_type: str,
    coding: str | None = None,
) -> Response:
    response = fetch(f"{base_url}/{name}", headers)
    [(header, value)] = headers.items()
    got_coding = response.header("Content-Encoding")
    same = response.body == expected
    print(
        f"   {name:<30} {header}: {value:<8} -> {response.status}, {len(response.body):>10,} "
        f"bytes, {response.header('Content-Type')}"
        f"{', Content-Encoding: ' + got_coding if got_coding else ''}, "
        f"ETag {response.header('ETag')}: {'the file' if same else 'NOT the file'}"
    )
    if response.status != 200:
        raise CheckFailed(f"GET /{name} answered {response.status}, expected 200")
    if coding is not None and got_coding != coding:
        raise CheckFailed(
            f"GET /{name} with {header}: {value} came without Content-Encoding: {coding}, so "
            "the server is not serving the built files. Does this django_sitemapkit serve "
            "them (grep -n SERVE django_sitemapkit/views.py), and was it started with "
            "SITEMAPKIT_SERVE=files?"
        )
    if coding is None and got_coding:
        raise CheckFailed(f"GET /{name} with {header}: {value} came with Content-Encoding")
    if not (response.header("Content-Type") or "").startswith(content_type):
        raise CheckFailed(f"GET /{name}: Content-Type is not {content_type}")
    if not same:
        which = "the .gz file" if name.endswith(GZ) or coding else "the .xml file"
        raise CheckFailed(f"GET /{name} with {header}: {value}: the body is not {which}'s bytes")
    if response.header("Content-Length") != str(len(expected)):
        raise CheckFailed(f"GET /{name}: Content-Length is not the file's size")
    if not name.endswith(GZ) and "accept-encoding" not in (response.header("Vary") or "").lower():
        # A cache must keep the two answers of one URL apart (RFC 9110 section 12.5.5).
        raise CheckFailed(f"GET /{name}: no Vary: Accept-Encoding, though it has two answers")
    return response


def unbuilt_page(names: list[str]) -> str:
    """The page after the last one built of the first section listed."""
    section = section_of(names[1]) if len(names) > 1 else "posts"
    numbers = [
        int(match["page"])
        for name in names
        if (match := SITEMAP_FILE.match(name)) and match["section"] == section
    ]
    return f"sitemap-{section}-{max(numbers, default=0) + 1}.xml"
