"""The HTML sitemap for visitors, from the database: the index (each section under a
heading, with its pages) and a page of a section (its URLs, titled and dated).

A visitor's page is ``SITEMAPKIT_HTML_PAGE_SIZE`` URLs, whatever the XML's
page size: the plan is compiled for visitors (``compile_plan(visitor=True)``),
which also reads each row's ``title``. The markup is the templates'
(``encoding/html.py``); the rows stream as the XML's do.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from django.http import Http404, HttpRequest, HttpResponseBase
from django.utils import formats, translation

from django_sitemapkit.conf import conf
from django_sitemapkit.documents import ChunkWriter, Section, page_runs
from django_sitemapkit.encoding import html
from django_sitemapkit.encoding.encoder import Entry, Lines
from django_sitemapkit.locations.policy import index_path, page_path
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import AdaptedSource, Plan, compile_plan
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.sources.titles import as_words
from django_sitemapkit.sources.writer import Writer
from django_sitemapkit.values import format_lastmod
from django_sitemapkit.views.database import index_response, page_cut, page_stats
from django_sitemapkit.views.http import HTML, Representation, document_response, weak_etag
from django_sitemapkit.views.streams import page_body


def representation() -> Representation:
    """HTML, its validators told apart by what shapes a visitor's pages besides their
    rows: their size, and the language their dates and words are in."""
    label = f"html:{conf.HTML_PAGE_SIZE}:{translation.get_language()}"
    return HTML._replace(label=label)


def rows_per_page(plan: Plan) -> int:
    """A section's rows on one of a visitor's pages, from its plan for the XML:
    ``SITEMAPKIT_HTML_PAGE_SIZE`` URLs, a row being one URL per language
    (``sizes()``), or a drop-in class's own pages (``compat.register()``), which
    its ``get_urls()`` may cut itself."""
    if isinstance(plan.source, AdaptedSource):
        return plan.page_size
    return max(1, conf.HTML_PAGE_SIZE // len(plan.languages))


def numbered(value: int) -> str:
    return formats.number_format(value, force_grouping=True)


def section_context(item: Section) -> dict[str, Any]:
    """What ``sitemap_section.html`` is given of a section, as ``section``."""
    plan, stats = item.plan, item.stats
    size = rows_per_page(plan)
    pages = -(-stats.rows // size)
    urls = stats.rows * len(plan.languages)
    lastmod = None if stats.lastmod is None else html.dated(format_lastmod(stats.lastmod))
    return {
        "name": plan.section,
        "heading": as_words(plan.section),
        "urls": urls,
        "urls_text": numbered(urls),
        "lastmod": lastmod,
        "pages": [
            {
                "number": number,
                "url": page_path(plan.section, number, html.URL_NAMESPACE),
                # Which of the section's URLs it lists, from "first" to "last".
                "first": numbered((number - 1) * size * len(plan.languages) + 1),
                "last": numbered(min(number * size * len(plan.languages), urls)),
            }
            for number in range(1, pages + 1)
        ],
    }


def database_html_index(request: HttpRequest, site: SitemapSite) -> HttpResponseBase:
    shown = representation()

    def body(found: list[Section]) -> Iterator[bytes]:
        urls = sum(item.stats.rows * len(item.plan.languages) for item in found)
        context = {
            "title": translation.gettext("Sitemap"),
            "urls": urls,
            "urls_text": numbered(urls),
            "sections": len(found),
        }
        # Rendered now, before the response: a template's mistake is a 500, not a
        # document cut short after its headers.
        layout = html.frame(html.INDEX_TEMPLATE, {"sitemap": context}, request)
        return sections_between(layout, found)

    return index_response(request, site, shown, body)


def sections_between(layout: html.HtmlLayout, found: list[Section]) -> Iterator[bytes]:
    """The index's sections between the halves of its layout, one render each: a
    section of many pages is one string, never the whole index."""
    section = html.template(html.SECTION_TEMPLATE)
    yield layout.opening
    for item in found:
        yield section.render({"section": section_context(item)}).encode()
    yield layout.closing


def titled_lines(plan: Plan, markup: Callable[[Entry, str | None], str]) -> ChunkWriter:
    """The lines of a chunk of rows: each entry's row with the title of the row it
    came from (one row gives an entry per language); entries alone where the
    section has no titles (a drop-in class's)."""
    writer, title = plan.writer, plan.title

    def lines(chunk: Chunk, tally: Tally | None) -> Lines:
        pairs: list[tuple[Entry, str | None]]
        if title is None or not isinstance(writer, Writer):
            pairs = [(entry, None) for entry in writer.entries(chunk, tally)]
        else:
            pairs = [
                (entry, title(row))
                for row, found in writer.row_entries(chunk, tally)
                for entry in found
            ]
        return [markup(entry, name) for entry, name in pairs], [e.lastmod for e, _ in pairs]

    return lines


def page_context(plan: Plan, page: int, pages: int) -> dict[str, Any]:
    """What ``sitemap_page.html`` is given of the page, as ``sitemap``."""
    heading = as_words(plan.section)
    title = heading
    if pages > 1:
        title = translation.gettext("%(heading)s, page %(page)s") % {
            "heading": heading,
            "page": page,
        }

    def link(number: int) -> str | None:
        if not 1 <= number <= pages:
            return None
        return page_path(plan.section, number, html.URL_NAMESPACE)

    return {
        "title": f"{title} · {translation.gettext('Sitemap')}",
        "section": plan.section,
        "heading": heading,
        "page": page,
        "pages": pages,
        "index_url": index_path(html.URL_NAMESPACE),
        "previous_url": link(page - 1),
        "next_url": link(page + 1),
    }


def database_html_page(
    request: HttpRequest, site: SitemapSite, section: str, page: int
) -> HttpResponseBase:
    source = registry.get(section, site)
    if source is None:
        raise Http404(f"No sitemap section named {section!r} on site {site.name!r}.")
    plan = compile_plan(source, site, visitor=True)
    size = plan.page_size
    stats = page_stats(plan, page)
    if stats.rows == 0:
        raise Http404(f"Sitemap section {section!r} has no page {page}.")
    # What "page 2 of 9" and the next page's link need: the section's rows.
    total = plan.pager.count()
    pages = -(-total // size)
    shown = representation()
    etag = None
    if stats.lastmod is not None:
        etag = weak_etag(site, shown.label, section, page, size, total, *stats.fingerprint)

    def body() -> Iterator[bytes]:
        origin = site.origin.url
        tally = Tally()
        write = titled_lines(plan, html.row_markup(origin))
        runs = page_runs(plan, page, stats.start, tally, write=write)
        layout = html.frame(
            html.PAGE_TEMPLATE, {"sitemap": page_context(plan, page, pages)}, request
        )
        return page_body(
            request,
            runs,
            layout,
            max_urls=plan.url_limit,
            # No byte cap: a visitor's page is a few hundred kilobytes by its size.
            max_bytes=sys.maxsize,
            document=f"HTML page {page} of sitemap source {section!r}",
            on_cut=lambda encoder: page_cut(encoder, section, page),
        )

    return document_response(request, shown, etag, stats.lastmod, body)
