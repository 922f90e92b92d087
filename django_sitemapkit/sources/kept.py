"""What a process keeps of a section under its validator, until the validator moves:
each page's newest ``lastmod`` (the index's, ``lastmods.py``) and where each page
after the first starts (a page's, ``pages.py``).

Both cost a pass over the keys before them: the lastmods a walk of every page,
a page's start a seek over every key before it (page 200 of 10,000,000 rows
stepped over 9,950,000 keys). Kept, a page after the first costs what page 1
costs. An entry's key names the section, its database, its query, its page size
and its validator, so a change the validator shows is never answered from what
was kept before it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from threading import Lock
from typing import Any, NamedTuple

from django.core.exceptions import EmptyResultSet
from django.db.models import QuerySet

#: Sections kept (least recently used first out).
CACHED_SECTIONS = 256

Key = tuple[Any, ...]


class Known(NamedTuple):
    #: Each page's newest lastmod, once the index has read them all.
    lastmods: tuple[Any, ...] | None
    #: The key of each page's first row, by page number (from 2), as far as known.
    starts: Mapping[int, tuple[Any, ...]]


_cache: OrderedDict[Key, Known] = OrderedDict()
#: The validator each section was last kept under, by the rest of its key.
_latest: OrderedDict[Key, Any] = OrderedDict()
_lock = Lock()


def clear_cache() -> None:
    with _lock:
        _cache.clear()
        _latest.clear()


def section_key(section: str, queryset: QuerySet[Any], page_size: int) -> Key | None:
    """What a section's pages are kept under, but its validator; ``None`` for
    ``.none()``, which has no pages."""
    try:
        query = str(queryset.query)
    except EmptyResultSet:
        return None
    return (section, queryset.db, query, page_size)


def known(key: Key) -> Known | None:
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _cache.move_to_end(key)
        return found


def keep(
    key: Key,
    lastmods: tuple[Any, ...] | None = None,
    starts: Mapping[int, tuple[Any, ...]] | None = None,
) -> None:
    """Add ``lastmods`` and ``starts`` to what is kept under ``key`` (a section's key
    and its validator). An entry is replaced, never changed, so a reader holds one
    that is whole."""
    with _lock:
        before = _cache.get(key)
        merged = Known(
            lastmods if lastmods is not None else None if before is None else before.lastmods,
            {**({} if before is None else before.starts), **(starts or {})},
        )
        _cache[key] = merged
        _cache.move_to_end(key)
        _latest[key[:-1]] = key[-1]
        _latest.move_to_end(key[:-1])
        for entries in (_cache, _latest):
            while len(entries) > CACHED_SECTIONS:
                entries.popitem(last=False)


def start_of(
    section: Key,
    page: int,
    validator: Callable[[], tuple[Any, ...]],
    seek: Callable[[], tuple[Any, ...] | None],
) -> tuple[Any, ...] | None:
    """The key of ``page``'s first row, kept under ``validator``, one that never comes
    back (the change record's version): read first, then the start kept under it, or
    ``seek()`` and kept. A change committed between the two is kept under a version
    no later request reads."""
    key = (*section, validator())
    found = known(key)
    if found is not None and page in found.starts:
        return found.starts[page]
    start = seek()
    if start is not None:
        keep(key, starts={page: start})
    return start


def summarized_start_of(
    section: Key,
    page: int,
    summary: Callable[[], tuple[Any, ...]],
    seek: Callable[[], tuple[tuple[Any, ...] | None, tuple[Any, ...]]],
) -> tuple[Any, ...] | None:
    """The key of ``page``'s first row, kept under the section's own validator
    (``summary()``, whose values can come back): the start kept under the validator
    the section was last kept under, if ``summary()`` still says it; else ``seek()``,
    which reads the start and the validator in one statement, one state of the
    section, and is kept under it. Filled here, or by the index's walk."""
    with _lock:
        latest = _latest.get(section, None)
    found = None if latest is None else known((*section, latest))
    if found is not None and page in found.starts and summary() == latest:
        return found.starts[page]
    start, current = seek()
    if start is not None:
        keep((*section, current), starts={page: start})
    return start
