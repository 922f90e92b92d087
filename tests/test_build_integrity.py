"""build/integrity.py through ``build_sitemaps``: a published file damaged where it lies
(cut short, a byte changed, a link or a FIFO put in its place) is never kept, by an
incremental build, ``--full`` or ``--validate``; the next build writes it afresh."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot
from django.core.management import CommandError, call_command
from factories import bulk_articles
from sitemap_xml import parse_index
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.integrity import inflated_digest
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
PAGE = "sitemap-articles-2.xml"
SITE = "https://www.example.com"
NOT_KEPT = ": it is not kept, and the build writes it afresh."
MODES = {
    "incremental": {},
    "--full": {"full": True},
    "--validate --full": {"validate": True, "full": True},
}


class SmallPages(ArticleSource):
    limit = 2


def build(output: Path, **options: Any) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0, **options)


@pytest.fixture
def published(sources: Sources, out: Path, tmp_path: Path) -> dict[str, bytes]:
    """A set of three article pages and a page of static pages in ``out``, and the files
    a build of the same rows writes (the manifest but for its times)."""
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    build(out)
    build(tmp_path / "fresh")
    return snapshot(tmp_path / "fresh", built=False)


def file_type(path: Path) -> str:
    if path.is_symlink():
        return "a link"
    return "a file" if path.is_file() else "something else"


def later_than_the_manifest(out: Path, name: str) -> None:
    """Date ``name`` a second after its set was published, as damage done later is: the
    file system's clock ticks by milliseconds, so a test does not wait for it."""
    published = (out / MANIFEST_FILENAME).stat().st_mtime_ns
    os.utime(out / name, ns=(published + 10**9, published + 10**9), follow_symlinks=False)


def cut_short(out: Path, tmp_path: Path) -> str:
    size = (out / PAGE).stat().st_size
    with open(out / PAGE, "r+b") as page:
        page.truncate(size // 2)
    return f"{PAGE} in {out} has {size // 2:,} bytes where the manifest records {size:,}"


def remove(out: Path, tmp_path: Path) -> str:
    (out / PAGE).unlink()
    return f"{PAGE} in {out} is missing"


def flip_a_gzip_byte(out: Path, tmp_path: Path) -> str:
    name = PAGE + ".gz"
    with open(out / name, "r+b") as compressed:
        compressed.seek(40)
        byte = compressed.read(1)
        compressed.seek(40)
        compressed.write(bytes([byte[0] ^ 0x01]))
    later_than_the_manifest(out, name)
    return f"{name} in {out} was modified after its set was published"


def link_outside(out: Path, tmp_path: Path) -> str:
    # A file the web server must never serve, of the very size of the page.
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"s" * (out / PAGE).stat().st_size)
    (out / PAGE).unlink()
    (out / PAGE).symlink_to(secret)
    return f"{PAGE} in {out} is a symbolic link, not a regular file"


def link_to_another_page(out: Path, tmp_path: Path) -> str:
    (out / PAGE).unlink()
    (out / PAGE).symlink_to("sitemap-articles-1.xml")
    return f"{PAGE} in {out} is a symbolic link, not a regular file"


def plant_a_fifo(out: Path, tmp_path: Path) -> str:
    # Read, it would block the build for ever: it is never opened.
    (out / PAGE).unlink()
    os.mkfifo(out / PAGE)
    return f"{PAGE} in {out} is a FIFO, not a regular file"


def plant_a_directory(out: Path, tmp_path: Path) -> str:
    (out / PAGE).unlink()
    (out / PAGE).mkdir()
    return f"{PAGE} in {out} is a directory, not a regular file"


