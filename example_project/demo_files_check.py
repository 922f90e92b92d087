"""Check the files ``manage.py build_sitemaps`` wrote, and the views serving them.

Usage::

    python demo_files_check.py built DIR --site NAME=BASE_URL [--site ...] [--summary-file PATH]
    python demo_files_check.py snapshot DIR [--bytes-only]
    python demo_files_check.py served SERVER DIR --site NAME=BASE_URL [--site ...]
        [--server-pid PID] [--summary-file PATH]

DIR is ``SITEMAPKIT_OUTPUT_DIR``. With several sites each has its files in a
directory of its own, ``DIR/<site name>/``; with one site they are in DIR.

``built``
    for each site: every ``.xml`` in its directory is valid against the package's schemas (the index
    against ``siteindex.xsd``, the pages against ``sitemap.xsd``); every ``.xml``
    has a ``.xml.gz`` sibling that decompresses to its exact bytes (and has no
    time stamp or file name in its header, so it is deterministic); the index
    names exactly the page files on disk, each with the newest ``lastmod`` of
    that page; every location is on the site's own host; the URL counts match
    the database; no staged file is left over.
``snapshot``
    one line per sitemap file in DIR and its site directories: SHA-256, size,
    modification time (not with ``--bytes-only``) and path, for ``diff`` to
    compare two builds.
``served``
    with the server at SERVER running ``SITEMAPKIT_SERVE=files``: for each site
    (its host in the ``Host`` header), ``/sitemap.xml`` and every page, fetched
    without and with ``Accept-Encoding: gzip`` and as ``.xml.gz``, are
    the bytes of the site's files (the ``.gz`` file's bytes, with
    ``Content-Encoding: gzip``, when gzip is accepted); a conditional GET answers
    304; a page that was not built is a 404.

Everything checked is printed; the first failure ends it with exit status 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import re
import sys
import time
import urllib.error
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from demo_check import Listing, check_counts, section_of
from demo_http import (
    NS,
    CheckFailed,
    Response,
    Site,
    connect_to,
    fetch,
    load_schema,
    site_argument,
    wait_until_up,
)

INDEX = "sitemap.xml"
GZ = ".gz"
SITEMAP_FILE = re.compile(r"\Asitemap(?:-(?P<section>.+)-(?P<page>[1-9][0-9]*))?\.xml(?:\.gz)?\Z")
# What build_sitemaps stages before it publishes (dot-named, ".tmp" at the end).
STAGED_FILE = re.compile(r"\A\.sitemap.*\.tmp\Z")
LOCK_FILE = ".sitemapkit.lock"
UTC = dt.timezone.utc


@dataclass
class BuiltPage(Listing):
    size: int = 0
    gzip_size: int = 0
    newest: dt.datetime | None = None


def sitemap_files(directory: Path) -> list[Path]:
    """The files a build writes, sorted by name."""
    if not directory.is_dir():
        raise CheckFailed(f"{directory} is not a directory: run manage.py build_sitemaps first")
    return sorted(p for p in directory.iterdir() if SITEMAP_FILE.match(p.name) and p.is_file())


def parse_valid_file(path: Path, schema: etree.XMLSchema, schema_name: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(path.read_bytes(), parser)
    except etree.XMLSyntaxError as exc:
        raise CheckFailed(f"{path.name} is not well-formed XML: {exc}") from exc
    if not schema.validate(root):
        errors = "\n".join(f"  line {e.line}: {e.message}" for e in list(schema.error_log)[:10])
        raise CheckFailed(f"{path.name} is not valid against {schema_name}:\n{errors}")
    return root


def w3c_datetime(value: str) -> dt.datetime:
    """A ``lastmod`` as an aware datetime (a plain date is taken as midnight UTC)."""
    parsed = dt.datetime.fromisoformat(value.strip())
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def check_gzip_sibling(xml: Path) -> int:
    """The ``.gz`` next to ``xml`` holds exactly its bytes; return the ``.gz`` size."""
    sibling = xml.with_name(xml.name + GZ)
    if not sibling.is_file():
        raise CheckFailed(f"{xml.name} has no {sibling.name}")
    compressed = sibling.read_bytes()
    # RFC 1952: ID1 ID2 CM FLG MTIME(4) XFL OS. FLG 0: no FNAME, FCOMMENT, FEXTRA.
    if compressed[:3] != b"\x1f\x8b\x08" or compressed[3] != 0 or compressed[4:8] != bytes(4):
        raise CheckFailed(f"{sibling.name} has a time stamp or a file name in its gzip header")
    try:
        decompressed = gzip.decompress(compressed)
    except (OSError, EOFError) as exc:
        raise CheckFailed(f"{sibling.name} does not decompress: {exc}") from exc
    if decompressed != xml.read_bytes():
        raise CheckFailed(f"{sibling.name} does not decompress to the bytes of {xml.name}")
    return len(compressed)


def check_directory(directory: Path) -> list[Path]:
    names = [p.name for p in directory.iterdir()]
    staged = [name for name in names if STAGED_FILE.match(name)]
    if staged:
        raise CheckFailed(f"staged files were left in {directory}: {staged[:5]}")
    files = sitemap_files(directory)
    others = sorted(set(names) - {p.name for p in files} - {LOCK_FILE})
    print(f"== {directory}: {len(files)} sitemap files, no staged file left over")
    if others:
        print(f"   (other files, which the build leaves alone: {', '.join(others)})")
    orphans = [p.name for p in files if p.name.endswith(GZ) and not p.with_suffix("").is_file()]
    if orphans:
        raise CheckFailed(f"gzip files without their .xml: {orphans}")
    return [p for p in files if not p.name.endswith(GZ)]


def check_page_file(path: Path, schema: etree.XMLSchema, base_url: str) -> BuiltPage:
    root = parse_valid_file(path, schema, "sitemap.xsd")
    locs = [str(loc).strip() for loc in root.xpath("sm:url/sm:loc/text()", namespaces=NS)]
    outside = [loc for loc in locs if not loc.startswith(base_url + "/")]
    if outside:
        raise CheckFailed(f"{path} lists {len(outside):,} URLs not on {base_url}: {outside[:3]}")
    lastmods = [w3c_datetime(str(v)) for v in root.xpath("sm:url/sm:lastmod/text()", namespaces=NS)]
    return BuiltPage(
        name=path.name,
        section=section_of(path.name),
        urls=len(locs),
        locs=locs,
        size=path.stat().st_size,
        gzip_size=check_gzip_sibling(path),
        newest=max(lastmods, default=None),
    )


def check_index_names(index: Path, base_url: str, pages: list[BuiltPage]) -> int:
    """The index lists each page file once, and nothing else, with its newest ``lastmod``."""
    root = parse_valid_file(index, load_schema("siteindex.xsd"), "siteindex.xsd")
    index_gzip = check_gzip_sibling(index)
    print(f"   {index.name:<28} valid against siteindex.xsd; {index.name}{GZ} decompresses to it")
    by_name = {page.name: page for page in pages}
    listed: list[str] = []
    for item in root.iterfind("sm:sitemap", NS):
        loc = (item.findtext("sm:loc", "", NS) or "").strip()
        name = loc.removeprefix(base_url + "/")
        if name == loc or "/" in name:
            raise CheckFailed(f"the index lists {loc!r}, which is not a file at {base_url}/")
        # With --gzip-links the index names the .xml.gz files instead.
        name = name.removesuffix(GZ)
        if name not in by_name:
            raise CheckFailed(f"the index lists {name}, which is not in {index.parent}")
        listed.append(name)
        lastmod = item.findtext("sm:lastmod", None, NS)
        newest = by_name[name].newest
        if (lastmod is None) != (newest is None) or (
            lastmod is not None and w3c_datetime(lastmod) != newest
        ):
            raise CheckFailed(
                f"the index gives {name} lastmod {lastmod}, but its newest <lastmod> is {newest}"
            )
    if len(set(listed)) != len(listed):
        raise CheckFailed("the index lists some file twice")
    missing = sorted(set(by_name) - set(listed))
    if missing:
        raise CheckFailed(f"page files on disk that the index does not list: {missing}")
    print(
        f"   the index lists exactly the {len(listed)} page files on disk, each with the "
        "newest <lastmod> of that file"
    )
    return index_gzip


def built(args: argparse.Namespace) -> str:
    several = len(args.site) > 1
    if several:
        print(f"== {args.directory}: one directory per site")
        for path in sorted(args.directory.iterdir()):
            if path.name not in {site.name for site in args.site}:
                print(f"   (also {path.name}, which the build leaves alone)")
    done = [built_site(site, args.directory, several, args.page_size) for site in args.site]
    return "; ".join(done)


def built_site(site: Site, output_dir: Path, several: bool, page_size: int) -> str:
    print(f"\n#### Site {site.name!r}: {site.base_url}")
    directory = site.files(output_dir, several)
    base_url = site.base_url
    xml_files = check_directory(directory)
    index = directory / INDEX
    if index not in xml_files:
        raise CheckFailed(f"there is no {INDEX} in {directory}")
    schema = load_schema("sitemap.xsd")
    pages = [check_page_file(path, schema, base_url) for path in xml_files if path != index]
    print(f"\n   {'file':<28} {'URLs':>8} {'bytes':>12} {'.gz bytes':>10}  ratio")
    for page in pages:
        ratio = page.size / page.gzip_size
        sizes = f"{page.size:>12,} {page.gzip_size:>10,}"
        print(f"   {page.name:<28} {page.urls:>8,} {sizes}  {ratio:4.1f}x")
    size = sum(p.size for p in pages) + index.stat().st_size
    print(
        "\n   every page is valid against sitemap.xsd and lists URLs on "
        f"{base_url} only;\n   every .xml.gz decompresses to its .xml and has no time "
        "stamp or file name in its gzip header"
    )
    index_gzip = check_index_names(index, base_url, pages)
    gzip_size = sum(p.gzip_size for p in pages) + index_gzip
    print(f"   all {len(xml_files)} documents: {size:,} bytes, {gzip_size:,} bytes gzipped")
    total = check_counts(pages, page_size, site.name)
    return (
        f"{site.name}: {len(xml_files)} documents valid, each .gz identical once decompressed, "
        f"the index names exactly the {len(pages)} pages on disk, {total:,} URLs as in the "
        f"database ({size:,} bytes, {gzip_size:,} gzipped)"
    )


def snapshot(args: argparse.Namespace) -> None:
    directories = [args.directory, *sorted(p for p in args.directory.iterdir() if p.is_dir())]
    for directory in directories:
        for path in sitemap_files(directory):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            status = path.stat()
            mtime = "" if args.bytes_only else f"  mtime_ns={status.st_mtime_ns}"
            print(f"{digest}  {status.st_size:>10}{mtime}  {path.relative_to(args.directory)}")


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check_built = commands.add_parser("built", help="check the files on disk")
    check_built.add_argument("directory", type=Path)
    check_built.add_argument(
        "--site", type=site_argument, action="append", required=True, metavar="NAME=BASE_URL"
    )
    check_built.add_argument("--page-size", type=int, default=50_000)
    check_built.add_argument("--summary-file", type=Path)
    take = commands.add_parser("snapshot", help="print a line per file, for diff")
    take.add_argument("directory", type=Path)
    take.add_argument("--bytes-only", action="store_true", help="leave modification times out")
    check_served = commands.add_parser("served", help="compare SITEMAPKIT_SERVE=files answers")
    check_served.add_argument("server", help="where runserver listens: http://127.0.0.1:PORT")
    check_served.add_argument("directory", type=Path)
    check_served.add_argument(
        "--site", type=site_argument, action="append", required=True, metavar="NAME=BASE_URL"
    )
    check_served.add_argument("--server-pid", type=int)
    check_served.add_argument("--wait", type=float, default=30)
    check_served.add_argument("--summary-file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "snapshot":
        snapshot(args)
        return 0
    started = time.perf_counter()
    try:
        summary = built(args) if args.command == "built" else served(args)
    except CheckFailed as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"\nFAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    summary += f"; checks took {time.perf_counter() - started:.1f} s"
    print(f"\nAll checks passed: {summary}.")
    if args.summary_file is not None:
        args.summary_file.write_text(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
