from __future__ import annotations

import gzip
import io
import os
import random
import threading
import zlib
from collections.abc import Iterator

import pytest
from django.test import override_settings

from django_sitemapkit.encoding.compression import PENDING_CHUNKS, gzip_stream, write_gzip_in_thread

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


def at_level(level: int, data: bytes) -> bytes:
    """One gzip member of ``data`` at ``level``, as zlib writes it (no name, MTIME 0)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def test_the_default_level_is_7() -> None:
    whole = b"".join(DOCUMENT)
    assert b"".join(gzip_stream(DOCUMENT)) == at_level(7, whole)


@pytest.mark.parametrize("level", [1, 6, 7, 9])
def test_the_configured_level(level: int) -> None:
    whole = b"".join(DOCUMENT)
    with override_settings(SITEMAPKIT_GZIP_LEVEL=level):
        compressed = b"".join(gzip_stream(DOCUMENT))
        threaded = io.BytesIO()
        write_gzip_in_thread(DOCUMENT, threaded)
    assert compressed == threaded.getvalue() == at_level(level, whole)
    assert gzip.decompress(compressed) == whole
    # RFC 1952 section 2.3: XFL says 4 for the fastest level, 2 for the slowest.
    assert compressed[8] == {1: 4, 6: 0, 7: 0, 9: 2}[level]


def test_a_level_given_is_used_whatever_the_setting() -> None:
    with override_settings(SITEMAPKIT_GZIP_LEVEL=1):
        assert b"".join(gzip_stream(DOCUMENT, level=9)) == at_level(9, b"".join(DOCUMENT))


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


def mixed_chunks(count: int) -> list[bytes]:
    generator = random.Random(4)
    return [
        generator.choice([b"<url>x</url>\n" * generator.randint(0, 9_000), os.urandom(70_000)])
        for _ in range(count)
    ]


def test_a_second_thread_writes_the_bytes_of_gzip_stream() -> None:
    chunks = mixed_chunks(3 * PENDING_CHUNKS)
    file = io.BytesIO()
    write_gzip_in_thread(chunks, file)
    assert file.getvalue() == b"".join(gzip_stream(chunks))
    assert gzip.decompress(file.getvalue()) == b"".join(chunks)


def test_an_error_making_the_chunks_stops_the_thread() -> None:
    def failing() -> Iterator[bytes]:
        yield from mixed_chunks(2 * PENDING_CHUNKS)
        raise KeyboardInterrupt

    threads = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        write_gzip_in_thread(failing(), io.BytesIO())
    assert threading.active_count() == threads


class FullFile(io.BytesIO):
    """A file that fails as a full disk does, after ``room`` bytes."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def write(self, data: bytes) -> int:  # type: ignore[override]
        if self.tell() + len(data) > self.room:
            raise OSError(28, "No space left on device")
        return super().write(data)


def test_an_error_writing_in_the_thread_reaches_the_caller() -> None:
    made = 0

    def chunks() -> Iterator[bytes]:
        nonlocal made
        for chunk in mixed_chunks(40 * PENDING_CHUNKS):
            made += 1
            yield chunk

    with pytest.raises(OSError, match="No space left on device"):
        write_gzip_in_thread(chunks(), FullFile(room=200_000))
    # The producer stopped soon after, not at the end of its chunks.
    assert made < 10 * PENDING_CHUNKS