DAMAGES = {
    "cut short": cut_short,
    "removed": remove,
    "a byte of its .gz flipped": flip_a_gzip_byte,
    "a link to a file outside": link_outside,
    "a link to another page": link_to_another_page,
    "a FIFO": plant_a_fifo,
    "a directory": plant_a_directory,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_file_is_written_afresh(
    published: dict[str, bytes],
    out: Path,
    tmp_path: Path,
    damage: str,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    problem = DAMAGES[damage](out, tmp_path)
    build(out, **MODES[mode])
    # Every file as a fresh build writes it, each a file of the set's own
    # directory: nothing is a link, nor a hard link to a file outside it.
    current = out.resolve()
    assert {name: file_type(current / name) for name in published} == dict.fromkeys(
        published, "a file"
    )
    assert snapshot(out, built=False) == published
    assert (tmp_path / "secret.txt").exists() is (damage == "a link to a file outside")
    if damage == "a link to a file outside":
        assert (tmp_path / "secret.txt").stat().st_nlink == 1
    assert caplog.messages == [problem + NOT_KEPT]


def test_a_build_after_the_repair_keeps_every_file(
    published: dict[str, bytes], out: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cut_short(out, tmp_path)
    build(out)
    caplog.clear()
    build(out)
    assert snapshot(out, built=False) == published
    assert caplog.messages == []


@pytest.mark.parametrize("mode", ["--full", "--validate"])
def test_a_change_that_keeps_size_and_time_is_found_by_reading_the_file(
    published: dict[str, bytes],
    out: Path,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    name = PAGE + ".gz"
    before = os.stat(out / name)
    content = bytearray((out / name).read_bytes())
    content[40] ^= 0x01
    (out / name).write_bytes(content)
    os.utime(out / name, ns=(before.st_atime_ns, before.st_mtime_ns))
    # What an incremental build looks at is as recorded: the file is kept
    # (docs/build.md, "What a build checks").
    build(out)
    assert caplog.messages == []
    assert (out / name).read_bytes() == content
    build(out, **{mode.lstrip("-"): True})
    assert snapshot(out, built=False) == published
    assert caplog.messages == [
        f"{name} in {out} does not decompress to the bytes the manifest records (SHA-256)"
        + NOT_KEPT
    ]


def test_a_page_read_back_must_hold_the_recorded_bytes(
    published: dict[str, bytes], out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    before = os.stat(out / PAGE)
    content = (out / PAGE).read_bytes().replace(b"article-", b"articlE-", 1)
    (out / PAGE).write_bytes(content)
    os.utime(out / PAGE, ns=(before.st_atime_ns, before.st_mtime_ns))
    build(out, full=True)
    assert snapshot(out, built=False) == published
    assert caplog.messages == [
        f"{PAGE} in {out} does not hold the bytes the manifest records (SHA-256)" + NOT_KEPT
    ]


def test_a_section_build_renders_another_sections_damaged_file(
    published: dict[str, bytes], out: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    problem = cut_short(out, tmp_path)
    build(out, section=["pages"])
    assert snapshot(out, built=False) == published
    assert caplog.messages == [problem + NOT_KEPT]


def test_validate_reads_the_kept_files_too(
    published: dict[str, bytes], out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A kept page that breaks the schema, recorded as it is: what an older
    # release, or a bug, would leave. Its rows are as they were, so it is kept.
    page = (out / PAGE).read_bytes().replace(b"<priority>0.6</priority>", b"<priority>2</priority>")
    (out / PAGE).write_bytes(page)
    (out / f"{PAGE}.gz").write_bytes(gzip.compress(page, mtime=0))
    manifest = json.loads((out / MANIFEST_FILENAME).read_bytes())
    (recorded,) = [f for shard in manifest["shards"] for f in shard["files"] if f["name"] == PAGE]
    recorded["sha256"] = hashlib.sha256(page).hexdigest()
    recorded["size"] = len(page)
    recorded["gzip_size"] = (out / f"{PAGE}.gz").stat().st_size
    (out / MANIFEST_FILENAME).write_text(json.dumps(manifest))
    with pytest.raises(CommandError) as raised:
        build(out, validate=True)
    assert str(raised.value).startswith(f"{PAGE} is not valid against sitemap.xsd: ")
    assert caplog.messages == []
    # Rendered again, it is what a fresh build writes; its bytes are not those the
    # manifest recorded, so the index dates it by this build (dates.py).
    build(out, full=True, validate=True)
    index = dict(parse_index((out / "sitemap.xml").read_bytes()))
    fresh = dict(parse_index(published["sitemap.xml"]))
    assert index.keys() == fresh.keys()
    assert [loc for loc in index if index[loc] != fresh[loc]] == [f"{SITE}/{PAGE}"]
    moved, was = index[f"{SITE}/{PAGE}"], fresh[f"{SITE}/{PAGE}"]
    assert moved is not None
    assert was is not None
    assert moved > was
    indexes = {"sitemap.xml", "sitemap.xml.gz", MANIFEST_FILENAME}
    assert {n: b for n, b in snapshot(out).items() if n not in indexes} == {
        n: b for n, b in published.items() if n not in indexes
    }


@pytest.mark.parametrize(
    ("compressed", "size", "verdict"),
    [
        (gzip.compress(b"x" * 100, mtime=0), 100, "whole"),
        (gzip.compress(b"x" * 100, mtime=0)[:-4], 100, None),
        (gzip.compress(b"x" * 100, mtime=0) + b"\0", 100, None),
        (gzip.compress(b"x" * 100, mtime=0), 99, None),
        # Some 400 kilobytes that would decompress to 100 MB stop at 101 bytes (made in
        # the test, not at every collection of this module).
        (None, 100, None),
    ],
)
def test_a_gz_is_read_whole_and_no_further_than_its_recorded_size(
    compressed: bytes | None, size: int, verdict: str | None
) -> None:
    if compressed is None:
        compressed = zeros_gzip(100_000_000)
    found = inflated_digest([compressed[:7], compressed[7:]], size)
    if verdict is None:
        assert found is None
    else:
        assert found == hashlib.sha256(b"x" * 100).hexdigest()


def zeros_gzip(size: int) -> bytes:
    """A gzip member of ``size`` zero bytes, compressed a megabyte at a time at level 1
    (half gzip.compress()'s level 9 time)."""
    compressor = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    parts.append(compressor.compress(bytes(size % (1 << 20))))
    return b"".join(parts) + compressor.flush()
