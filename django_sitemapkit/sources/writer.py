"""From a chunk of rows to entries, or straight to the lines of a ``<urlset>``.

Each chunk of rows becomes a list of entries (for the HTML pages and any
source with languages or extensions), or, for the XML of the declarative
route, a list of lines written by one tight loop with no ``Entry`` between
the row and its line. Invalid rows are skipped and logged (raised when strict)
and counted in the caller's ``Tally`` (see ``skips.py``); an invalid optional
value is left out of its row's entry, which is kept, and logged alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol

from django.conf import settings
from django.db.models import QuerySet
from django.utils import translation

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.encoder import NEEDS_ESCAPE as needs_escape
from django_sitemapkit.encoding.encoder import (
    Entry,
    Lines,
    entry_lines,
    escape,
    optional_elements,
    url_element,
)
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import RelatedQuery
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sources.bulk import BulkLines
from django_sitemapkit.sources.declaration import Declaration
from django_sitemapkit.sources.disallowed import Guard, robots_guard
from django_sitemapkit.sources.entries import EntryMaker, RowFormat, fixed
from django_sitemapkit.sources.extended import (
    Extender,
    alternates_reader,
    extension_prefixes,
    items_reader,
    news_reader,
    related_queries,
)
from django_sitemapkit.sources.optional import LeftOut, optional_pair
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Excluded, Tally, keep_made, skip_entry, undate_row
from django_sitemapkit.values import Horizon

Reader = Callable[[Any], Any]
#: A row, and the entries it gives.
RowEntries = tuple[Any, list[Entry]]


class PageWriter(Protocol):
    """What the pipeline asks of a section's writer: the lines of a chunk of rows
    (``<url>`` elements, or another ``element``'s), and their entries."""

    def entries(self, chunk: Chunk, tally: Tally | None = None) -> list[Entry]: ...

    def lines(
        self,
        chunk: Chunk,
        tally: Tally | None = None,
        element: Callable[[Entry], str] = url_element,
    ) -> Lines: ...


@dataclass(frozen=True)
class Writer:
    """Entries, and ``<urlset>`` lines, of each chunk of a section's rows."""

    section: str
    row_key: Callable[[Any], str]
    maker: EntryMaker
    make: Callable[[Any], Entry]
    extender: Extender | None
    #: Reads the ``Related`` extensions of a chunk of rows (one query each).
    related: RelatedReader | None
    strict: bool
    #: Leaves out each language's location robots.txt disallows, for an extended source
    #: (``SITEMAPKIT_ROBOTS = "exclude"``; the others' ``make`` refuses it).
    robots: Guard | None = None
    #: A ``lastmod`` later than this is left out of its entry (``values.Horizon``).
    horizon: Horizon = field(default_factory=Horizon)
    #: Writes a chunk of raw rows a column at a time, where the section's shape allows.
    bulk: BulkLines | None = None

    def plain(self) -> Writer:
        """This writer without its extension elements, for a section whose rows turn out
        to have none (a Wagtail site in one locale): each chunk then takes the one
        tight loop, with robots.txt's guard in the locator as compile_writer() puts it."""
        maker = self.maker
        if self.robots is not None:
            maker = replace(maker, locate=self.robots.locator(maker.locate))
        return replace(self, maker=maker, make=maker(), extender=None, related=None, robots=None)

    def entries(self, chunk: Chunk, tally: Tally | None = None) -> list[Entry]:
        made: list[Entry] = []
        for _, found in self.row_entries(chunk, tally):
            made += found
        return made

    def row_entries(self, chunk: Chunk, tally: Tally | None = None) -> Iterator[RowEntries]:
        """Each row of a chunk that gives entries, with them: the HTML sitemap reads
        a row's title beside its entries (one per language)."""
        make, row_key, extend, robots = self.make, self.row_key, self.extender, self.robots
        related = {} if self.related is None else self.related(chunk)
        for row in chunk:
            try:
                found = [make(row)] if extend is None else extend(row, related)
            except LeftOut as exc:
                made = keep_made(self.section, row_key(row), exc, tally, self.strict)
                found = [made] if extend is None else made
            except InvalidEntry as exc:
                skip_entry(self.section, row_key(row), exc, tally, self.strict)
                continue
            if robots is not None:
                found = robots.allowed(found, self.section, row_key(row), tally)
            late = undate(found, 0, self.horizon)
            if late is not None:
                undate_row(self.section, row_key(row), late, tally, self.strict)
            yield row, found

    def lines(
        self,
        chunk: Chunk,
        tally: Tally | None = None,
        element: Callable[[Entry], str] = url_element,
    ) -> Lines:
        """The lines of a chunk for ``element`` (the XML ``<url>``, or an HTML row)."""
        if self.extender is None and element is url_element:
            return self.direct_lines(chunk, tally)
        return entry_lines(self.entries(chunk, tally), element)

    def refuse(self, tally: Tally | None, row: Any, reason: str) -> None:
        """Skip a row the bulk path found robots.txt disallows, as the locator's refusal
        is in the loop below (``Guard.locator()``)."""
        skip_entry(self.section, self.row_key(row), Excluded(reason), tally, self.strict)

    def direct_lines(self, chunk: Chunk, tally: Tally | None) -> Lines:
        """What ``url_element(make(row))`` gives for each row, as one loop over the
        chunk with no ``Entry`` between a row and its line (the values other than
        ``<loc>`` are formatted by values.py and hold nothing to escape); the chunk
        at once where ``bulk`` can check it (bulk.py)."""
        if self.bulk is not None:
            found = self.bulk(chunk, self.horizon, partial(self.refuse, tally))
            if found is not None:
                return found
        maker = self.maker
        locate, read_lastmod, fixed_lastmod = (
            maker.locate,
            maker.lastmod.read,
            maker.lastmod.constant,
        )
        tail = optional_elements(maker.changefreq.constant, maker.priority.constant)
        read_rest = None
        if maker.changefreq.read is not None or maker.priority.read is not None:
            optional = optional_pair(
                maker.changefreq.read or fixed(maker.changefreq.constant),
                maker.priority.read or fixed(maker.priority.constant),
            )

            def read_rest(row: Any) -> str:
                return optional_elements(*optional(row))

        lines: list[str] = []
        lastmods: list[str | None] = []
        append_line, append_lastmod = lines.append, lastmods.append
        horizon = self.horizon
        ceiling = horizon.latest[1]
        for row in chunk:
            try:
                loc = locate(row)
                lastmod = fixed_lastmod if read_lastmod is None else read_lastmod(row)
                rest = tail if read_rest is None else read_rest(row)
            except LeftOut as exc:  # only read_rest() leaves values out
                kept = keep_made(self.section, self.row_key(row), exc, tally, self.strict)
                rest = optional_elements(*kept)
            except InvalidEntry as exc:
                skip_entry(self.section, self.row_key(row), exc, tally, self.strict)
                continue
            # One string comparison a row; passed() looks closer (values.py).
            if lastmod is not None and lastmod > ceiling:
                if horizon.passed(lastmod):
                    undate_row(self.section, self.row_key(row), lastmod, tally, self.strict)
                    lastmod = None
                ceiling = horizon.latest[1]
            if needs_escape(loc) is not None:
                loc = escape(loc)
            if lastmod is None:
                append_line("<url><loc>" + loc + "</loc>" + rest)
            else:
                append_line("<url><loc>" + loc + "</loc><lastmod>" + lastmod + "</lastmod>" + rest)
            append_lastmod(lastmod)
        return lines, lastmods


def undate(entries: list[Entry], first: int, horizon: Horizon) -> str | None:
    """Leave out each ``lastmod`` of ``entries[first:]`` (one row's) later than
    ``horizon``; the first one left out, if any."""
    late = None
    for number in range(first, len(entries)):
        lastmod = entries[number].lastmod
        if lastmod is not None and horizon.passed(lastmod):
            entries[number] = entries[number]._replace(lastmod=None)
            late = late or lastmod
    return late


@dataclass(frozen=True)
class RelatedReader:
    """The values of each ``Related`` declaration for a chunk of rows."""

    pk_of: Reader
    queries: dict[str, RelatedQuery]

    def __call__(self, chunk: Chunk) -> dict[str, dict[Any, list[tuple[Any, ...]]]]:
        keys = [self.pk_of(row) for row in chunk]
        return {name: query.values(keys) for name, query in self.queries.items()}


def row_keyer(row_format: RowFormat, read_field: Callable[[str], Reader]) -> Callable[[Any], str]:
    """How log messages name a row."""
    if row_format is RowFormat.STATIC:
        return lambda row: f"page {str(row)!r}"
    pk = read_field("pk")
    return lambda row: f"pk={pk(row)!r}"


def compile_writer(
    declaration: Declaration,
    policy: LocationPolicy,
    row_format: RowFormat,
    maker: EntryMaker,
    locator: Callable[[], Callable[[Any], str]],
    read_field: Callable[[str], Reader],
    languages: Sequence[str | None],
    queryset: QuerySet[Any] | None,
    database: str | None,
) -> Writer:
    """The writer of a plan; ``locator()`` builds a locator in the active language."""
    section = declaration.name
    strict = conf.STRICT
    row_key = row_keyer(row_format, read_field)
    robots = robots_guard(policy.origin)
    if not (declaration["i18n"] or extension_prefixes(declaration)):
        if robots is not None:
            # Refused as an invalid location is: skipped and logged, or raised.
            maker = replace(maker, locate=robots.locator(maker.locate))
        return Writer(section, row_key, maker, maker(), None, None, strict)
    makers = []
    for language in languages:
        # A URL template is compiled per language (the resolver's language prefix).
        with translation.override(language):
            makers.append((language, replace(maker, locate=locator())()))
    default_maker = None
    if declaration["x_default"]:
        with translation.override(settings.LANGUAGE_CODE):
            default_maker = replace(maker, locate=locator())()
    pk_of = read_field("pk") if queryset is not None else None
    extender = Extender(
        section,
        row_key,
        makers,
        alternates_reader(declaration, policy, default_maker),
        items_reader(declaration, "images", pk_of),
        items_reader(declaration, "videos", pk_of),
        news_reader(declaration["news"], read_field),
        policy,
        strict,
    )
    related = None
    if queryset is not None and database is not None and pk_of is not None:
        queries = related_queries(declaration, queryset.model, database)
        related = RelatedReader(pk_of, queries) if queries else None
    return Writer(section, row_key, maker, makers[0][1], extender, related, strict, robots)
