"""A 10,000-row section of the HTML sitemap for visitors, every page of it loaded by
headless Chromium (tests/test_browser.py's) from this suite's live server.

docs/performance.md ("The HTML sitemap in a browser") measured Chromium's
render time by page size: 0.22 s for 1,000 links, 0.30 s for 2,000 (361,412
bytes), 1.5 s for 10,000. A test asserts no time, which the machine's load
decides: each page must arrive whole, with all its links, and weigh less than
that 2,000-link page, the largest measured well under a second.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from devtools import Browser
from pytest_django.live_server_helper import LiveServer
from test_browser import CHROMIUM_FLAGS, fetch, find_chromium
from testapp.models import Article
from testapp.sitemaps import ArticleSource

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="no chromium: see tests/test_browser.py"),
]
ROWS = 10_000
#: The bytes of the 2,000-link page measured at 0.30 s (docs/html-sitemap.md).
BUDGET_BYTES = 361_412


class Titled(ArticleSource):
    title = "title"


@pytest.mark.django_db(transaction=True)
@pytest.mark.urls("testapp.urls_html")
def test_a_10000_row_section_renders_page_by_page(
    live_server: LiveServer, settings: Any, sources: Callable[..., None], tmp_path: Path
) -> None:
    settings.SITEMAPKIT_BASE_URL = live_server.url
    sources(Titled)
    day = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
    Article.objects.bulk_create(
        Article(
            slug=f"a-post-about-something-{number}",
            title=f"A post about something interesting, number {number}",
            updated_at=day + dt.timedelta(minutes=number),
        )
        for number in range(ROWS)
    )
    chromium = find_chromium()
    assert chromium is not None
    site = live_server.url
    seen: list[str] = []
    # Every name resolves nowhere but the live server's.
    rules = f"MAP * ~NOTFOUND, EXCLUDE {urlsplit(site).hostname}"
    with Browser(chromium, CHROMIUM_FLAGS, tmp_path / "profile", rules) as browser:
        assert browser.visit(f"{site}/sitemap.html").status == 200
        pages = browser.evaluate("Array.from(document.querySelectorAll('section a'), a => a.href)")
        assert pages == [f"{site}/sitemap-articles-{page}.html" for page in range(1, 11)]
        for page in pages:
            body = fetch(page).body
            assert body.endswith(b"</html>\n")
            assert len(body) < BUDGET_BYTES, (page, len(body))
            assert browser.visit(page).status == 200
            # The pager comes after the rows: the page Chromium built is whole.
            links = browser.evaluate(
                "[Array.from(document.querySelectorAll('.sitemap-urls a'), a => a.href),"
                " document.querySelectorAll('nav.sitemap-pager a').length]"
            )
            assert len(links[0]) == ROWS // 10
            assert links[1] == (1 if page in (pages[0], pages[-1]) else 2)
            seen += links[0]
    assert seen == [f"{site}/articles/a-post-about-something-{number}/" for number in range(ROWS)]
