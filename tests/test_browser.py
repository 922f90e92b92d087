"""The HTML sitemap in a real browser: the example project served by runserver,
each page loaded by Debian's headless Chromium and its DOM read back.

The example blog runs in its own process with its own settings (not this
suite's), on a fresh SQLite file seeded with a few posts by its own commands.
The DOM Chromium builds must carry exactly the links of the XML documents the
same server sends, and reference nothing outside the page.

A last test follows every link of the HTML sitemap in Chromium, served by this
suite's live server from sources whose locations try to leave the site.

Needs the ``chromium`` program (Debian's chromium package; .ci/run installs it);
without it the tests are skipped.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit

import pytest
from devtools import Browser
from factories import ArticleFactory
from html_pages import Link, index_sections, page_rows
from lxml import html as lxml_html
from lxml.html import HtmlElement
from processes import EXAMPLE_DIR, example_environ, example_manage
from pytest_django.live_server_helper import LiveServer
from sitemap_xml import parse_extended_urlset, parse_index
from testapp.sitemaps import ArticleSource

POSTS = 30
SERVER_START_SECONDS = 30
CHROMIUM_SECONDS = 60
XML_PAGE = re.compile(r"/sitemap-(?P<section>[a-z0-9_]+)-(?P<page>[1-9][0-9]*)\.xml")
# The flags of every run; a fresh --user-data-dir and the action come after.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    return shutil.which("chromium") or (
        "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None
    )


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        find_chromium() is None,
        reason="no chromium on PATH nor /usr/bin/chromium: install Debian's chromium package "
        "(apt-get install --no-install-recommends chromium fonts-dejavu-core)",
    ),
]

# Every request goes straight to 127.0.0.1, whatever *_proxy variables say.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Fetched(NamedTuple):
    body: bytes
    content_type: str
    csp: str | None


def fetch(url: str) -> Fetched:
    with OPENER.open(url, timeout=30) as response:
        return Fetched(
            response.read(),
            response.headers.get("Content-Type", ""),
            response.headers.get("Content-Security-Policy"),
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stops a process started in its own session, and whatever it started."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
    # Children left behind (a browser's helpers) go too, then the leader is reaped.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def example_env(base_url: str, workdir: Path) -> dict[str, str]:
    return example_environ(
        # An absolute path replaces the default db.sqlite3 next to manage.py.
        EXAMPLE_DATABASE=str(workdir / "example.sqlite3"),
        SITEMAPKIT_BASE_URL=base_url,
        SITEMAPKIT_SERVE="database",
        # Nothing is read from (or written to) example_project/public/sitemaps.
        SITEMAPKIT_OUTPUT_DIR=str(workdir / "sitemaps"),
    )


def manage(env: dict[str, str], *args: str) -> None:
    done = example_manage(env, *args)
    assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


def wait_until_up(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while True:
        if process.poll() is not None:
            pytest.fail(f"runserver exited with {process.returncode}:\n{log.read_text()}")
        try:
            with OPENER.open(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(
                f"runserver did not answer {url} in {SERVER_START_SECONDS} s:\n{log.read_text()}"
            )
        time.sleep(0.1)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The example blog, migrated and seeded, served by runserver on a free port.

    The server is stopped when the module's tests are done, and also when it
    fails to start: SIGTERM to its process group, SIGKILL after 10 s.
    """
    workdir = tmp_path_factory.mktemp("example")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = example_env(url, workdir)
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    manage(env, "seed", "--rows", str(POSTS), "--categories", "5")
    log = workdir / "runserver.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=EXAMPLE_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            # Its own process group, so that stop() reaches anything it started.
            start_new_session=True,
        )
    try:
        wait_until_up(server, f"{url}/sitemap.xml", log)
        yield url
        assert server.poll() is None, f"runserver died during the tests:\n{log.read_text()}"
    finally:
        stop(server)


