"""Fetch the running example's sitemaps over HTTP, validate them, and show what a crawler sees.

Usage: ``python demo_check.py BASE_URL [--server-pid PID] [--summary-file PATH] [--files DIR]``

1. waits until the server at BASE_URL answers;
2. fetches ``/sitemap.xml`` and validates it against the package's ``siteindex.xsd``;
3. fetches every page the index lists and validates each against ``sitemap.xsd``;
4. compares the URL counts with the database (published posts, categories, static pages);
5. repeats requests with ``If-None-Match`` / ``If-Modified-Since`` and expects 304;
6. fetches a sitemap page that does not exist and expects a 404 that is not
   Django's debug page (demo.sh runs the server with ``DJANGO_DEBUG=0``);
7. with ``--files DIR``, compares every document served with the file
   ``build_sitemaps`` wrote to DIR for it: they must be the same bytes.

Everything it checks is printed; the first failure ends it with exit status 1.
It needs only lxml and the project's own settings (for the database counts).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from email.message import Message
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any

from lxml import etree

HERE = Path(__file__).resolve().parent
NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
NS = {"sm": NAMESPACE}
SHOWN_HEADERS = ("Content-Type", "Last-Modified", "ETag")
FIRST_ENTRIES = 3
USER_AGENT = "django-sitemapkit-demo/1.0"
#: A sitemap URL no section answers (the example has no section "nosuch").
UNKNOWN_PAGE = "/sitemap-nosuch-1.xml"
# Page 1 of the categories at django.contrib.sitemaps' URL, and at this app's.
OLD_PAGE = "/sitemap-categories.xml?p=1"
NEW_PAGE = "/sitemap-categories-1.xml"
#: What only Django's technical 404 page (DEBUG = True) says: its title, and why
#: it is shown.
DEBUG_PAGE_MARKERS = (b"Page not found at", b"DEBUG = True")


class CheckFailed(Exception):
    """A check did not pass; the message says which and what was seen."""


@dataclass
class Response:
    url: str
    status: int
    headers: Message
    body: bytes
    seconds: float

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def describe(self) -> str:
        status = f"{self.status} {reason(self.status)}"
        return f"{status}, {len(self.body):,} bytes, {self.seconds:.2f} s"


@dataclass
class Listing:
    """One sitemap page: its file name, section and the URLs it lists."""

    name: str
    section: str
    urls: int
    locs: list[str] = field(default_factory=list)


@dataclass
class Page(Listing):
    """A page listed by the index, once fetched over HTTP and validated."""

    response: Response | None = None

    @property
    def answer(self) -> Response:
        assert self.response is not None
        return self.response


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def fetch(url: str, headers: dict[str, str] | None = None, timeout: float = 60) -> Response:
    """GET ``url``; any HTTP status is returned, not raised (a 304 is an answer too)."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body = answer.read()
            return Response(url, answer.status, answer.headers, body, time.perf_counter() - started)
    except urllib.error.HTTPError as error:
        body = error.read()
        return Response(url, error.code, error.headers, body, time.perf_counter() - started)


