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
_lock = Lock()


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def section_key(
    section: str, queryset: QuerySet[Any], page_size: int, validator: tuple[Any, ...]
) -> Key | None:
    """What a section's pages are kept under; ``None`` for ``.none()``, which has none."""
    try:
        query = str(queryset.query)
    except EmptyResultSet:
        return None
    return (section, queryset.db, query, page_size, validator)


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
    """Add ``lastmods`` and ``starts`` to what is kept under ``key``. An entry is
    replaced, never changed, so a reader holds one that is whole."""
    with _lock:
        before = _cache.get(key)
        merged = Known(
            lastmods if lastmods is not None else None if before is None else before.lastmods,
            {**({} if before is None else before.starts), **(starts or {})},
        )
        _cache[key] = merged
        _cache.move_to_end(key)
        while len(_cache) > CACHED_SECTIONS:
            _cache.popitem(last=False)


def start_of(
    key_of: Callable[[tuple[Any, ...]], Key | None],
    seek: Callable[[], tuple[Any, ...] | None],
    page: int,
    validator: Callable[[], tuple[Any, ...]],
) -> tuple[Any, ...] | None:
    """The key of ``page``'s first row: kept under the section's validator, or
    ``seek()`` and kept. Filled here, or by the index's walk (``lastmods.py``)."""
    current = validator()
    key = key_of(current)
    found = None if key is None else known(key)
    if found is not None and page in found.starts:
        return found.starts[page]
    start = seek()
    # Kept only if the section is still what the validator said before the seek:
    # a change in between would be kept under the validator of before.
    if key is not None and start is not None and validator() == current:
        keep(key, starts={page: start})
    return start
