"""The URLs a site's sitemap lists, a page at a time, as the views list them: each
section's plan, its pager's pages and rows, its writer's entries.

A page is read whole, and its rows released, before any of its URLs is
requested: no cursor stays open while the views run, in their transactions,
on the same connections. So at most one page of URLs is held at a time (the
source's ``limit``, 50,000 URLs at most), whatever the size of the site.
``published.py`` reads the same from a built set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally


class Listed(NamedTuple):
    """One ``<url>`` of a sitemap: its location, and its hreflang alternates."""

    loc: str
    #: ``(hreflang, href)`` of each ``xhtml:link rel="alternate"``, its own included.
    alternates: tuple[tuple[str, str], ...] = ()


class Page(NamedTuple):
    """The URLs of one page of a section, or why it could not be read."""

    #: The position of its first URL in the section, as the section's count has it.
    first: int
    urls: list[Listed]
    #: ``(the page's URL, why)`` when it could not be read: its URLs are unknown.
    failure: tuple[str, str] | None = None


#: Whether to read the page whose first URL has this position, with this many URLs.
Wanted = Callable[[int, int], bool]


class Section(Protocol):
    """A section's listed URLs, from the database or from a built set."""

    @property
    def section(self) -> str: ...

    @property
    def urls(self) -> int:
        """How many URLs the section lists, as its index counts them (before any
        invalid row is skipped)."""
        ...

    def pages(self, wanted: Wanted) -> Iterator[Page]:
        """The pages ``wanted(first, urls)`` asks for, in order; the others unread."""
        ...


def listed(entry: Entry) -> Listed:
    extras = entry.extras
    return Listed(entry.loc, () if extras is None else extras.alternates)


@dataclass(frozen=True)
class DatabaseSection:
    """A section's URLs as the database gives them now."""

    plan: Plan
    #: Rows in the section, counted once.
    rows: int

    @classmethod
    def of(cls, source: BaseSource, site: SitemapSite) -> DatabaseSection:
        plan = compile_plan(source, site)
        return cls(plan, plan.pager.count())

    @property
    def section(self) -> str:
        return self.plan.section

    @property
    def urls(self) -> int:
        return self.rows * len(self.plan.languages)

    def pages(self, wanted: Wanted) -> Iterator[Page]:
        per_page = self.plan.url_limit
        for page in range(1, -(-self.rows // self.plan.page_size) + 1):
            first = (page - 1) * per_page
            if wanted(first, min(per_page, self.urls - first)):
                yield Page(first, self.page(page))

    def page(self, page: int) -> list[Listed]:
        """The URLs of ``page``, its rows read to the end first; a row that makes no
        entry is skipped and logged as the views skip it (``skips.py``)."""
        plan = self.plan
        tally = Tally()
        chunks = plan.pager.chunks(page, None, tally)
        found: list[Listed] = []
        try:
            for chunk in chunks:
                with plan.context():
                    found += map(listed, plan.writer.entries(chunk, tally))
        finally:
            close_iterator(chunks)
            tally.end_page(page)
        return found


class Sample:
    """Which positions of a section's URLs are requested: all of them, or ``size``
    spread evenly over ``urls`` (the first always among them): position
    ``k * urls // size`` for each ``k`` below ``size``. The same every run."""

    def __init__(self, urls: int, size: int | None) -> None:
        self.urls = urls
        self.size = size if size is not None and size < urls else None

    @property
    def count(self) -> int:
        return self.urls if self.size is None else self.size

    def __contains__(self, position: int) -> bool:
        size = self.size
        if size is None:
            return True
        if position >= self.urls:
            return False
        # The smallest k whose position is at or after this one (a ceiling).
        k = -(-position * size // self.urls)
        return k < size and k * self.urls // size == position

    def touches(self, first: int, urls: int) -> bool:
        """Whether one of the positions ``first`` to ``first + urls - 1`` is sampled."""
        size = self.size
        if size is None:
            return True
        k = -(-first * size // self.urls)
        return k < size and k * self.urls // size < first + urls
