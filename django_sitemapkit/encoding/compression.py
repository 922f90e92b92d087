"""Deterministic gzip, streamed: the same bytes in always give the same bytes out."""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from django_sitemapkit.conf import conf

# zlib writes a gzip member (RFC 1952) when wbits is 16 + 15. Its header has
# MTIME 0 and no FNAME field, so an unchanged document compresses to
# identical bytes, whenever and wherever it is built.
GZIP_WBITS = 16 + zlib.MAX_WBITS
# Chunks (of about 64 KiB) that may wait for the compressing thread.
PENDING_CHUNKS = 8


class Writable(Protocol):
    def write(self, data: bytes, /) -> int: ...


def gzip_compressor(level: int | None = None) -> Any:
    """A compressor for one gzip member, at ``level`` or ``SITEMAPKIT_GZIP_LEVEL``; the
    same chunks fed in at the same level give the same bytes out.

    The level is part of the bytes: a build's settings fingerprint records it
    (build/fingerprints.py), so a set built at another level is rendered again.
    Built files and the views' streamed ``.xml.gz`` use the same level, so a
    document's gzip bytes are the same wherever it is served from.
    """
    return zlib.compressobj(conf.GZIP_LEVEL if level is None else level, zlib.DEFLATED, GZIP_WBITS)


def gzip_stream(chunks: Iterable[bytes], level: int | None = None) -> Iterator[bytes]:
    """Compress ``chunks`` into one gzip member, yielding output as it is produced."""
    compressor = gzip_compressor(level)
    for chunk in chunks:
        output = compressor.compress(chunk)
        if output:
            yield output
    yield compressor.flush()


def write_gzip_in_thread(chunks: Iterable[bytes], file: Writable, level: int | None = None) -> None:
    """Write the gzip of ``chunks`` to ``file``, compressing on a second thread.

    zlib releases the GIL while it deflates, so on a machine with two cores
    the compression runs beside whatever produces the chunks. The same
    compressor takes the same chunks in the same order: the bytes are those
    ``gzip_stream()`` yields. At most ``PENDING_CHUNKS`` chunks wait for the
    thread, so memory stays flat; an error on either side stops both.
    """
    compressor = gzip_compressor(level)

    def compress(chunk: bytes) -> None:
        file.write(compressor.compress(chunk))

    def finish() -> None:
        file.write(compressor.flush())

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="sitemapkit-gzip") as worker:
        pending: deque[Future[None]] = deque()
        for chunk in chunks:
            pending.append(worker.submit(compress, chunk))
            if len(pending) > PENDING_CHUNKS:
                pending.popleft().result()
        pending.append(worker.submit(finish))
        for future in pending:
            future.result()