def wait_until_up(base_url: str, server_pid: int | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last_error = ""
    while time.monotonic() < deadline:
        if server_pid is not None and not process_alive(server_pid):
            raise CheckFailed(f"the server process {server_pid} exited before answering")
        try:
            response = fetch(base_url + "/robots.txt", timeout=2)
        except (urllib.error.URLError, OSError) as exc:
            last_error = str(exc)
            time.sleep(0.2)
            continue
        if response.status != 200:
            raise CheckFailed(f"GET /robots.txt answered {response.status}, expected 200")
        print(f"Server is up at {base_url} (answered /robots.txt).")
        return
    raise CheckFailed(f"no answer from {base_url} within {timeout:.0f} s ({last_error})")


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def load_schema(filename: str) -> etree.XMLSchema:
    """One of the XML schemas that ship inside the django_sitemapkit package."""
    schema_file = resources.files("django_sitemapkit") / "schemas" / filename
    with resources.as_file(schema_file) as path:
        return etree.XMLSchema(etree.parse(str(path)))


def parse_valid(response: Response, schema: etree.XMLSchema, schema_name: str) -> etree._Element:
    """The document's root element, once it is well-formed and valid against the schema."""
    if response.status != 200:
        raise CheckFailed(
            f"GET {response.url} answered {response.status}, expected 200:\n"
            f"{response.body[:2000].decode(errors='replace')}"
        )
    content_type = response.header("Content-Type") or ""
    if not content_type.startswith("application/xml"):
        raise CheckFailed(f"GET {response.url} has Content-Type {content_type!r}, not XML")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
    try:
        root = etree.fromstring(response.body, parser)
    except etree.XMLSyntaxError as exc:
        raise CheckFailed(f"{response.url} is not well-formed XML: {exc}") from exc
    if not schema.validate(root):
        errors = "\n".join(f"  line {e.line}: {e.message}" for e in list(schema.error_log)[:10])
        raise CheckFailed(f"{response.url} is not valid against {schema_name}:\n{errors}")
    return root


def print_response(response: Response, note: str = "") -> None:
    path = response.url.split("://", 1)[-1].partition("/")[2]
    print(f"\n== GET /{path}  ({response.describe()}){note}")
    for name in SHOWN_HEADERS:
        print(f"   {name}: {response.header(name)}")


def without_namespace(element: etree._Element) -> str:
    text: str = etree.tostring(element, encoding="unicode", with_tail=False)
    return text.replace(f' xmlns="{NAMESPACE}"', "")


def check_index(base_url: str, schema: etree.XMLSchema) -> tuple[Response, list[str]]:
    response = fetch(base_url + "/sitemap.xml")
    root = parse_valid(response, schema, "siteindex.xsd")
    print_response(response, "  valid against siteindex.xsd")
    if not response.header("ETag") or not response.header("Last-Modified"):
        raise CheckFailed("the index has no ETag or no Last-Modified header")
    print()
    print(response.body.decode().rstrip())
    locs = [str(loc).strip() for loc in root.xpath("sm:sitemap/sm:loc/text()", namespaces=NS)]
    if not locs:
        raise CheckFailed("the index lists no sitemap page")
    for loc in locs:
        if not loc.startswith(base_url + "/"):
            raise CheckFailed(f"the index lists {loc!r}, which is not on {base_url}")
    return response, locs


def check_page(loc: str, base_url: str, schema: etree.XMLSchema, show_entries: bool) -> Page:
    response = fetch(loc)
    root = parse_valid(response, schema, "sitemap.xsd")
    urls = root.findall("sm:url", NS)
    name = loc.rsplit("/", 1)[-1]
    section = section_of(name)
    print_response(response, f"  {len(urls):,} URLs, valid against sitemap.xsd")
    locs = [str(url.findtext("sm:loc", namespaces=NS)).strip() for url in urls]
    outside = [url for url in locs if not url.startswith(base_url + "/")]
    if outside:
        raise CheckFailed(f"{name} lists {len(outside):,} URLs not on {base_url}: {outside[:3]}")
    if show_entries:
        print(f"   first {FIRST_ENTRIES} <url> entries:")
        for url in urls[:FIRST_ENTRIES]:
            print(f"   {without_namespace(url)}")
    return Page(name, section, len(urls), locs, response)


def database_counts() -> dict[str, int]:
    """What each section should list, counted straight from the database."""
    sys.path.insert(0, str(HERE))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")
    import django

    django.setup()
    from blog.models import Category, Post
    from blog.sitemaps import PageSource

    return {
        "posts": Post.objects.filter(published=True).count(),
        "categories": Category.objects.count(),
        "pages": len(PageSource.urls),
    }


def section_of(name: str) -> str:
    """``sitemap-posts-2.xml`` -> ``posts``."""
    return name.removeprefix("sitemap-").rsplit("-", 1)[0]


def check_counts(pages: Sequence[Listing], page_size: int) -> int:
    print("\n== URL counts per page")
    for page in pages:
        print(f"   {page.name:<32} {page.urls:>8,}")
    total = sum(page.urls for page in pages)
    print(f"   {'total':<32} {total:>8,}")
    expected = database_counts()
    for section, count in expected.items():
        section_pages = [page for page in pages if page.section == section]
        listed = sum(page.urls for page in section_pages)
        verdict = "ok" if listed == count else "MISMATCH"
        print(f"   {section}: {listed:,} URLs listed, {count:,} in the database: {verdict}")
        if listed != count:
            raise CheckFailed(f"section {section!r} lists {listed:,} URLs, expected {count:,}")
        if any(page.urls != page_size for page in section_pages[:-1]):
            raise CheckFailed(f"a page of {section!r} other than the last is not full")
    every_loc = [loc for page in pages for loc in page.locs]
    if len(set(every_loc)) != len(every_loc):
        raise CheckFailed("some URL is listed twice")
    print("   every URL is listed once")
    return total


def check_conditional(index: Response, page: Page) -> None:
    print("\n== Conditional GET")
    etag = page.answer.header("ETag")
    last_modified = page.answer.header("Last-Modified")
    if not etag or not last_modified:
        raise CheckFailed(f"{page.name} has no ETag or no Last-Modified header")
    cases = [
        (page.answer.url, {"If-None-Match": etag}, 304),
        (page.answer.url, {"If-Modified-Since": last_modified}, 304),
        (index.url, {"If-None-Match": index.header("ETag") or ""}, 304),
        (index.url, {"If-None-Match": 'W/"not-the-current-etag"'}, 200),
    ]
    for url, headers, expected in cases:
        response = fetch(url, headers)
        name = url.rsplit("/", 1)[-1]
        [(header, value)] = headers.items()
        print(f"   {name} with {header}: {value}\n      -> {response.describe()}")
        if response.status != expected:
            raise CheckFailed(f"expected {expected}, got {response.status}")
        if expected == 304 and response.body:
            raise CheckFailed("a 304 answer carried a body")


def check_not_found(base_url: str) -> None:
    """An unknown sitemap URL is a 404, and not the debug page, which would show
    every URL pattern of the project to whoever asks."""
    response = fetch(base_url + UNKNOWN_PAGE)
    print(f"\n== GET {UNKNOWN_PAGE}  ({response.describe()})")
    if response.status != 404:
        raise CheckFailed(f"GET {UNKNOWN_PAGE} answered {response.status}, expected 404")
    shown = [marker.decode() for marker in DEBUG_PAGE_MARKERS if marker in response.body]
    if shown:
        raise CheckFailed(
            f"GET {UNKNOWN_PAGE} answered Django's debug page (it says {shown[0]!r}): the "
            "server runs with DEBUG = True; demo.sh sets DJANGO_DEBUG=0"
        )
    title = re.search(rb"<title>(.*?)</title>", response.body, re.DOTALL)
    shown_as = title[1].decode(errors="replace").strip() if title else "no title"
    print(f"   not the debug page: {response.header('Content-Type')}, {shown_as!r}")


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def check_old_url(base_url: str) -> None:
    """A page URL of django.contrib.sitemaps (before the move) answers a permanent
    redirect to the page that now holds its URLs (django_sitemapkit.contrib_redirects)."""
    opener = urllib.request.build_opener(NoRedirects)
    request = urllib.request.Request(base_url + OLD_PAGE, headers={"User-Agent": USER_AGENT})
    try:
        with opener.open(request, timeout=60) as answer:
            status, location = answer.status, answer.headers.get("Location")
    except urllib.error.HTTPError as error:
        status, location = error.code, error.headers.get("Location")
    print(f"\n== GET {OLD_PAGE}  ({status} -> {location})")
    if status != 301 or not (location or "").endswith(NEW_PAGE):
        raise CheckFailed(
            f"GET {OLD_PAGE} answered {status} to {location!r}, expected 301 to {NEW_PAGE}"
        )


def compare_with_files(responses: list[Response], directory: Path) -> None:
    """Each document the database views served is byte for byte the built file."""
    print(f"\n== Served from the database vs. the files build_sitemaps wrote to {directory}")
    for response in responses:
        name = response.url.rsplit("/", 1)[-1]
        path = directory / name
        if not path.is_file():
            raise CheckFailed(f"{path} does not exist: run manage.py build_sitemaps first")
        built = path.read_bytes()
        verdict = "same bytes" if built == response.body else "DIFFERENT"
        print(
            f"   {name:<32} {len(response.body):>12,} bytes served, {len(built):>12,} in the file: "
            f"{verdict}"
        )
        if built != response.body:
            raise CheckFailed(f"GET /{name} and {path} differ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_url", help="where the server runs, such as http://127.0.0.1:8000")
    parser.add_argument("--server-pid", type=int, help="fail fast if this process exits")
    parser.add_argument("--wait", type=float, default=30, help="seconds to wait for the server")
    parser.add_argument("--page-size", type=int, default=50_000, help="URLs in a full page")
    parser.add_argument("--summary-file", type=Path, help="write a one-line summary here")
    parser.add_argument(
        "--files", type=Path, metavar="DIR", help="compare each document with the file in DIR"
    )
    args = parser.parse_args(argv)
    base_url = args.base_url.rstrip("/")
    started = time.perf_counter()
    try:
        wait_until_up(base_url, args.server_pid, args.wait)
        index, locs = check_index(base_url, load_schema("siteindex.xsd"))
        urlset_schema = load_schema("sitemap.xsd")
        pages = [
            check_page(loc, base_url, urlset_schema, show_entries=(i == 0))
            for i, loc in enumerate(locs)
        ]
        total = check_counts(pages, args.page_size)
        check_conditional(index, pages[0])
        check_not_found(base_url)
        check_old_url(base_url)
        if args.files is not None:
            compare_with_files([index] + [page.answer for page in pages], args.files)
    except CheckFailed as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"\nFAILED: the server stopped answering: {exc}", file=sys.stderr)
        return 1
    summary = (
        f"{len(pages) + 1} sitemap documents valid ({total:,} URLs in {len(pages)} pages), "
        f"counts match the database, conditional GET answers 304, an unknown page is a 404 "
        f"without the debug page, contrib's old page URL is a 301"
        f"{'; the same bytes as the built files' if args.files is not None else ''}; "
        f"HTTP checks took {time.perf_counter() - started:.1f} s"
    )
    print(f"\nAll checks passed: {summary}.")
    if args.summary_file is not None:
        args.summary_file.write_text(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
