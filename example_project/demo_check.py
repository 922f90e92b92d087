"""Fetch the running example's sitemaps over HTTP, validate them, and show what a crawler sees.

Usage: ``python demo_check.py SERVER --site NAME=BASE_URL [--site ...]
[--unknown-host HOST] [--server-pid PID] [--summary-file PATH] [--files DIR]``

SERVER is where runserver listens (``http://127.0.0.1:PORT``); each request is
sent there with its site's host in the ``Host`` header (see demo_http.py). For
each site:

1. waits until the server answers, and checks that the site's ``/robots.txt``
   names the site's own index;
2. fetches ``/sitemap.xml`` and validates it against the package's ``siteindex.xsd``;
3. fetches every page the index lists and validates each against ``sitemap.xsd``;
   the index and every page list URLs of the site's own host only;
4. compares the URL counts with the database: the sections the site lists
   (blog/sitemaps.py), and their rows on that site;
5. repeats requests with ``If-None-Match`` / ``If-Modified-Since`` and expects 304;
6. fetches a sitemap page that does not exist and expects a 404 that is not
   Django's debug page (demo.sh runs the server with ``DJANGO_DEBUG=0``);
7. checks contrib's old page URL of the categories: a 301 to the site's own page
   where the site lists them, a 404 where it does not;
8. checks the HTML sitemap for visitors: ``/sitemap.html`` links to each
   section's pages, numbered from 1, whose first and last show the section's
   first and last URLs, as many as its XML pages list;
9. with ``--files DIR``, compares every document served with the file
   ``build_sitemaps`` wrote for it (in ``DIR/<site>/`` when there are several
   sites): they must be the same bytes.

With ``--unknown-host HOST`` (one ``ALLOWED_HOSTS`` accepts but no site has),
its sitemap URLs must answer 404 and its robots.txt must name no sitemap.

Everything it checks is printed; the first failure ends it with exit status 1.
It needs only lxml and the project's own settings (for the database counts).
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import time
import urllib.error
from pathlib import Path

from demo_counts import ALL_SECTIONS, SITE_SECTIONS, check_counts
from demo_documents import Page, check_conditional, check_index, check_page, compare_with_files
from demo_http import (
    CheckFailed,
    Response,
    Site,
    connect_to,
    fetch,
    load_schema,
    site_argument,
    wait_until_up,
)

#: A sitemap URL no section answers (the example has no section "nosuch").
UNKNOWN_PAGE = "/sitemap-nosuch-1.xml"
# Page 1 of the categories at django.contrib.sitemaps' URL, and at this app's.
OLD_PAGE = "/sitemap-categories.xml?p=1"
NEW_PAGE = "/sitemap-categories-1.xml"
#: What only Django's technical 404 page (DEBUG = True) says: its title, and why
#: it is shown.
DEBUG_PAGE_MARKERS = (b"Page not found at", b"DEBUG = True")
#: What the HTML sitemap's links point at, and the locations its pages show.
HREF = re.compile(r'href="([^"]+)"')
SHOWN_LOCATION = re.compile(r'<li><a href="(/[^"]*)">')


def check_not_found(base_url: str) -> None:
    """An unknown sitemap URL is a 404, and not the debug page, which would show
    every URL pattern of the project to whoever asks."""
    response = fetch(base_url + UNKNOWN_PAGE)
    print(f"\n== GET {base_url}{UNKNOWN_PAGE}  ({response.describe()})")
    expect_plain_404(response)


def expect_plain_404(response: Response) -> None:
    if response.status != 404:
        raise CheckFailed(f"GET {response.url} answered {response.status}, expected 404")
    shown = [marker.decode() for marker in DEBUG_PAGE_MARKERS if marker in response.body]
    if shown:
        raise CheckFailed(
            f"GET {response.url} answered Django's debug page (it says {shown[0]!r}): the "
            "server runs with DEBUG = True; demo.sh sets DJANGO_DEBUG=0"
        )
    title = re.search(rb"<title>(.*?)</title>", response.body, re.DOTALL)
    shown_as = title[1].decode(errors="replace").strip() if title else "no title"
    print(f"   not the debug page: {response.header('Content-Type')}, {shown_as!r}")


def check_old_url(site: Site, lists_categories: bool) -> None:
    """A page URL of django.contrib.sitemaps (before the move) answers a permanent
    redirect to the page that now holds its URLs (django_sitemapkit.contrib_redirects),
    on the site's own host; a site that does not list the section answers 404."""
    response = fetch(site.base_url + OLD_PAGE)
    location = response.header("Location")
    print(f"\n== GET {OLD_PAGE}  ({response.status} -> {location})")
    if not lists_categories:
        if response.status != 404:
            raise CheckFailed(f"GET {OLD_PAGE} answered {response.status}, expected 404")
        print(f"   site {site.name!r} lists no categories: 404")
        return
    if response.status != 301 or location != site.base_url + NEW_PAGE:
        raise CheckFailed(
            f"GET {OLD_PAGE} answered {response.status} to {location!r}, expected 301 to "
            f"{site.base_url}{NEW_PAGE}"
        )


def check_robots(site: Site) -> None:
    """The site's robots.txt names its own index, and no other."""
    response = fetch(site.base_url + "/robots.txt")
    lines = [line for line in response.body.decode().splitlines() if line.startswith("Sitemap:")]
    print(f"\n== GET {site.base_url}/robots.txt  ({response.describe()}): {lines}")
    if response.status != 200 or lines != [f"Sitemap: {site.base_url}/sitemap.xml"]:
        raise CheckFailed(f"{response.url} does not name {site.base_url}/sitemap.xml alone")


