"""A contrib class's items as its pages' units: counted and sliced as Django's
``Paginator`` does for contrib, a QuerySet in the database and read a chunk at a
time, and ``(item, language)`` pairs worked out from the items that hold them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import QuerySet
from django.http import Http404

from django_sitemapkit.sources.rows import close_iterator


def page_number(paginator: Paginator[Any], value: object) -> int:
    """``?p=`` as contrib reads it, with contrib's 404s (not a number, out of range)."""
    try:
        return paginator.validate_number(value)  # type: ignore[arg-type]
    except PageNotAnInteger as exc:
        raise Http404(f"No page '{value}'") from exc
    except EmptyPage as exc:
        raise Http404(f"Page {value} empty") from exc


def count_of(items: Any) -> int:
    """``items`` counted as Django's ``Paginator`` counts them."""
    return Paginator(items, 1).count


def sliced(items: Any, first: int, stop: int, chunk_size: int) -> Iterator[Any]:
    """``items[first:stop]``: a QuerySet sliced in the database and read in chunks."""
    part = items[first:stop]
    if isinstance(part, QuerySet):
        return part.iterator(chunk_size=chunk_size)
    return iter(part)


def paired(
    items: Any, languages: Sequence[str], first: int, stop: int, chunk_size: int
) -> Iterator[tuple[Any, str]]:
    """Pairs ``first`` to ``stop`` of ``(item, language)`` for each item and each of
    ``languages``: read from the items that hold them."""
    width = len(languages)
    start_item, end_item = first // width, -(-stop // width)
    rows = sliced(items, start_item, end_item, chunk_size)
    try:
        position = start_item * width
        for item in rows:
            for code in languages:
                if first <= position < stop:
                    yield item, code
                position += 1
    finally:
        close_iterator(rows)
