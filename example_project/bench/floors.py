"""The floors: the same page (and the same build) written by hand, the least the
ORM can do and, below it, the DB-API cursor; exactly the bytes of the package's
page view (the command compares them)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django.db import connection

from bench.measuring import Case, Outcome, Sink
from bench.models import Page
from bench.sizes import Plan
from bench.sources import base_url, warm_process

# Rows per database round trip in the floors: the package's default CHUNK_SIZE.
ROW_CHUNK = 2_000
# The floors hand out the document in pieces of about this size, as the
# package's encoder does, so a streaming response has the same shape.
CHUNK_BYTES = 64 * 1024

URLSET_OPENING = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)
URLSET_CLOSING = "</urlset>\n"


def iso_lastmod(value: dt.datetime) -> str:
    """W3C form of an aware datetime, to the second, in UTC."""
    return value.astimezone(dt.timezone.utc).isoformat(timespec="seconds")


def sqlite_text_lastmod(text: str) -> str:
    # Django stores "YYYY-MM-DD hh:mm:ss[.ffffff]", in UTC, on SQLite.
    return text[:10] + "T" + text[11:19] + "+00:00"


def urlset_chunks(
    rows: Iterable[tuple[str, Any]], lastmod: Callable[[Any], str]
) -> Iterator[bytes]:
    """The floors' writer: one f-string per row, joined into ~64 KiB chunks.

    The bytes are meant to be exactly those of the package's page view.
    """
    prefix = f"<url><loc>{base_url()}/bench/"
    suffix = "<changefreq>daily</changefreq><priority>0.5</priority></url>\n"
    parts = [URLSET_OPENING]
    size = len(URLSET_OPENING)
    for slug, updated_at in rows:
        line = f"{prefix}{xml_escape(slug)}/</loc><lastmod>{lastmod(updated_at)}</lastmod>{suffix}"
        parts.append(line)
        size += len(line)  # every character is ASCII, so characters are bytes
        if size >= CHUNK_BYTES:
            yield "".join(parts).encode()
            parts, size = [], 0
    parts.append(URLSET_CLOSING)
    yield "".join(parts).encode()


def xml_escape(text: str) -> str:
    # A slug never holds one of these, but a correct writer checks anyway.
    if "&" in text or "<" in text or ">" in text:
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def orm_rows(offset: int, size: int | None) -> Iterator[tuple[str, Any]]:
    queryset = Page.objects.order_by("pk").values_list("slug", "updated_at")
    stop = None if size is None else offset + size
    rows: Iterator[tuple[str, Any]] = queryset[offset:stop].iterator(chunk_size=ROW_CHUNK)
    return rows


class OrmFloor:
    """The least the ORM can do: a values_list() iterator and an f-string per row."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def setup(self) -> None:
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        sink = Sink(started, check)
        for chunk in urlset_chunks(orm_rows(0, self.page_size), iso_lastmod):
            sink.take(chunk)
        return sink.outcome(time.perf_counter() - started)


class CursorFloor:
    """Below the ORM: hand-written SQL on the DB-API cursor, no model layer at all."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size

    def setup(self) -> None:
        warm_process()
        self.sql, self.lastmod = cursor_query(connection.vendor)

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        sink = Sink(started, check)
        with connection.cursor() as cursor:
            native_timestamptz(cursor)
            cursor.execute(self.sql, [self.page_size])
            for chunk in urlset_chunks(fetched(cursor), self.lastmod):
                sink.take(chunk)
        return sink.outcome(time.perf_counter() - started)


def cursor_query(vendor: str) -> tuple[str, Callable[[Any], str]]:
    """The cursor floor's SQL, and how it turns the ``updated_at`` it gets into a lastmod."""
    if vendor == "postgresql":
        # psycopg hands back aware datetimes (see native_timestamptz()).
        return "SELECT slug, updated_at FROM bench_page ORDER BY id LIMIT %s", iso_lastmod
    # Django's SQLite connection parses every column declared "datetime" into a
    # datetime object; a CAST has no declared type, so the stored text comes
    # back as it is, and slicing it beats parsing it only to print it again.
    return (
        "SELECT slug, CAST(updated_at AS TEXT) FROM bench_page ORDER BY id LIMIT %s",
        sqlite_text_lastmod,
    )


def native_timestamptz(cursor: Any) -> None:
    """On PostgreSQL, psycopg's own (compiled) timestamptz loader, not Django's.

    Django registers a subclass of psycopg's Python loader on every
    connection, several times slower per value; a floor takes the fastest.
    """
    if connection.vendor != "postgresql":
        return
    from psycopg import adapters, postgres, pq

    oid = postgres.types["timestamptz"].oid
    cursor.cursor.adapters.register_loader(oid, adapters.get_loader(oid, pq.Format.TEXT))


def fetched(cursor: Any) -> Iterator[tuple[str, Any]]:
    while rows := cursor.fetchmany(ROW_CHUNK):
        yield from rows


def orm_floor(plan: Plan) -> Case:
    return OrmFloor(plan.serve_size)


def cursor_floor(plan: Plan) -> Case:
    return CursorFloor(plan.serve_size)