def check_html(site: Site, pages: list[Page]) -> None:
    """/sitemap.html links to each section's pages for visitors, numbered from 1 (their
    size is SITEMAPKIT_HTML_PAGE_SIZE's, not the XML's); the first and the last of
    each show the section's first and last locations, as many as it lists."""
    response = fetch(site.base_url + "/sitemap.html")
    print(f"\n== GET {site.base_url}/sitemap.html  ({response.describe()})")
    if response.status != 200 or not (response.header("Content-Type") or "").startswith(
        "text/html"
    ):
        raise CheckFailed(f"{response.url} answered {response.status}, not an HTML page")
    links = HREF.findall(response.body.decode())
    listed: dict[str, list[str]] = {}
    for page in pages:
        listed.setdefault(page.section, []).extend(page.locs)
    for section, locs in listed.items():
        numbers = [
            int(found)
            for found in re.findall(
                rf"^/sitemap-{section}-(\d+)\.html$", "\n".join(links), re.MULTILINE
            )
        ]
        if not numbers or numbers != list(range(1, len(numbers) + 1)):
            raise CheckFailed(f"{response.url} links to pages {numbers} of {section!r}")
        first = shown_locations(site, section, 1)
        last = first if len(numbers) == 1 else shown_locations(site, section, len(numbers))
        if (
            first != locs[: len(first)]
            or last != locs[len(locs) - len(last) :]
            or (len(numbers) - 1) * len(first) + len(last) != len(locs)
        ):
            raise CheckFailed(f"the HTML pages of {section!r} do not show its {len(locs)} URLs")
        print(f"   {section}: {len(numbers)} pages for visitors show its {len(locs):,} URLs")


def shown_locations(site: Site, section: str, number: int) -> list[str]:
    """The locations a page for visitors links to, on the site's base URL."""
    shown_page = fetch(f"{site.base_url}/sitemap-{section}-{number}.html")
    if shown_page.status != 200:
        raise CheckFailed(f"{shown_page.url} answered {shown_page.status}")
    found = SHOWN_LOCATION.findall(shown_page.body.decode())
    return [site.base_url + html.unescape(path) for path in found]


def check_unknown_host(host: str) -> str:
    """A host ALLOWED_HOSTS accepts but no site has: no sitemap, a 404 for each URL."""
    base_url = f"http://{host}"
    print(f"\n== Host {host}: accepted by ALLOWED_HOSTS, no site's")
    for path in ("/sitemap.xml", "/sitemap-posts-1.xml", "/sitemap.html"):
        response = fetch(base_url + path)
        print(f"   GET {path}  ({response.describe()})")
        expect_plain_404(response)
    robots = fetch(base_url + "/robots.txt")
    print(f"   GET /robots.txt  ({robots.describe()})")
    if robots.status != 200 or b"Sitemap:" in robots.body:
        raise CheckFailed(f"{robots.url} names a sitemap, or is no 200: {robots.body!r}")
    return f"host {host} (no site's): 404s, a robots.txt without a Sitemap line"


def check_site(site: Site, args: argparse.Namespace, several: bool) -> str:
    print(f"\n#### Site {site.name!r}: {site.base_url}")
    wait_until_up(site.base_url, args.server_pid, args.wait)
    check_robots(site)
    index, locs = check_index(site.base_url, load_schema("siteindex.xsd"))
    urlset_schema = load_schema("sitemap.xsd")
    pages = [
        check_page(loc, site.base_url, urlset_schema, show_entries=(i == 0))
        for i, loc in enumerate(locs)
    ]
    total = check_counts(pages, args.page_size, site.name)
    check_conditional(index, pages[0])
    check_not_found(site.base_url)
    check_old_url(site, "categories" in SITE_SECTIONS.get(site.name, ALL_SECTIONS))
    check_html(site, pages)
    if args.files is not None:
        responses = [index] + [page.answer for page in pages]
        compare_with_files(responses, site.files(args.files, several))
    return f"{site.name}: {len(pages) + 1} documents, {total:,} URLs on {site.host}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", help="where runserver listens, such as http://127.0.0.1:8000")
    parser.add_argument(
        "--site",
        type=site_argument,
        action="append",
        required=True,
        metavar="NAME=BASE_URL",
        help="a site to check (repeat for each)",
    )
    parser.add_argument("--unknown-host", metavar="HOST[:PORT]", help="a host no site has")
    parser.add_argument("--server-pid", type=int, help="fail fast if this process exits")
    parser.add_argument("--wait", type=float, default=30, help="seconds to wait for the server")
    parser.add_argument("--page-size", type=int, default=50_000, help="URLs in a full page")
    parser.add_argument("--summary-file", type=Path, help="write a one-line summary here")
    parser.add_argument(
        "--files", type=Path, metavar="DIR", help="compare each document with the built file"
    )
    args = parser.parse_args(argv)
    connect_to(args.server)
    started = time.perf_counter()
    several = len(args.site) > 1
    try:
        done = [check_site(site, args, several) for site in args.site]
        if args.unknown_host:
            done.append(check_unknown_host(args.unknown_host))
    except CheckFailed as exc:
        print(f"\nFAILED: {exc}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as exc:
        print(f"\nFAILED: the server stopped answering: {exc}", file=sys.stderr)
        return 1
    summary = (
        f"{'; '.join(done)}; every document valid and on its own host, robots.txt and the "
        "HTML sitemap of each site name its own, counts match the database, conditional GET "
        "answers 304, an unknown page is a 404 without the debug page, contrib's old page "
        "URL is a 301 where the site lists the section (a 404 elsewhere)"
        f"{'; the same bytes as the built files' if args.files is not None else ''}; "
        f"HTTP checks took {time.perf_counter() - started:.1f} s"
    )
    print(f"\nAll checks passed: {summary}.")
    if args.summary_file is not None:
        args.summary_file.write_text(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
