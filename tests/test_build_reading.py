"""reading.py and schema.py through ``build_sitemaps``: a published manifest that is not
what a build writes (a value of the wrong type or range, a key of the wrong arity, a
FIFO, a link to /dev/zero, a file too large) is set aside with one line in the log,
and every file rendered afresh."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot, without_times
from django.core.files.base import ContentFile
from django.core.files.storage import InMemoryStorage, storages
from django.core.management import call_command
from django.test import override_settings
from factories import bulk_articles
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.manifest import MOST_BYTES
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
AFRESH = "every file is rendered afresh, and the build writes a new one."
DATETIME = "a date and time with its UTC offset, as a build writes it"
LASTMOD = "a lastmod as a build writes it (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)"
Change = Callable[[dict[str, Any]], None]
FILE_KEYS = ["gzip_sha256", "gzip_size", "name", "newest", "sha256", "size", "urls"]
DATED_KEYS = sorted([*FILE_KEYS, "lastmod"])


class SmallPages(ArticleSource):
    limit = 2


def build(output: Path, **options: Any) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0, **options)


@pytest.fixture
def built(sources: Sources, out: Path) -> dict[str, bytes]:
    """A set of three article shards and the pages, as the build wrote it."""
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    build(out)
    return snapshot(out, built=False)


def rewritten(out: Path, change: Change) -> None:
    path = out / MANIFEST_FILENAME
    data = json.loads(path.read_bytes())
    change(data)
    path.write_text(json.dumps(data))


def article(data: dict[str, Any], number: int) -> dict[str, Any]:
    shard: dict[str, Any] = [s for s in data["shards"] if s["section"] == "articles"][number]
    return shard


def at(data: dict[str, Any], key: str, value: Any) -> None:
    data[key] = value


def shard_at(number: int, key: str, value: Any) -> Change:
    return lambda data: article(data, number).__setitem__(key, value)


def lows(*values: list[int]) -> Change:
    """The articles' shards after the first start at ``values``."""

    def change(data: dict[str, Any]) -> None:
        for number, low in enumerate(values, 1):
            article(data, number)["low"] = low

    return change


def file_at(key: str, value: Any) -> Change:
    return lambda data: article(data, 0)["files"][0].__setitem__(key, value)


