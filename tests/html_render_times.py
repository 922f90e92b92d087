"""How long headless Chromium takes to render a page of the HTML sitemap for visitors,
by its number of links: the figures of docs/performance.md ("The HTML sitemap in
a browser") and of ``SITEMAPKIT_HTML_PAGE_SIZE``'s default.

    PYTHONPATH=tests python tests/html_render_times.py --sizes 1000,2000,10000,50000 --runs 9

Each page is made by the app's own templates (``frame()`` and ``row_markup()``,
as the view makes them) with titles of about 45 characters and URLs of about
75, written to a temporary directory and loaded from ``file://`` by one
Chromium driven over its DevTools pipe (``devtools.py``). A load starts from
``about:blank``, the sizes in a shuffled order each round; what is timed is
``performance.now()`` at the second animation frame after the load event: the
time from the start of the navigation until the page was parsed, styled, laid
out and painted. It prints each size's bytes, minimum and median.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

import django
from django.conf import settings

RENDERED = (
    "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => "
    "done([performance.now(), document.querySelectorAll('.sitemap-urls li').length]))))"
)


def page(links: int) -> bytes:
    from django.test import RequestFactory

    from django_sitemapkit.encoding import html
    from django_sitemapkit.encoding.encoder import Entry

    context = {
        "title": "Posts",
        "heading": "Posts",
        "page": 1,
        "pages": 5,
        "index_url": "/sitemap.html",
        "next_url": "/sitemap-posts-2.html",
    }
    layout = html.frame(html.PAGE_TEMPLATE, {"sitemap": context}, RequestFactory().get("/"))
    markup = html.row_markup("https://www.example.com")
    rows = "".join(
        markup(
            Entry(
                f"https://www.example.com/posts/category-{n % 7}/a-post-about-something-{n}/",
                f"2024-0{1 + n % 9}-1{n % 10}T10:00:00+00:00",
            ),
            f"A post about something interesting, number {n}",
        )
        for n in range(links)
    )
    return layout.opening + rows.encode() + layout.closing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2000,10000,50000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    options = parser.parse_args()
    # test_browser.py's flags; importing it imports the test app's models too.
    apps = ["django.contrib.contenttypes", "django.contrib.sites", "testapp", "django_sitemapkit"]
    settings.configure(INSTALLED_APPS=apps, USE_TZ=True)
    django.setup()
    from devtools import Browser
    from test_browser import CHROMIUM_FLAGS

    sizes = [int(size) for size in options.sizes.split(",")]
    times: dict[int, list[float]] = {size: [] for size in sizes}
    with tempfile.TemporaryDirectory() as work:
        for size in sizes:
            (Path(work) / f"{size}.html").write_bytes(page(size))
        flags = [*CHROMIUM_FLAGS, "--window-size=1200,900"]
        with Browser(options.chromium, flags, Path(work) / "profile", "MAP * ~NOTFOUND") as browser:
            for round_ in range(options.runs):
                for size in random.Random(round_).sample(sizes, len(sizes)):
                    browser.visit("about:blank")
                    browser.visit(f"file://{work}/{size}.html")
                    found = browser.command(
                        "Runtime.evaluate",
                        expression=RENDERED,
                        awaitPromise=True,
                        returnByValue=True,
                    )
                    rendered, links = found["result"]["value"]
                    assert links == size, (links, size)
                    times[size].append(rendered)
        for size in sizes:
            print(
                f"{size:>7,} links {(Path(work) / f'{size}.html').stat().st_size:>10,} bytes: "
                f"min {min(times[size]):6.0f} ms, median {statistics.median(times[size]):6.0f} ms"
            )


if __name__ == "__main__":
    main()
