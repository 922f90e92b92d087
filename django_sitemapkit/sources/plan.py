"""A source's declaration compiled once into an immutable plan.

The plan fixes everything a page needs before a row is read: the columns and
their readers, the locator, the row format (chosen after the locator, so a
location built per row never has to look a value up by name), the ordering
key, the page size, the URL limit, the namespaces and the extension readers.
Paging and entry building read the plan; they never read the class again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from django.db.models import QuerySet

from django_sitemapkit import extensions
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoding.encoder import Document, urlset
from django_sitemapkit.locations.policy import LocationPolicy, entry_context
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.sources import finishing
from django_sitemapkit.sources.bulk import bulk_lines
from django_sitemapkit.sources.canonical import checked_writer, row_check
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Declaration,
    SitemapSource,
    StaticPage,
    StaticSource,
)
from django_sitemapkit.sources.entries import (
    EntryMaker,
    RowFormat,
    field_path,
    field_reader,
    hook_locator,
    row_format,
    url_name_locator,
    value_of,
)
from django_sitemapkit.sources.extended import extension_prefixes, language_codes
from django_sitemapkit.sources.keyset import KeyColumn, ordering_key
from django_sitemapkit.sources.lastmods import dated_path, page_lastmods
from django_sitemapkit.sources.listing import Listing, columns, compile_listing, listed, present
from django_sitemapkit.sources.pages import LastmodValue, Pager, QueryPager, SectionStats
from django_sitemapkit.sources.rows import RowShape, raw_values
from django_sitemapkit.sources.static import StaticPager
from django_sitemapkit.sources.titles import TitleReader, field_title, static_title, title_path
from django_sitemapkit.sources.writer import PageWriter, Writer, compile_writer

#: Rows per page, URLs per page, and the languages.
Sizes = tuple[int, int, tuple[str | None, ...]]


@dataclass(frozen=True)
class Plan:
    """Everything a page of one section needs, decided once."""

    source: BaseSource
    section: str
    #: Rows per page, and URLs per page (an ``i18n`` row is one URL per language).
    page_size: int
    url_limit: int
    languages: tuple[str | None, ...]
    document: Document
    pager: Pager
    row_format: RowFormat
    writer: PageWriter
    #: The database the rows are read from (``None`` for static pages).
    database: str | None
    #: Each page's newest lastmod for the index, as cheaply as the pager allows.
    lastmods: Callable[[SectionStats], tuple[LastmodValue | None, ...]]
    #: The pager of a queryset section, whose rows the build measures and cuts into
    #: key ranges; ``None`` for static pages and contrib classes (one shard, no stats).
    queryset: QueryPager | None = None
    #: The URL name locations are reversed from (``None``: a ``location()`` makes them).
    url_name: str | None = None
    #: What a queryset source's declaration adds to its query (``listing.py``).
    listing: Listing | None = None
    #: Each row's title for visitors, in a plan compiled for them (``titles.py``).
    title: TitleReader | None = None

    @property
    def key(self) -> Sequence[KeyColumn] | None:
        """The seek key the build cuts the section's shards by, if it has one."""
        return None if self.queryset is None else self.queryset.key

    @property
    def lastmod_path(self) -> str | None:
        return None if self.queryset is None else self.queryset.lastmod_path

    def context(self) -> AbstractContextManager[None]:
        """Where entries are made (``locations.entry_context()``)."""
        return entry_context()


class AdaptedSource(BaseSource):
    """A section whose rows and entries come from outside the declarative vocabulary,
    and which compiles its own plan: a ``django.contrib.sitemaps`` class registered
    with ``django_sitemapkit.compat.register()``. The engine's class, never a
    project's: nothing a project declares is looked up on it."""

    def compiled(self, policy: LocationPolicy) -> Plan:
        raise NotImplementedError


def compile_plan(
    source: BaseSource,
    site: SitemapSite | None = None,
    *,
    policy: LocationPolicy | None = None,
    visitor: bool = False,
) -> Plan:
    """The plan of ``source`` on ``site`` (the only site if ``None``), for the settings
    and URLconf in force now; ``policy`` replaces the site's location rule. A plan
    for the HTML sitemap's ``visitor`` pages has their page size and reads titles."""
    with entry_context():
        site = site or default_site()
        # The sitemap's directory is read in LANGUAGE_CODE too (i18n_patterns).
        policy = policy or LocationPolicy.for_site(site)
        if isinstance(source, AdaptedSource):
            return source.compiled(policy)
        # The class is read once, here: everything below reads this snapshot.
        declaration = Declaration(source)
        if isinstance(source, SitemapSource):
            plan = queryset_plan(declaration, site, policy, visitor)
            return finishing.finished(source, plan, policy)
        assert isinstance(source, StaticSource), source
        return static_plan(declaration, policy, visitor)


