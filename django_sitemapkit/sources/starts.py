"""Where a page after the first starts: the key of its first row, kept per process
(``kept.py``) under a validator that moves with every change that could move it,
or sought over the keys before it (``QueryPager.seek()``).

With the change record, the validator is its version (``changes/index.py``),
which moves on every recorded change and never comes back. Without it, the
section's own (its rows, highest key, newest lastmod, ``summary.py``), and only
where those three move with every change that moves a row: a key of the primary
key alone over every row of a table, which a row enters by an insert (a new
highest key, unless it is given one) and leaves by a delete (a new count). A
filter or a key of other columns lets a save take one row out and another in,
or move one, with none of the three changed: those sections are sought each
time without the record.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django_sitemapkit.sources import kept
from django_sitemapkit.sources.pages import QueryPager
from django_sitemapkit.sources.summary import separable, summary

Validator = Callable[[], tuple[Any, ...]]


def kept_key(pager: QueryPager, validator: tuple[Any, ...]) -> kept.Key | None:
    """What ``pager``'s pages are kept under at ``validator``; ``None`` for ``.none()``."""
    section = kept.section_key(pager.section, pager.ordered, pager.page_size)
    return None if section is None else (*section, validator)


def keeps_starts(pager: QueryPager) -> bool:
    """Whether a page's start may be kept under the section's own validator."""
    key, query = pager.key, pager.ordered.query
    separate = separable(pager.ordered, pager.lastmod_path)
    return key is not None and len(key) == 1 and not query.where and separate


def start_of(pager: QueryPager, page: int, validator: Validator | None) -> tuple[Any, ...] | None:
    """The key of the first row of ``page`` (after the first), or ``None`` if there is
    no such page: kept under ``validator`` (the record's version), or under the
    section's own where ``keeps_starts()``; else sought."""
    section = kept.section_key(pager.section, pager.ordered, pager.page_size)
    seek = partial(pager.seek, page)
    if section is not None and validator is not None:
        return kept.start_of(section, page, validator, seek)
    if section is None or not keeps_starts(pager):
        return seek()
    summarized = lambda: pager.section_stats().fingerprint  # noqa: E731
    return kept.summarized_start_of(section, page, summarized, partial(sought, pager, page))


def sought(pager: QueryPager, page: int) -> tuple[tuple[Any, ...] | None, tuple[Any, ...]]:
    """The seek of ``page`` and the section's validator, in one statement: both of one
    state of the rows, so a change between them is never kept under the other."""
    assert pager.key is not None
    first, _ = pager.page_bounds(page)
    found = pager.ordered.values_list(pager.key[0].name)[first : first + 1]
    rows, last_pk, lastmod, start = summary(
        pager.ordered, pager.lastmod_path, found, section=pager.section
    )
    return (None if start is None else (start,)), (rows, last_pk, lastmod)
