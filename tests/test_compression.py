from __future__ import annotations

import gzip
import os
from collections.abc import Iterator

from django_sitemapkit.compression import gzip_stream

DOCUMENT = [
    b"<urlset>\n",
    b"<url><loc>https://www.example.com/a/</loc></url>\n" * 5_000,
    b"</urlset>\n",
]


def test_round_trip() -> None:
    assert gzip.decompress(b"".join(gzip_stream(DOCUMENT))) == b"".join(DOCUMENT)


def test_same_bytes_however_the_input_is_chunked() -> None:
    whole = b"".join(DOCUMENT)
    one_chunk = b"".join(gzip_stream([whole]))
    byte_chunks = b"".join(gzip_stream(whole[i : i + 7] for i in range(0, len(whole), 7)))
    assert one_chunk == byte_chunks


def test_header_has_no_time_and_no_file_name() -> None:
    header = b"".join(gzip_stream(DOCUMENT))[:10]
    # RFC 1952 section 2.3: ID1 ID2 CM FLG MTIME(4) XFL OS.
    assert header[:4] == b"\x1f\x8b\x08\x00"
    assert header[4:8] == bytes(4)


def test_empty_input_is_a_valid_member() -> None:
    assert gzip.decompress(b"".join(gzip_stream([]))) == b""


def test_output_comes_before_the_input_ends() -> None:
    consumed = 0

    def chunks() -> Iterator[bytes]:
        nonlocal consumed
        for _ in range(64):
            consumed += 1
            yield os.urandom(16_384)  # incompressible, so zlib must emit as it goes

    first = next(gzip_stream(chunks()))
    assert first
    assert consumed < 64