def browser_dom(url: str, profile: Path) -> HtmlElement:
    """The DOM of ``url`` once Chromium has loaded it, parsed back."""
    chromium = find_chromium()
    assert chromium is not None
    browser = subprocess.Popen(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = browser.communicate(timeout=CHROMIUM_SECONDS)
    except subprocess.TimeoutExpired:
        stop(browser)
        for pipe in (browser.stdout, browser.stderr):
            if pipe is not None:
                pipe.close()
        pytest.fail(f"chromium did not finish loading {url} in {CHROMIUM_SECONDS} s")
    finally:
        stop(browser)
    assert browser.returncode == 0, err.decode(errors="replace")[-3000:]
    assert out.strip(), f"chromium dumped nothing for {url}: {err.decode(errors='replace')[-3000:]}"
    return lxml_html.document_fromstring(out)


def elements(node: HtmlElement, path: str) -> list[HtmlElement]:
    found = node.xpath(path)
    assert isinstance(found, list)
    assert all(isinstance(item, HtmlElement) for item in found), found
    return [item for item in found if isinstance(item, HtmlElement)]


def one(node: HtmlElement, path: str) -> HtmlElement:
    found = elements(node, path)
    assert len(found) == 1, f"{len(found)} matches of {path}"
    return found[0]


def text(node: HtmlElement) -> str:
    content = node.text_content()
    assert isinstance(content, str)
    return content.strip()


def assert_self_contained(dom: HtmlElement, base: str, csp: str | None) -> None:
    """Nothing loaded from anywhere; every link a path, to the host that served the page."""
    assert elements(dom, "//script") == []
    assert elements(dom, "//link") == []
    assert elements(dom, "//*[@src]") == []
    assert elements(dom, "//iframe | //object | //embed | //img") == []
    links = elements(dom, "//a")
    assert links
    for a in links:
        link = a.get("href") or ""
        assert link.startswith("/"), link
        # A path, not a network-path reference ("//host/..."): it stays on the host.
        assert urljoin(base + "/", link).startswith(base + "/"), link
    # The one style sheet is inline, imports nothing, and the policy the
    # server sent allows it by its digest (else the browser would ignore it).
    style = one(dom, "/html/head/style").text or ""
    assert "url(" not in style
    assert "@import" not in style
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert csp is not None
    assert "default-src 'none'" in csp
    assert f"'sha256-{digest}'" in csp
    assert "http" not in csp


def test_index_in_chromium(base_url: str, tmp_path: Path) -> None:
    index = parse_index(fetch(f"{base_url}/sitemap.xml").body)
    served = fetch(f"{base_url}/sitemap.html")
    assert served.content_type == "text/html; charset=utf-8"

    dom = browser_dom(f"{base_url}/sitemap.html", tmp_path / "profile")

    assert text(one(dom, "//h1")) == "Sitemap"
    # Each section of the XML index under its heading, in its order, with as many
    # URLs as its XML pages list, and one page for visitors (under 1,000 URLs).
    urls: dict[str, int] = {}
    for loc, _ in index:
        match = XML_PAGE.fullmatch(loc.removeprefix(base_url))
        assert match is not None, loc
        urls[match["section"]] = urls.get(match["section"], 0) + len(
            parse_extended_urlset(fetch(loc).body)
        )
    assert [
        (section.heading, section.summary.split(",")[0], section.pages)
        for section in index_sections(dom)
    ] == [
        (
            name.capitalize(),
            f"{count:,} pages",
            [Link(f"1\N{EN DASH}{count:,}", f"/sitemap-{name}-1.html")],
        )
        for name, count in urls.items()
    ]
    assert sorted(urls) == ["categories", "pages", "posts"]
    assert_self_contained(dom, base_url, served.csp)


def test_section_page_in_chromium(base_url: str, tmp_path: Path) -> None:
    urls = parse_extended_urlset(fetch(f"{base_url}/sitemap-posts-1.xml").body)
    assert 0 < len(urls) <= POSTS
    served = fetch(f"{base_url}/sitemap-posts-1.html")
    assert served.content_type == "text/html; charset=utf-8"

    dom = browser_dom(f"{base_url}/sitemap-posts-1.html", tmp_path / "page-profile")

    assert text(one(dom, "//h1")) == "Posts"
    rows = page_rows(dom)
    # The <loc>s of the XML page, in the same order, each a link titled by its post.
    page_url = f"{base_url}/sitemap-posts-1.html"
    assert [urljoin(page_url, row.link.href) for row in rows] == [url.loc for url in urls]
    assert [row.lastmod and row.lastmod[0] for row in rows] == [url.lastmod for url in urls]
    for row in rows:
        # Titled by the post's title, not by the path that stands in for none.
        assert row.link.text, row
        assert not row.link.text.startswith("/"), row
        if row.lastmod is not None:
            assert re.fullmatch(r"[A-Z][a-z]+\.? [0-9]{1,2}, [0-9]{4}", row.lastmod[1]), row
    # Back to the index, on the host the page was read on.
    assert one(dom, "//p[@class='sitemap-crumbs']/a").get("href") == "/sitemap.html"
    assert_self_contained(dom, base_url, served.csp)


# -- every link followed, from sources that try to leave the site -----------------


class OffSite(ArticleSource):
    """Each row's slug is its location: some are paths whose dot segments leave a
    path starting with "//", which a link without the origin reads as a host."""

    def location(self, row: Any) -> str:
        return str(row["slug"])


#: Locations that once became href="//evil.example/...", and some on the site.
HOSTILE = ["/blog/..//evil.example/a", "/.//evil.example/b", "/%2e//evil.example/c"]
LISTED = ["/articles/one/", "/about/"]


class Recorder(BaseHTTPRequestHandler):
    """evil.example, on 127.0.0.1: it records every request that reaches it."""

    seen: list[str]

    def do_GET(self) -> None:
        self.seen.append(f"{self.headers.get('Host')} {self.path}")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def evil_host() -> Iterator[tuple[int, list[str]]]:
    """A server standing for evil.example: its port, and the requests it got."""
    seen: list[str] = []
    handler = type("EvilRecorder", (Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("testapp.urls_html")
def test_every_link_of_the_html_sitemap_stays_on_the_site(
    live_server: LiveServer,
    settings: Any,
    sources: Callable[..., None],
    evil_host: tuple[int, list[str]],
    tmp_path: Path,
) -> None:
    settings.SITEMAPKIT_BASE_URL = live_server.url
    sources(OffSite)
    for slug in [*LISTED, *HOSTILE]:
        ArticleFactory.create(slug=slug)
    evil_port, evil_seen = evil_host
    chromium = find_chromium()
    assert chromium is not None
    # evil.example is the recorder; any other name but the live server's resolves nowhere.
    rules = (
        f"MAP evil.example 127.0.0.1:{evil_port}, MAP * ~NOTFOUND, "
        f"EXCLUDE {urlsplit(live_server.url).hostname}"
    )
    site = live_server.url + "/"
    followed: dict[str, int | None] = {}
    with Browser(chromium, CHROMIUM_FLAGS, tmp_path / "profile", rules) as browser:
        for page in ("sitemap.html", "sitemap-articles-1.html"):
            assert browser.visit(site + page) == (site + page, 200)
            links = browser.links()
            assert links
            for link in links:
                followed[link] = browser.visit(link).status
                assert browser.visit(site + page).status == 200
    assert evil_seen == []
    # Every link led to the site, and the site answered each.
    assert followed == {
        f"{site}sitemap-articles-1.html": 200,
        f"{site}sitemap.html": 200,
        f"{site}articles/one/": 200,
        f"{site}about/": 200,
    }
