"""The pages a view could not answer (every row skipped, so a 404; or rows whose
reading raised), kept per process under their section's aggregate, so that the
index leaves them out until the section's rows change.

The index reads no rows to know it: a page is found out by the request for it,
which pays for one more aggregate, on that failure only. Until then (and in a
process that has not answered it) the index lists it; ``check --deploy``
(``sitemapkit.E118``) and the build find such sections before a crawler does.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

#: Sections kept (least recently used first out).
KEPT_SECTIONS = 256

#: (base URL, section, page size) -> (the section's fingerprint, its pages).
_pages: OrderedDict[tuple[str, str, int], tuple[Any, frozenset[int]]] = OrderedDict()
_lock = Lock()


def note(base_url: str, section: str, page_size: int, fingerprint: Any, page: int) -> None:
    """Keep ``page`` as one the index is not to list while ``fingerprint`` holds."""
    key = (base_url, section, page_size)
    with _lock:
        before = _pages.get(key)
        pages = before[1] if before is not None and before[0] == fingerprint else frozenset()
        _pages[key] = (fingerprint, pages | {page})
        _pages.move_to_end(key)
        while len(_pages) > KEPT_SECTIONS:
            _pages.popitem(last=False)


def unanswered(base_url: str, section: str, page_size: int, fingerprint: Any) -> frozenset[int]:
    """The pages of the section, under ``fingerprint``, that a view could not answer."""
    with _lock:
        found = _pages.get((base_url, section, page_size))
    return found[1] if found is not None and found[0] == fingerprint else frozenset()


def signature(base_url: str) -> tuple[Any, ...]:
    """What is kept for the site, for the index's validator: a page left out changes
    the index, as its rows would."""
    with _lock:
        return tuple(
            (key[1], key[2], sorted(pages))
            for key, (_, pages) in sorted(_pages.items(), key=lambda item: item[0])
            if key[0] == base_url
        )


def forget() -> None:
    with _lock:
        _pages.clear()
