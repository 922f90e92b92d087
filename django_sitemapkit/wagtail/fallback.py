"""The rows of page types that override ``get_sitemap_urls()``: their entries come from
that method, as Wagtail's own sitemap takes them, and only those rows become page
instances.

The plan's writer is wrapped: a chunk is cut into runs of rows, each run of the
other types written by the engine's writer as before (its one tight loop), each
run of these read as instances in one query (``specific()``: one more per page
type) and written from the dicts the method returns: ``location``, and
``lastmod``, ``changefreq`` and ``priority`` where given, checked as every
value is. A location off the site skips the row and logs it, as any invalid row
is; a value the protocol refuses is left out of its URL, which is kept, and
logged (as the drop-in reads a ``get_urls()`` dict). The method is called without a
request: a sitemap is also built without one (``build_sitemaps``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import groupby
from typing import Any

from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from wagtail.models import Page

from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoding.encoder import Entry, Lines, entry_lines, url_element
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sources.optional import LeftOut, optional_values
from django_sitemapkit.sources.plan import Plan
from django_sitemapkit.sources.rows import Chunk
from django_sitemapkit.sources.skips import Tally, keep_made, skip_entry, undate_row
from django_sitemapkit.sources.writer import PageWriter, undate
from django_sitemapkit.values import Horizon, format_changefreq, format_lastmod, format_priority

#: The column a row's page type is read from (``WagtailSource.fields``).
CONTENT_TYPE = "content_type_id"


def overriding_types() -> frozenset[int]:
    """The content types of the page models whose ``get_sitemap_urls()`` is their own."""
    pages: list[Any] = [model for model in apps.get_models() if issubclass(model, Page)]
    own = [model for model in pages if model.get_sitemap_urls is not Page.get_sitemap_urls]
    if not own:
        return frozenset()
    found = ContentType.objects.get_for_models(*own, for_concrete_models=False)
    return frozenset(content_type.pk for content_type in found.values())


def fallback_plan(plan: Plan, policy: LocationPolicy) -> Plan:
    """``plan`` with the rows of those page types written from their method."""
    types = overriding_types()
    if not types:
        return plan
    writer = FallbackWriter(plan.writer, plan.section, types, policy, plan.database, conf.STRICT)
    # A row may list several URLs: a page of ``limit`` rows holds up to the
    # protocol's 50,000 URLs (sitemaps.org, "Sitemap index files"), not ``limit``.
    return replace(plan, writer=writer, url_limit=MAX_URLS)


@dataclass(frozen=True)
class FallbackWriter:
    """A section's writer, with the rows of ``types`` written from their method."""

    inner: PageWriter
    section: str
    types: frozenset[int]
    policy: LocationPolicy
    database: str | None
    strict: bool
    horizon: Horizon = field(default_factory=Horizon)

    def entries(self, chunk: Chunk, tally: Tally | None = None) -> list[Entry]:
        made: list[Entry] = []
        for run, own in self.runs(chunk):
            made += self.own_entries(run, tally) if own else self.inner.entries(run, tally)
        return made

    def lines(
        self,
        chunk: Chunk,
        tally: Tally | None = None,
        element: Callable[[Entry], str] = url_element,
    ) -> Lines:
        lines: list[str] = []
        lastmods: list[str | None] = []
        for run, own in self.runs(chunk):
            if own:
                found = entry_lines(self.own_entries(run, tally), element)
            else:
                found = self.inner.lines(run, tally, element)
            lines += found[0]
            lastmods += found[1]
        return lines, lastmods

    def runs(self, chunk: Chunk) -> Iterator[tuple[Chunk, bool]]:
        """The chunk as runs of rows, each of these types or of none of them."""
        types = self.types
        for own, rows in groupby(chunk, key=lambda row: row[CONTENT_TYPE] in types):
            yield list(rows), own

    def own_entries(self, rows: Chunk, tally: Tally | None) -> list[Entry]:
        pages = Page.objects.using(self.database).filter(pk__in=[row["pk"] for row in rows])
        instances = {page.pk: page for page in pages.specific()}
        made: list[Entry] = []
        for row in rows:
            key = f"pk={row['pk']!r}"
            first = len(made)
            try:
                made += self.page_entries(instances.get(row["pk"]))
            except LeftOut as exc:
                made += keep_made(self.section, key, exc, tally, self.strict)
            except InvalidEntry as exc:
                skip_entry(self.section, key, exc, tally, self.strict)
                continue
            late = undate(made, first, self.horizon)
            if late is not None:
                undate_row(self.section, key, late, tally, self.strict)
        return made

    def page_entries(self, page: Page | None) -> list[Entry]:
        if page is None:
            raise InvalidEntry("the page was deleted while the sitemap was read")
        found = page.get_sitemap_urls(None)
        if not isinstance(found, (list, tuple)):
            raise InvalidEntry(f"get_sitemap_urls() returned {found!r}, not a list of dicts")
        entries: list[Entry] = []
        left_out: list[tuple[str, str]] = []
        for item in found:
            try:
                entries.append(self.entry(item))
            except LeftOut as exc:
                entries.append(exc.made)
                left_out += (reason for reason in exc.reasons if reason not in left_out)
        if left_out:
            raise LeftOut(entries, tuple(left_out))
        return entries

    def entry(self, item: Any) -> Entry:
        if not isinstance(item, dict) or not isinstance(item.get("location"), str):
            raise InvalidEntry(f"get_sitemap_urls() listed {item!r}, which has no location")
        location = self.policy.absolute(item["location"])
        try:
            lastmod, changefreq, priority = optional_values(DICT_VALUES, item)
        except LeftOut as exc:
            lastmod, changefreq, priority = exc.made
            raise LeftOut(Entry(location, lastmod, changefreq, priority), exc.reasons) from None
        return Entry(location, lastmod, changefreq, priority)


def dict_value(name: str, formatter: Callable[[Any], str]) -> Callable[[Any], str | None]:
    """A URL dict's value ``name``, formatted (``None`` when missing)."""

    def read(item: dict[str, Any]) -> str | None:
        value = item.get(name)
        return None if value is None else formatter(value)

    return read


#: A URL dict's optional values, read by the one rule (``optional_values()``).
DICT_VALUES = (
    ("lastmod", dict_value("lastmod", format_lastmod)),
    ("changefreq", dict_value("changefreq", format_changefreq)),
    ("priority", dict_value("priority", format_priority)),
)
