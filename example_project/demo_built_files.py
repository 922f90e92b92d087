"""The ``built`` and ``snapshot`` checks of demo_files_check.py: the files
``manage.py build_sitemaps`` wrote, read from disk (valid, gzip siblings identical,
the index naming exactly the pages, the URL counts as in the database), and one
line per file for ``diff`` to compare two builds."""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from demo_counts import Listing, check_counts, section_of
from demo_http import NS, CheckFailed, Site, load_schema

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