EVIL = "</lastmod></sitemap><sitemap><loc>https://evil.example/x</loc><lastmod>2024-05-01"
CASES: list[tuple[str, Change, str]] = [
    (
        "full_check-not-iso",
        lambda data: at(data, "full_check", "yesterday"),
        f"full_check is 'yesterday', not {DATETIME}",
    ),
    (
        "full_check-naive",
        lambda data: at(data, "full_check", "2024-05-01T00:00:00"),
        f"full_check is '2024-05-01T00:00:00', not {DATETIME}",
    ),
    (
        "rows-a-string",
        shard_at(0, "rows", "2"),
        "shards[0].rows is '2', not a whole number from 0 to 9,223,372,036,854,775,807",
    ),
    (
        "urls-a-string",
        file_at("urls", "2"),
        "shards[0].files[0].urls is '2', not a whole number from 1 to 50,000",
    ),
    (
        "urls-true",
        file_at("urls", True),
        "shards[0].files[0].urls is True, not a whole number from 1 to 50,000",
    ),
    (
        "newest-markup",
        file_at("newest", EVIL),
        f"shards[0].files[0].newest is {EVIL!r:.79}…, not {LASTMOD}",
    ),
    (
        "newest-garbage",
        file_at("newest", "2024-13-45"),
        f"shards[0].files[0].newest is '2024-13-45', not {LASTMOD}",
    ),
    (
        "stats-rows-a-string",
        lambda data: article(data, 1)["stats"].__setitem__("rows", "2"),
        "shards[1].stats.rows is '2', not a whole number from 0 to 9,223,372,036,854,775,807",
    ),
    (
        "low-a-string",
        shard_at(1, "low", "3"),
        "shards[1].low is '3', not a list of 1 to 16 key values",
    ),
    (
        "low-not-a-key-value",
        shard_at(1, "low", [[3]]),
        "shards[1].low[0] is [3], not a key value as a build writes it",
    ),
    (
        "low-a-bad-decimal",
        shard_at(1, "low", [{"decimal": "three"}]),
        "shards[1].low[0] is {'decimal': 'three'}, not a key value as a build writes it",
    ),
    (
        "low-of-the-wrong-type",
        shard_at(1, "low", ["3"]),
        "shards[1].low is ('3',), no key of 'articles'",
    ),
    (
        "low-of-the-wrong-arity",
        lows([3, 4], [5, 6]),
        "shards[1].low is (3, 4), no key of 'articles'",
    ),
    (
        "lastmod-garbage",
        file_at("lastmod", "soon"),
        f"shards[0].files[0].lastmod is 'soon', not {LASTMOD}",
    ),
    (
        # A file is never dated before its newest row (build/dates.py).
        "lastmod-before-newest",
        lambda data: article(data, 0)["files"][0].update(newest="2024-05-01", lastmod="2024-04-30"),
        "shards[0].files[0].lastmod is '2024-04-30', not None or a lastmod no earlier than "
        "newest ('2024-05-01')",
    ),
    (
        "lastmod-without-newest",
        lambda data: article(data, 0)["files"][0].update(newest=None, lastmod="2024-04-30"),
        "shards[0].files[0].lastmod is '2024-04-30', not None or a lastmod no earlier than "
        "newest (None)",
    ),
    (
        "lastmod-missing",
        lambda data: article(data, 0)["files"][0].pop("lastmod"),
        f"shards[0].files[0] has the keys {FILE_KEYS}, not {DATED_KEYS}",
    ),
    (
        # Format 2 had no date of a file's own: one with it is no such manifest.
        "format-2-with-lastmod",
        lambda data: at(data, "format", 2),
        f"shards[0].files[0] has the keys {DATED_KEYS}, not {FILE_KEYS}",
    ),
    (
        "format-4",
        lambda data: at(data, "format", 4),
        "format is 4: this version reads 2 and 3",
    ),
    (
        "first-low-not-none",
        shard_at(0, "low", [1]),
        "shards[0].low is (1,), not None: a section's first shard",
    ),
]


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
@pytest.mark.parametrize(
    ("change", "reason"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_a_manifest_of_the_wrong_types_is_set_aside(
    built: dict[str, bytes],
    out: Path,
    caplog: pytest.LogCaptureFixture,
    change: Change,
    reason: str,
    full: bool,
) -> None:
    rewritten(out, change)
    build(out, full=full)
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in {out} cannot be read (Invalid: {reason}): {AFRESH}"
    ]
    assert snapshot(out, built=False) == built


def test_a_fifo_is_set_aside_without_waiting_for_a_writer(
    built: dict[str, bytes], out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (out / MANIFEST_FILENAME).unlink()
    os.mkfifo(out / MANIFEST_FILENAME)
    build(out)
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in {out} cannot be read (Unreadable: a FIFO, a device or a "
        f"directory, not a regular file): {AFRESH}"
    ]
    assert snapshot(out, built=False) == built


@pytest.fixture
def memory_bound() -> Iterator[None]:
    """Address space for 512 MiB more than now: a build that read /dev/zero to the end
    fails with MemoryError instead of taking the machine's memory."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        size = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (size + 512 * 2**20, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_a_link_to_dev_zero_is_set_aside_unread(
    built: dict[str, bytes], out: Path, caplog: pytest.LogCaptureFixture, memory_bound: None
) -> None:
    (out / MANIFEST_FILENAME).unlink()
    (out / MANIFEST_FILENAME).symlink_to("/dev/zero")
    build(out)
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in {out} cannot be read (Unreadable: a symbolic link or a "
        f"socket, not a regular file): {AFRESH}"
    ]
    assert snapshot(out, built=False) == built


def oversize(content: bytes) -> bytes:
    """``content`` followed by white space, which JSON allows, to one byte past the bound."""
    return content + b" " * (MOST_BYTES + 1 - len(content))


def test_a_manifest_too_large_is_set_aside_unparsed(
    built: dict[str, bytes], out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = out / MANIFEST_FILENAME
    path.write_bytes(oversize(path.read_bytes()))
    build(out)
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in {out} cannot be read (Unreadable: more than "
        f"{MOST_BYTES:,} bytes): {AFRESH}"
    ]
    assert snapshot(out, built=False) == built


def test_a_storage_s_manifest_too_large_is_set_aside_unread(
    sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    stores = {"sitemaps": {"BACKEND": "django.core.files.storage.InMemoryStorage"}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        storage = storages["sitemaps"]
        assert isinstance(storage, InMemoryStorage)
        call_command("build_sitemaps", verbosity=0)
        before = stored(storage)
        with storage.open(MANIFEST_FILENAME) as manifest:
            content = oversize(manifest.read())
        storage.delete(MANIFEST_FILENAME)
        storage.save(MANIFEST_FILENAME, ContentFile(content))
        call_command("build_sitemaps", verbosity=0)
        assert stored(storage) == before
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in storage 'sitemaps' cannot be read (Unreadable: "
        f"{MOST_BYTES + 1:,} bytes, more than {MOST_BYTES:,}): {AFRESH}"
    ]


def stored(storage: InMemoryStorage) -> dict[str, bytes]:
    _, names = storage.listdir("")
    found = {}
    for name in names:
        with storage.open(name) as file:
            found[name] = file.read()
    return without_times(found)