def sizes(declaration: Declaration, visitor: bool = False) -> Sizes:
    """Rows per page (as many as keep every page within its URL limit), URLs per page,
    and the languages; a visitor's page is ``SITEMAPKIT_HTML_PAGE_SIZE`` URLs."""
    limit = declaration["limit"]
    size = conf.HTML_PAGE_SIZE if visitor else min(conf.LIMIT, limit or MAX_URLS)
    if declaration["news"] is not None and not visitor:
        size = min(size, extensions.MAX_NEWS)
    languages = language_codes(declaration)
    rows = max(1, size // len(languages))
    return rows, rows * len(languages), languages


def order_by(declaration: Declaration, queryset: QuerySet[Any]) -> list[str]:
    ordering = list(declaration["ordering"])
    pk_name = queryset.model._meta.pk.name
    if not {"pk", "-pk", pk_name, f"-{pk_name}"} & set(ordering):
        ordering.append("pk")
    return ordering


def queryset_plan(
    declaration: Declaration, site: SitemapSite, policy: LocationPolicy, visitor: bool
) -> Plan:
    source = declaration.source
    page_size, _, languages = sizes(declaration, visitor)
    url_name = declaration["url_name"]
    located_by_hook = url_name is None or declaration.overrides("location", SitemapSource)
    queryset = listed(declaration, site)
    listing = compile_listing(declaration, queryset, policy, languages, located_by_hook)
    queryset = listing.applied(queryset)
    ordering = order_by(declaration, queryset)
    ordered = queryset.order_by(*ordering)
    shape: RowShape | None = None
    format_ = row_format(declaration, located_by_hook)
    lastmod_path = listing.lastmod_path(declaration)
    # The canonical path is read only where each row is compared (canonical.py).
    compared = listing.per_row_canonical
    titled = title_path(declaration, visitor)
    if format_ is RowFormat.RAW:
        needed = [*columns(declaration, lastmod=False), compared, titled]
        rows = raw_values(ordered, present(needed), lastmod_path)
        shape = RowShape(rows)
    elif format_ is RowFormat.DICT:
        needed = [*columns(declaration, lastmod=True), lastmod_path, compared, titled]
        rows = ordered.values(*present(needed))
    else:
        rows = ordered

    def read_field(path: str) -> Callable[[Any], Any]:
        return field_reader(path, format_, shape)

    def locator() -> Callable[[Any], str]:
        if located_by_hook:
            return hook_locator(source, policy)
        return url_name_locator(url_name, declaration["url_kwargs"], read_field, policy)

    pager = QueryPager(
        section=declaration.name,
        ordered=ordered,
        row_queryset=rows,
        raw=format_ is RowFormat.RAW,
        key=ordering_key(queryset.model, ordering),
        page_size=page_size,
        lastmod_path=dated_path(ordered, lastmod_path),
        chunk_size=conf.CHUNK_SIZE,
        strict=conf.STRICT,
    )
    maker = EntryMaker(
        locate=locator(),
        lastmod=value_of(declaration, "lastmod", lastmod_path, read_field, shape),
        changefreq=value_of(
            declaration, "changefreq", field_path(declaration, "changefreq", True), read_field, None
        ),
        priority=value_of(
            declaration, "priority", field_path(declaration, "priority", True), read_field, None
        ),
    )
    writer = compile_writer(
        declaration, policy, format_, maker, locator, read_field, languages, queryset, rows.db
    )
    if shape is not None and not located_by_hook and writer.extender is None:
        # The maker's locator was built here too (bulk_lines(): where reverse() runs).
        bulk = bulk_lines(url_name, declaration["url_kwargs"], shape, policy, maker)
        writer = replace(writer, bulk=bulk)
    if listing.per_row_canonical is not None:
        writer = checked_writer(writer, row_check(read_field(listing.per_row_canonical), policy))
    title = None if titled is None else field_title(read_field(titled))
    plan = replace(
        finished(declaration, pager, format_, writer, rows.db, visitor, title), listing=listing
    )
    return plan if located_by_hook else replace(plan, url_name=url_name)


def static_plan(declaration: Declaration, policy: LocationPolicy, visitor: bool) -> Plan:
    source = declaration.source
    page_size, _, languages = sizes(declaration, visitor)
    lastmod = declaration["lastmod"]
    lastmod_of: Callable[[Any], Any] | None = None
    if callable(lastmod):
        lastmod_of = source.lastmod
    elif lastmod is not None:
        lastmod_of = lambda page: lastmod  # noqa: E731 - one constant for every page
    pages = tuple(StaticPage.from_declaration(item) for item in declaration["urls"])
    pager = StaticPager(declaration.name, pages, page_size, lastmod_of)

    def read_field(path: str) -> Callable[[Any], Any]:
        return field_reader(path, RowFormat.STATIC, None)

    locator = partial(hook_locator, source, policy)
    maker = EntryMaker(
        locate=locator(),
        lastmod=value_of(declaration, "lastmod", None, read_field, None),
        changefreq=value_of(declaration, "changefreq", None, read_field, None),
        priority=value_of(declaration, "priority", None, read_field, None),
    )
    writer = compile_writer(
        declaration, policy, RowFormat.STATIC, maker, locator, read_field, languages, None, None
    )
    title = static_title if visitor else None
    return finished(declaration, pager, RowFormat.STATIC, writer, None, visitor, title)


def finished(
    declaration: Declaration,
    pager: QueryPager | StaticPager,
    row_format: RowFormat,
    writer: Writer,
    database: str | None,
    visitor: bool,
    title: TitleReader | None,
) -> Plan:
    page_size, url_limit, languages = sizes(declaration, visitor)
    document = urlset(extension_prefixes(declaration))
    lastmods: Callable[[SectionStats], tuple[LastmodValue | None, ...]]
    if isinstance(pager, QueryPager):
        lastmods, queryset = partial(page_lastmods, pager), pager
    else:
        lastmods, queryset = pager.page_lastmods, None
    return Plan(
        declaration.source,
        declaration.name,
        page_size,
        url_limit,
        languages,
        document,
        pager,
        row_format,
        writer,
        database,
        lastmods,
        queryset,
        title=title,
    )
