"""The one rule of the optional values of a ``<url>`` (``lastmod``, ``changefreq``,
``priority``): each is read once, and one that is invalid or cannot be written is
left out of its entry, which is kept; only the location decides whether a row
gives an entry. Search engines read a URL without them (Google and Bing ignore
``changefreq`` and ``priority`` altogether), so losing a valid ``<loc>`` to one
is the worst outcome.

The declared sources' writer, the drop-in and the Wagtail fallback read their
values here; the writer that catches ``LeftOut`` logs it (``skips.keep_made()``)
and keeps what it carries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from django_sitemapkit.exceptions import InvalidEntry


class LeftOut(InvalidEntry):
    """What a row gave without the optional values it could not have (``made``: its
    entry, or its entries, or the values read), and why each was left out: raised by
    the readers for the writer to log (``keep_made()``) and keep. As an
    ``InvalidEntry``, a caller that does not know it skips the row, as before."""

    def __init__(self, made: Any, reasons: tuple[tuple[str, str], ...]) -> None:
        super().__init__("; ".join(reason for _, reason in reasons))
        self.made = made
        #: (the value's name, why it was left out), in the order read.
        self.reasons = reasons


Optional = Callable[[Any], "str | None"]
Pair = Callable[[Any], "list[str | None]"]


def optional_values(readers: tuple[tuple[str, Optional], ...], unit: Any) -> list[str | None]:
    """The text of each of ``unit``'s optional values, by each ``(name, reader)``:
    ``LeftOut`` with ``None`` for those that are invalid, the others read once (the
    project's methods are never called twice). The one rule of every writer, the
    drop-in's too: an optional value costs itself, never the URL."""
    texts: list[str | None] = []
    append = texts.append
    try:
        # One try around the loop, no test per value: the commonest case is every
        # value valid.
        for _, read in readers:
            append(read(unit))
    except InvalidEntry as exc:
        leave_out(readers, unit, texts, exc)
    return texts


def leave_out(
    readers: tuple[tuple[str, Optional], ...],
    unit: Any,
    texts: list[str | None],
    exc: InvalidEntry,
) -> NoReturn:
    """``LeftOut`` for ``unit``, whose value after ``texts`` raised ``exc``: the values
    after it read, each invalid one ``None`` with its reason."""
    reasons = [(readers[len(texts)][0], str(exc))]
    texts.append(None)
    for name, read in readers[len(texts) :]:
        try:
            texts.append(read(unit))
        except InvalidEntry as more:
            texts.append(None)
            reasons.append((name, str(more)))
    raise LeftOut(tuple(texts), tuple(reasons))


def optional_pair(read_changefreq: Optional, read_priority: Optional) -> Pair:
    """A row's ``[changefreq, priority]`` texts, as ``optional_values()`` reads them,
    its loop unrolled: the row-by-row loop calls it for every row, and this costs
    some 30 ns a row over the two readers' own calls (timeit, Python 3.13)."""
    readers = (("changefreq", read_changefreq), ("priority", read_priority))

    def read(row: Any) -> list[str | None]:
        texts: list[str | None] = []
        try:
            texts.append(read_changefreq(row))
            texts.append(read_priority(row))
        except InvalidEntry as exc:
            leave_out(readers, row, texts, exc)
        return texts

    return read
