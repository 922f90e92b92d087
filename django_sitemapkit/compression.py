"""Deterministic gzip, streamed: the same bytes in always give the same bytes out."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator

# Files are compressed once and served many times, so the smallest output wins.
LEVEL = 9
# zlib writes a gzip member (RFC 1952) when wbits is 16 + 15. Its header has
# MTIME 0 and no FNAME field, so an unchanged document compresses to
# identical bytes, whenever and wherever it is built.
GZIP_WBITS = 16 + zlib.MAX_WBITS


def gzip_stream(chunks: Iterable[bytes], level: int = LEVEL) -> Iterator[bytes]:
    """Compress ``chunks`` into one gzip member, yielding output as it is produced."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, GZIP_WBITS)
    for chunk in chunks:
        output = compressor.compress(chunk)
        if output:
            yield output
    yield compressor.flush()
