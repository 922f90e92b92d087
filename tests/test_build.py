"""build.py and destinations.py through ``build_sitemaps``: the files on disk and in storages."""

from __future__ import annotations

import datetime as dt
import fcntl
import gzip
import io
import json
import logging
import os
import resource
import select
import signal
import subprocess
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from built_sets import (
    builds,
    current_build,
    leftovers,
    lock_file,
    shard_files,
    snapshot,
    undated,
    without_times,
)
from django.core.files.storage import storages
from django.core.management import CommandError, call_command
from django.db import DatabaseError, close_old_connections, connection, connections
from django.test import Client, override_settings
from factories import ArticleFactory, bulk_articles
from faults import break_connection
from sitemap_xml import Url, fetch, parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build import BuildOptions, failed
from django_sitemapkit.build import build as build_set
from django_sitemapkit.build.directory import destination_for
from django_sitemapkit.encoding.encoder import URLSET
from django_sitemapkit.hosts import default_site
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
Sources = Callable[..., None]


class SmallPages(ArticleSource):
    limit = 2


def build(output: Path, **options: Any) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0, **options)


def assert_previous_set_kept(output: Path, previous: dict[str, bytes]) -> None:
    """What a failed build must leave: the files as they were, and no staged file."""
    assert snapshot(output) == previous
    assert leftovers(output) == []


def view_body(client: Client, name: str) -> bytes:
    status, body, _ = fetch(client, f"/{name}")
    assert status == 200, body[:300]
    return body


def urls_of(directory: Path, *names: str) -> list[Url]:
    return [url for name in names for url in parse_urlset((directory / name).read_bytes())]


# -- what is written -------------------------------------------------------------


def test_build_writes_the_bytes_the_views_serve(
    client: Client, sources: Sources, out: Path
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    build(out)
    pages = ["sitemap-articles-1.xml", "sitemap-articles-2.xml", "sitemap-articles-3.xml"]
    pages.append("sitemap-pages-1.xml")
    files = snapshot(out)
    documents = [*pages, "sitemap.xml"]
    gzipped = [name + ".gz" for name in documents]
    assert sorted(files) == sorted([*documents, *gzipped, MANIFEST_FILENAME])
    for name in documents:
        assert files[name] == view_body(client, name), name
        assert gzip.decompress(files[name + ".gz"]) == files[name]
    assert [loc for loc, _ in parse_index(files["sitemap.xml"])] == [f"{SITE}/{n}" for n in pages]
    assert len(urls_of(out, *pages)) == 7
    # The manifest records each shard of two rows, and the files it was rendered to.
    assert shard_files(out) == [
        ("articles", ["sitemap-articles-1.xml"]),
        ("articles", ["sitemap-articles-2.xml"]),
        ("articles", ["sitemap-articles-3.xml"]),
        ("pages", ["sitemap-pages-1.xml"]),
    ]
    # The output is a link to the build's own directory, beside the lock.
    assert sorted(os.listdir(builds(out))) == [".lock", current_build(out)]


def test_files_are_world_readable(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    build(out)
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.iterdir() if p.name[0] != "."}
    assert set(modes.values()) == {0o644}


def test_an_unchanged_build_gives_identical_bytes_and_leaves_the_files_alone(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(30)
    build(tmp_path / "a")
    first = snapshot(tmp_path / "a")
    mtimes = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()}
    published = current_build(tmp_path / "a")
    build(tmp_path / "a")
    build(tmp_path / "b")
    # Nothing changed, so nothing was published: the same build, manifest and all.
    assert current_build(tmp_path / "a") == published
    assert snapshot(tmp_path / "a") == first
    assert snapshot(tmp_path / "b", built=False) == snapshot(tmp_path / "a", built=False)
    # Unchanged files are not replaced, so their Last-Modified stays put.
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "a").iterdir()} == mtimes


def test_gzip_header_has_no_time_and_no_name(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    build(out)
    header = (out / "sitemap-articles-1.xml.gz").read_bytes()[:10]
    # RFC 1952 section 2.3: ID1 ID2 CM FLG MTIME(4) XFL OS.
    assert header[:3] == b"\x1f\x8b\x08"
    assert header[3] == 0, "no FNAME, FCOMMENT or FEXTRA flag"
    assert header[4:8] == b"\x00\x00\x00\x00", "MTIME is 0"


def test_no_gzip_writes_none_and_removes_old_siblings(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    build(out)
    build(out, gzip=False)
    assert sorted(snapshot(out)) == ["sitemap-articles-1.xml", "sitemap.xml", MANIFEST_FILENAME]


def test_gzip_links_point_the_index_at_the_gz_files(
    client: Client, sources: Sources, out: Path
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(3)
    build(out, gzip_links=True)
    index = (out / "sitemap.xml").read_bytes()
    assert [loc for loc, _ in parse_index(index)] == [
        f"{SITE}/sitemap-articles-1.xml.gz",
        f"{SITE}/sitemap-pages-1.xml.gz",
    ]
    with override_settings(SITEMAPKIT_GZIP_LINKS=True):
        assert index == view_body(client, "sitemap.xml")


def test_index_lastmod_is_the_newest_in_each_file(sources: Sources, out: Path) -> None:
    sources(SmallPages)
    for day in (5, 1, 3):
        ArticleFactory.create(updated_at=dt.datetime(2024, 3, day, 12, tzinfo=dt.timezone.utc))
    build(out)
    assert parse_index((out / "sitemap.xml").read_bytes()) == [
        (f"{SITE}/sitemap-articles-1.xml", "2024-03-05T12:00:00+00:00"),
        (f"{SITE}/sitemap-articles-2.xml", "2024-03-03T12:00:00+00:00"),
    ]


# -- page cuts ------------------------------------------------------------------------


@pytest.mark.parametrize(("rows", "expected"), [(4, [2, 2]), (5, [2, 2, 1]), (1, [1])])
def test_pages_are_cut_at_exactly_the_url_limit(
    sources: Sources, out: Path, rows: int, expected: list[int]
) -> None:
    sources(SmallPages)
    bulk_articles(rows)
    build(out)
    names = [f"sitemap-articles-{n}.xml" for n in range(1, len(expected) + 1)]
    assert [len(urls_of(out, name)) for name in names] == expected
    assert not (out / f"sitemap-articles-{len(expected) + 1}.xml").exists()


def url_lines(body: bytes) -> tuple[bytes, list[bytes], bytes]:
    """Opening (declaration and root tag), one line per <url>, and the closing tag."""
    lines = body.splitlines(keepends=True)
    return b"".join(lines[:2]), lines[2:-1], lines[-1]


@pytest.mark.parametrize("slack", [0, -1])
def test_a_page_ends_before_the_entry_that_would_pass_max_bytes(
    client: Client, sources: Sources, out: Path, slack: int
) -> None:
    sources(ArticleSource)
    bulk_articles(400)
    full = view_body(client, "sitemap-articles-1.xml")
    opening, lines, closing = url_lines(full)
    assert (opening, closing) == (URLSET.opening, URLSET.closing)
    fits = 250
    limit = len(opening) + sum(map(len, lines[:fits])) + len(closing) + slack
    with override_settings(SITEMAPKIT_MAX_BYTES=limit):
        build(out)
    first = (out / "sitemap-articles-1.xml").read_bytes()
    written = fits if slack == 0 else fits - 1
    assert len(first) <= limit
    assert first == opening + b"".join(lines[:written]) + closing
    # Nothing is lost: the next file goes on with the entry that did not fit.
    assert urls_of(out, "sitemap-articles-1.xml", "sitemap-articles-2.xml") == parse_urlset(full)
    assert [loc for loc, _ in parse_index((out / "sitemap.xml").read_bytes())] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-2.xml",
    ]


def test_a_byte_cut_gives_one_shard_several_files_recorded_in_the_manifest(
    sources: Sources, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources(ArticleSource)
    bulk_articles(250)
    with override_settings(SITEMAPKIT_MAX_BYTES=16_384):
        call_command("build_sitemaps", output=str(out))
    names = [f"sitemap-articles-{n}.xml" for n in (1, 2, 3)]
    assert shard_files(out) == [("articles", names)]
    assert len(snapshot(out)) == 9
    # Files mode serves the manifest's set, whatever the pages of the database
    # views: there is nothing to warn of.
    printed = capsys.readouterr()
    assert printed.err == ""
    row = next(line for line in printed.out.splitlines() if line.startswith("articles "))
    assert row.split()[:5] == ["articles", "250", "250", "3", "1/1"]


def test_an_index_past_max_bytes_fails_the_build_and_keeps_the_last_set(
    sources: Sources, out: Path
) -> None:
    sources(SmallPages)
    bulk_articles(40)
    build(out)
    previous = snapshot(out)
    # Each page of two URLs fits in 1,024 bytes; an index of twenty of them does not.
    with override_settings(SITEMAPKIT_MAX_BYTES=1_024), pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == (
        "The index of 20 files passes SITEMAPKIT_MAX_BYTES (1,024 bytes); raise the setting "
        f"or the sources' limit. Nothing was published: the files in {out} are as they were."
    )
    assert_previous_set_kept(out, previous)


def test_a_page_of_invalid_rows_gets_no_file_and_nothing_else_is_lost(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SmallPages)
    made = [ArticleFactory.create(slug=slug) for slug in ["a", "b", "bad/one", "bad/two", "c"]]
    build(out)
    assert [u.loc for u in urls_of(out, "sitemap-articles-1.xml")] == [
        f"{SITE}/articles/a/",
        f"{SITE}/articles/b/",
    ]
    # Each shard is given its name before it is rendered (a distributed build's
    # workers write new files under it): the invalid rows' number goes unused.
    assert [u.loc for u in urls_of(out, "sitemap-articles-3.xml")] == [f"{SITE}/articles/c/"]
    assert not (out / "sitemap-articles-2.xml").exists()
    assert len(parse_index((out / "sitemap.xml").read_bytes())) == 2
    # The shard of the invalid rows is recorded, with no file.
    assert shard_files(out) == [
        ("articles", ["sitemap-articles-1.xml"]),
        ("articles", []),
        ("articles", ["sitemap-articles-3.xml"]),
    ]
    # The second row is skipped for the same reason on the same page: counted, not told.
    first, summary = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert first.startswith(
        f"Skipped pk={made[2].pk} of source 'articles': its URL does not reverse (Reverse for "
        "'article-detail' with keyword arguments '{'slug': 'bad/one'}' not found."
    )
    assert summary == (
        "Skipped 1 more row of source 'articles' on page 2 for the same reason as "
        f"pk={made[2].pk} (2 in all)."
    )


# -- publishing ------------------------------------------------------------------------


def delete_newest(count: int) -> None:
    """Deletes the ``count`` articles of the highest keys."""
    # Keys listed, not a subquery: MySQL refuses a LIMIT inside IN (...).
    newest = list(Article.objects.order_by("-pk").values_list("pk", flat=True)[:count])
    Article.objects.filter(pk__in=newest).delete()


def test_pages_left_from_a_larger_build_are_removed(sources: Sources, out: Path) -> None:
    sources(SmallPages)
    bulk_articles(5)
    build(out)
    assert (out / "sitemap-articles-3.xml").exists()
    delete_newest(3)
    build(out)
    assert sorted(snapshot(out)) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]


def test_a_directory_of_earlier_files_becomes_the_build_before(sources: Sources, out: Path) -> None:
    # As builds wrote before each set had a directory of its own: the files,
    # the lock, and a file staged by a build that died.
    out.mkdir()
    (out / "sitemap.xml").write_bytes(b"earlier index")
    (out / "sitemap-articles-1.xml").write_bytes(b"earlier page")
    (out / ".sitemapkit.lock").write_bytes(b"")
    (out / ".sitemap-articles-1.xml.dead0000.tmp").write_bytes(b"half")
    sources(ArticleSource)
    bulk_articles(2)
    build(out)
    assert sorted(snapshot(out)) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]
    assert len(urls_of(out, "sitemap-articles-1.xml")) == 2
    # The directory was moved whole among the builds, as the one before.
    before = f"{current_build(out)}-before"
    assert sorted(os.listdir(builds(out))) == [".lock", current_build(out), before]
    assert (builds(out) / before / "sitemap.xml").read_bytes() == b"earlier index"


def test_a_directory_holding_other_files_is_refused(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(2)
    out.mkdir()
    (out / "robots.txt").write_text("User-agent: *\n")
    (out / "sitemap-news.txt").write_text("keep")
    with pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == (
        f"{out} holds 'robots.txt', which no build wrote. A build now publishes each set as "
        f"a directory of its own, linked from {out}; move 'robots.txt' elsewhere, then build "
        "again."
    )
    assert not out.is_symlink()
    assert sorted(p.name for p in out.iterdir()) == ["robots.txt", "sitemap-news.txt"]
    assert (out / "robots.txt").read_text() == "User-agent: *\n"


def test_one_section_is_rebuilt_and_the_index_rewritten_to_match(
    sources: Sources, tmp_path: Path
) -> None:
    sources(SmallPages, PagesSource)
    site = tmp_path / "site"
    bulk_articles(2)
    build(site)
    pages_before = (site / "sitemap-pages-1.xml").stat().st_mtime_ns
    bulk_articles(2)
    build(site, section=["articles"])
    assert [loc for loc, _ in parse_index((site / "sitemap.xml").read_bytes())] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-2.xml",
        f"{SITE}/sitemap-pages-1.xml",
    ]
    assert (site / "sitemap-pages-1.xml").stat().st_mtime_ns == pages_before
    # The same set as a full build would write.
    build(tmp_path / "full")
    assert snapshot(site, built=False) == snapshot(tmp_path / "full", built=False)


def test_one_section_needs_an_earlier_set(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    with pytest.raises(CommandError) as raised:
        build(out, section=["articles"])
    assert str(raised.value) == (
        f"There is no set in {out} built with these settings to update one section of; run "
        "build_sitemaps without --section once first. Nothing was published: the files in "
        f"{out} are as they were."
    )
    assert not out.exists()


def test_one_section_needs_a_set_built_with_the_same_settings(sources: Sources, out: Path) -> None:
    # Every file of another base URL would have to be rendered again: that
    # is a whole build, not one section's.
    sources(ArticleSource, PagesSource)
    bulk_articles(2)
    with override_settings(SITEMAPKIT_BASE_URL="http://127.0.0.1:8000"):
        build(out)
    before = snapshot(out)
    with pytest.raises(CommandError) as raised:
        build(out, section=["pages"])
    assert str(raised.value) == (
        f"There is no set in {out} built with these settings to update one section of; run "
        "build_sitemaps without --section once first. Nothing was published: the files in "
        f"{out} are as they were."
    )
    assert_previous_set_kept(out, before)


def test_a_manifest_that_cannot_be_read_means_every_file_is_rendered(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(2)
    build(out)
    before = snapshot(out, built=False)
    (out / MANIFEST_FILENAME).write_bytes(b"<!DOCTYPE lolz>")
    build(out)
    assert snapshot(out, built=False) == before
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in {out} cannot be read (JSONDecodeError: Expecting value: "
        "line 1 column 1 (char 0)): every file is rendered afresh, and the build writes a "
        "new one."
    ]


def test_a_failure_after_the_publish_says_the_set_was_published(
    sources: Sources, out: Path
) -> None:
    # What a failure reports depends on the destination it left, not on the
    # kind of error: an error raised once the set is in place says so.
    sources(ArticleSource)
    bulk_articles(2)
    destination, site = destination_for(default_site(), out), default_site()
    assert str(failed(destination, OSError(28, "No space left on device", "x"))) == (
        f"Cannot write to {out}: No space left on device (x). Nothing was published: the files "
        f"in {out} are as they were."
    )
    build_set(destination, [ArticleSource()], BuildOptions(), site)
    assert str(failed(destination, OSError(28, "No space left on device", "x"))) == (
        f"Cannot write to {out}: No space left on device (x). The new set was published to "
        f"{out} before it."
    )
    assert str(failed(destination, KeyboardInterrupt())) == (
        f"Interrupted. The new set was published to {out} before it."
    )


def test_a_planted_manifest_cannot_name_other_files_of_a_storage(
    sources: Sources, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A build lists, links and deletes the files its manifest names: one
    # planted in the storage must not make it delete another file there.
    sources(ArticleSource)
    bulk_articles(2)
    location = tmp_path / "storage"
    stores = {
        "sitemaps": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(location)},
        }
    }
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        call_command("build_sitemaps", verbosity=0)
        (location / "uploads").mkdir()
        (location / "uploads" / "photo.jpg").write_bytes(b"a photo")
        manifest = json.loads((location / MANIFEST_FILENAME).read_bytes())
        (shard,) = manifest["shards"]
        planted = {**shard["files"][0], "name": "uploads/photo.jpg", "gzip_size": None}
        manifest["shards"].append({**shard, "section": "gone", "files": [planted]})
        (location / MANIFEST_FILENAME).write_text(json.dumps(manifest))
        call_command("build_sitemaps", verbosity=0)
    assert (location / "uploads" / "photo.jpg").read_bytes() == b"a photo"
    assert shard_files(location) == [("articles", ["sitemap-articles-1.xml"])]
    assert caplog.messages == [
        f"{MANIFEST_FILENAME} in storage 'sitemaps' cannot be read (Invalid: "
        "shards[1].files[0].name is 'uploads/photo.jpg', not the name of a page file of "
        "section 'gone'): every file is rendered afresh, and the build writes a new one."
    ]


class UnsafeName(ArticleSource):
    name = "x/../../escape"


def test_a_name_that_could_leave_the_directory_is_refused_without_the_checks(
    sources: Sources, tmp_path: Path
) -> None:
    # The system checks refuse it (E007); call_command() runs none of them.
    sources(UnsafeName)
    bulk_articles(1)
    output = tmp_path / "a" / "b"
    with pytest.raises(CommandError) as raised:
        build(output)
    assert str(raised.value) == (
        "Sitemap source test_build.UnsafeName has the section name 'x/../../escape', which "
        "cannot appear safely in a file name (sitemapkit.E007); set name to 1 to 64 ASCII "
        "letters, digits, '-' or '_', starting with a letter or digit."
    )
    assert list(tmp_path.rglob("*")) == []


EMPTY = (
    "No sitemap section has a single URL (no rows, or none valid): nothing was published, "
    "and {}. An index must list at least one sitemap, and an empty database is more often "
    "a mistake (another DATABASES, a failed import) than a site without pages; add rows, "
    "or fix the sources, then build again."
)


def test_no_rows_fails_and_the_old_files_stay(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(2)
    build(out)
    before = snapshot(out)
    Article.objects.all().delete()
    with pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == EMPTY.format(f"{out} still has the set it had")
    assert raised.value.returncode == 1
    assert_previous_set_kept(out, before)


def test_no_rows_on_a_first_build_fails_and_writes_nothing(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    with pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == EMPTY.format(f"nothing was written to {out}")
    assert not out.exists()
    assert leftovers(out) == []


# -- failures leave the previous set ------------------------------------------------------


class AtRow(ArticleSource):
    """Calls ``at(number)`` as each row's entry is made: a per-row method (a documented
    hook) that answers what the constant did."""

    # Counted on the instance: each test registers a new one.
    made = 0

    def changefreq(self, row: dict[str, Any]) -> str:  # type: ignore[override]
        self.made += 1
        self.at(self.made)
        return "weekly"

    def at(self, number: int) -> None:
        pass


class FailingRows(AtRow):
    """Rows that stop with a database error at the 151st of them."""

    def at(self, number: int) -> None:
        if number == 151:
            raise DatabaseError("server closed the connection unexpectedly")


class Interrupted(AtRow):
    """Ctrl-C arrives while the 151st row is written."""

    def at(self, number: int) -> None:
        if number == 151:
            raise KeyboardInterrupt


@pytest.fixture
def previous_build(sources: Sources, out: Path) -> dict[str, bytes]:
    sources(ArticleSource)
    bulk_articles(20)
    build(out)
    bulk_articles(300)
    return snapshot(out)


@pytest.mark.parametrize("jobs", [1, 2])  # 2: the .gz compressed on a second thread
def test_a_database_error_part_way_leaves_the_previous_set(
    sources: Sources, out: Path, previous_build: dict[str, bytes], jobs: int
) -> None:
    sources(FailingRows)
    with override_settings(SITEMAPKIT_CHUNK_SIZE=100), pytest.raises(CommandError) as raised:
        build(out, jobs=jobs)
    # The rows read from the database: two chunks of 100 when the 151st fails.
    assert str(raised.value) == (
        "Section 'articles' failed after 200 rows: DatabaseError: server closed the connection "
        f"unexpectedly Nothing was published: the files in {out} are as they were."
    )
    assert raised.value.returncode == 1
    assert_previous_set_kept(out, previous_build)


def test_ctrl_c_part_way_leaves_the_previous_set(
    sources: Sources, out: Path, previous_build: dict[str, bytes]
) -> None:
    sources(Interrupted)
    with pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == (
        f"Interrupted. Nothing was published: the files in {out} are as they were."
    )
    assert raised.value.returncode == 130
    assert_previous_set_kept(out, previous_build)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_full_disk_leaves_the_previous_set(
    out: Path, previous_build: dict[str, bytes], jobs: int
) -> None:
    # RLIMIT_FSIZE makes any write past 32 KiB fail with EFBIG, as a full
    # disk fails with ENOSPC: for real, in the middle of a file.
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (32_768, hard))
    try:
        with pytest.raises(CommandError) as raised:
            build(out, jobs=jobs)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert str(raised.value).startswith("Section 'articles' failed after ")
    assert "OSError: [Errno 27] File too large" in str(raised.value)
    assert_previous_set_kept(out, previous_build)


class BrokenMidway(AtRow):
    """The database itself fails after 150 rows (see faults.py)."""

    def at(self, number: int) -> None:
        if number == 151:
            break_connection(self.get_queryset().db)


@pytest.mark.django_db(transaction=True)
@override_settings(SITEMAPKIT_CHUNK_SIZE=100)
def test_a_real_database_failure_part_way_leaves_the_previous_set(
    sources: Sources, out: Path, previous_build: dict[str, bytes]
) -> None:
    sources(BrokenMidway)
    with pytest.raises(CommandError) as raised:
        build(out)
    message = str(raised.value)
    # On MySQL the page's 320 rows are in the client once its query has run
    # (mysqlclient's buffered cursor, docs/databases.md): the lost connection
    # shows when the shard's transaction ends, after them.
    rows = 320 if connection.vendor == "mysql" else 200
    assert message.startswith(f"Section 'articles' failed after {rows} rows: OperationalError: ")
    assert message.endswith(f"Nothing was published: the files in {out} are as they were.")
    assert_previous_set_kept(out, previous_build)
    # Nothing is left broken: with the failed connection dropped (as Django
    # does at the end of a request), the next build publishes every row.
    close_old_connections()
    sources(ArticleSource)
    build(out)
    assert len(urls_of(out, "sitemap-articles-1.xml")) == 320


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs: a disk that really fills up (ENOSPC), and can be made read-only."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root (the RLIMIT_FSIZE test covers a full disk)")
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k,mode=0755", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "--lazy", str(mount_point)], check=True)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_disk_that_fills_up_leaves_the_previous_set(
    sources: Sources, small_disk: Path, jobs: int
) -> None:
    out = small_disk / "out"
    sources(ArticleSource)
    bulk_articles(20)
    build(out)
    before = snapshot(out)
    bulk_articles(5_000)  # about 750 KiB of XML: more than the disk holds
    with pytest.raises(CommandError) as raised:
        build(out, jobs=jobs)
    assert str(raised.value).startswith("Section 'articles' failed after ")
    assert "[Errno 28] No space left on device" in str(raised.value)
    assert_previous_set_kept(out, before)


def test_a_read_only_directory_leaves_the_previous_set(sources: Sources, small_disk: Path) -> None:
    out = small_disk / "out"
    sources(ArticleSource)
    bulk_articles(20)
    build(out)
    before = snapshot(out)
    bulk_articles(5)
    # Read-only for root too, unlike permission bits.
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == f"Cannot write to {out}: Read-only file system."
    assert snapshot(out) == before


def test_a_mount_point_is_refused_as_the_output(sources: Sources, small_disk: Path) -> None:
    # rename() cannot put a link where a mount point is.
    sources(ArticleSource)
    bulk_articles(1)
    with pytest.raises(CommandError) as raised:
        build(small_disk)
    assert str(raised.value) == (
        f"{small_disk} is a mount point, which a build cannot replace with the link to its "
        "set; write to a directory inside it instead (--output or SITEMAPKIT_OUTPUT_DIR "
        f"'{small_disk}/sitemaps'), and serve that one."
    )
    assert sorted(p.name for p in small_disk.iterdir()) == []


def test_an_output_that_cannot_be_a_directory_fails_clearly(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(CommandError) as raised:
        build(tmp_path / "file" / "sitemaps")
    assert str(raised.value) == f"Cannot write to {tmp_path}/file/sitemaps: Not a directory."


def test_strict_mode_fails_the_build_naming_the_row(
    sources: Sources, out: Path, previous_build: dict[str, bytes]
) -> None:
    bad = ArticleFactory.create(slug="bad/slug")
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value).startswith(
        f"Section 'articles' failed after 321 rows: InvalidEntry: Skipped pk={bad.pk} of "
        "source 'articles': its URL does not reverse"
    )
    assert_previous_set_kept(out, previous_build)


def test_a_second_build_refuses_while_one_holds_the_lock(
    sources: Sources, out: Path, previous_build: dict[str, bytes]
) -> None:
    # Beside the builds, not in the set: a reader of the output never sees it.
    with open(lock_file(out), "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(CommandError) as raised:
            build(out)
    assert str(raised.value) == (
        f"Another build_sitemaps is writing to {out}; wait for it to finish, then run "
        "this one again."
    )
    assert snapshot(out) == previous_build


class PausedMidway(AtRow):
    """Says so on ``ready`` (a pipe) once 150 rows are read, then waits to be killed."""

    ready: ClassVar[int] = -1

    def at(self, number: int) -> None:
        if number == 151:
            os.write(self.ready, b"!")
            time.sleep(120)


def fork_build(output: Path) -> tuple[int, int]:
    """A build in a child process; returns its pid and the pipe it reports on."""
    read_end, write_end = os.pipe()
    PausedMidway.ready = write_end
    # The child opens connections of its own (an in-memory SQLite database is
    # copied with the rest of its memory).
    connections.close_all()
    with warnings.catch_warnings():
        # Python 3.12+ warns about fork() in a process with threads: the child
        # only builds and exits, and uses none of them.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            build(output)
        finally:
            os._exit(1)
    os.close(write_end)
    return pid, read_end


@pytest.mark.django_db(transaction=True)
@override_settings(SITEMAPKIT_CHUNK_SIZE=50)
def test_a_build_killed_mid_way_leaves_the_previous_set_and_no_file_taken_for_complete(
    client: Client, sources: Sources, out: Path, previous_build: dict[str, bytes]
) -> None:
    sources(PausedMidway)
    published = current_build(out)
    pid, ready = fork_build(out)
    try:
        assert select.select([ready], [], [], 60)[0], "the build never reached row 150"
        (partial,) = leftovers(out)
        staged = os.listdir(builds(out) / partial)
        assert staged  # the kill lands in the middle of writing a file
        # Two builds never interleave: the second one is refused while the first runs.
        with pytest.raises(CommandError) as raised:
            build(out)
        assert str(raised.value).startswith("Another build_sitemaps is writing to ")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready)
    assert snapshot(out) == previous_build
    # What the killed build left is in its own partial directory among the
    # builds: never linked, so never listed, served or published.
    assert current_build(out) == published
    assert leftovers(out) == [partial]
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(out)):
        for name, content in previous_build.items():
            if name != MANIFEST_FILENAME:
                assert fetch(client, f"/{name}")[1] == content
    # The kernel released the dead build's lock; the next build cleans up.
    sources(ArticleSource)
    build(out)
    assert leftovers(out) == []
    assert sorted(os.listdir(builds(out))) == sorted([".lock", published, current_build(out)])
    assert len(urls_of(out, "sitemap-articles-1.xml")) == 320


def test_what_builds_that_died_left_is_cleaned_up(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    build(out)
    first = current_build(out)
    build(out, full=True, gzip=False)
    second = current_build(out)
    # A build killed while writing, and one killed after it linked its set
    # but before the link took the output's place.
    partial = builds(out) / "20240101T000000-dead0000.partial"
    partial.mkdir()
    (partial / ".shard-0-1.xml").write_text("half")
    link = out.parent / ".out.link-20240101T000001-dead0001"
    link.symlink_to(".out.builds/20240101T000001-dead0001")
    assert leftovers(out) == [link.name, partial.name]
    bulk_articles(1)
    build(out)
    assert leftovers(out) == []
    # The build before stays, for readers that resolved the link just before
    # it moved; the ones before that go.
    assert first not in os.listdir(builds(out))
    assert sorted(os.listdir(builds(out))) == sorted([".lock", second, current_build(out)])


# -- validation, storages and jobs --------------------------------------------------------


def test_validate_passes_on_a_normal_build(sources: Sources, out: Path) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(10)
    build(out, validate=True)
    assert len(snapshot(out)) == 7


STORAGE_BACKENDS: dict[str, tuple[str, dict[str, object]]] = {
    "in-memory": ("django.core.files.storage.InMemoryStorage", {}),
    "file-system": ("django.core.files.storage.FileSystemStorage", {}),
    "file-system-overwriting": (
        "django.core.files.storage.FileSystemStorage",
        {"allow_overwrite": True},
    ),
}


@pytest.mark.parametrize("backend", STORAGE_BACKENDS)
def test_a_storage_gets_the_same_files_as_a_directory(
    sources: Sources, tmp_path: Path, backend: str
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    build(tmp_path / "dir")
    expected = snapshot(tmp_path / "dir", built=False)
    storage_class, options = STORAGE_BACKENDS[backend]
    if "FileSystem" in storage_class:
        options = {**options, "location": str(tmp_path / "storage")}
    stores = {"sitemaps": {"BACKEND": storage_class, "OPTIONS": options}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        call_command("build_sitemaps", verbosity=0)
        bulk_articles(1)
        call_command("build_sitemaps", verbosity=0)  # replaces files in place
        Article.objects.order_by("-pk")[0].delete()
        call_command("build_sitemaps", verbosity=0)
        storage = storages["sitemaps"]
        _, names = storage.listdir("")
        stored = {}
        for name in sorted(names):
            with storage.open(name, "rb") as opened:
                stored[name] = opened.read()
        # A smaller build removes the files the index no longer names.
        delete_newest(3)
        call_command("build_sitemaps", verbosity=0)
        remaining = sorted(storage.listdir("")[1])
    assert undated(without_times(stored)) == undated(expected)
    # The last page lost its newest row after the directory's build: a later date.
    last = f"{SITE}/sitemap-articles-3.xml"
    moved, was = (
        dict(parse_index(stored["sitemap.xml"]))[last],
        dict(parse_index(expected["sitemap.xml"]))[last],
    )
    assert moved is not None
    assert was is not None
    assert moved > was
    assert remaining == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap-pages-1.xml",
        "sitemap-pages-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]


@pytest.mark.django_db(transaction=True)
def test_jobs_build_sections_in_processes_with_the_same_result(
    sources: Sources, tmp_path: Path
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(7)
    build(tmp_path / "one")
    build(tmp_path / "two", jobs=2)
    assert snapshot(tmp_path / "two", built=False) == snapshot(tmp_path / "one", built=False)
    assert len(snapshot(tmp_path / "one")) == 13


def test_jobs_compress_one_section_on_a_second_thread_with_the_same_result(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource)
    bulk_articles(5_000)
    build(tmp_path / "one")
    build(tmp_path / "two", jobs=2)
    files = snapshot(tmp_path / "two", built=False)
    assert files == snapshot(tmp_path / "one", built=False)
    assert len(urls_of(tmp_path / "two", "sitemap-articles-1.xml")) == 5_000
    # Large enough for the compressing thread to fall behind and catch up.
    assert len(files["sitemap-articles-1.xml"]) > 8 * 64 * 1024


def test_an_entry_too_big_for_any_document_is_skipped_and_logged(
    client: Client, sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    ArticleFactory.create(slug="a")
    ArticleFactory.create(slug="x" * 1_000)
    ArticleFactory.create(slug="b")
    _, lines, _ = url_lines(view_body(client, "sitemap-articles-1.xml"))
    big = len(lines[1])
    with override_settings(SITEMAPKIT_MAX_BYTES=1_024):
        build(out)
    assert [u.loc for u in urls_of(out, "sitemap-articles-1.xml")] == [
        f"{SITE}/articles/a/",
        f"{SITE}/articles/b/",
    ]
    assert [r.getMessage() for r in caplog.records] == [
        f"Skipped '{SITE}/articles/{'x' * 1_000}/' of source 'articles': its <url> takes "
        f"{big:,} bytes, more than a document of SITEMAPKIT_MAX_BYTES (1,024) has room for."
    ]


def test_files_mode_serves_the_built_files_byte_for_byte(
    client: Client, sources: Sources, out: Path
) -> None:
    sources(ArticleSource, PagesSource)
    bulk_articles(250)
    with override_settings(SITEMAPKIT_MAX_BYTES=16_384):
        build(out)
    files = snapshot(out)
    documents = sorted(name for name in files if name.endswith(".xml"))
    assert len(documents) == 5  # three files of articles after two byte cuts
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(out)):
        for name in documents:
            assert view_body(client, name) == files[name]
            status, body, headers = fetch(client, f"/{name}", **{"Accept-Encoding": "gzip"})
            assert (status, headers["Content-Encoding"]) == (200, "gzip")
            assert body == files[name + ".gz"]
            assert view_body(client, name + ".gz") == files[name + ".gz"]


class Observed(AtRow):
    """Records, at its 10th row, what the database says of the cursor reading it."""

    seen: ClassVar[list[Any]] = []

    def at(self, number: int) -> None:
        if number == 10:
            Observed.seen.append(connection.in_atomic_block)
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SELECT is_holdable FROM pg_cursors")
                    Observed.seen.append(cursor.fetchall())


@pytest.mark.django_db(transaction=True)
# Rows are written a chunk at a time: the 10th is written while the cursor still has rows.
@override_settings(SITEMAPKIT_CHUNK_SIZE=5)
def test_rows_stream_from_a_cursor_without_hold_on_postgresql(sources: Sources, out: Path) -> None:
    sources(Observed)
    bulk_articles(20)
    Observed.seen = []
    build(out)
    if connection.vendor == "postgresql":
        # WITH HOLD would make PostgreSQL store the whole result before the first row.
        assert Observed.seen == [True, [(False,)]]
    else:
        # In a transaction on MySQL too (its snapshot), never on SQLite (its lock).
        assert Observed.seen == [connection.vendor == "mysql"]
    assert not connection.in_atomic_block
    assert len(urls_of(out, "sitemap-articles-1.xml")) == 20


class SeesCommits(AtRow):
    """At its 10th row, deletes a row in another session, commits, and counts the rows
    on the build's own connection: what the shard's transaction sees of commits."""

    counted: ClassVar[list[int]] = []
    #: The primary key of the row deleted.
    doomed: ClassVar[int] = 0

    def at(self, number: int) -> None:
        if number != 10:
            return
        other = connections.create_connection(self.get_queryset().db)
        try:
            with other.cursor() as cursor:
                cursor.execute(f"DELETE FROM {Article._meta.db_table} WHERE id = %s", [self.doomed])
            other.commit()
        finally:
            other.close()
        SeesCommits.counted.append(Article.objects.count())


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="PostgreSQL, MySQL and MariaDB: SQLite reads a shard outside a transaction",
)
def test_a_shard_reads_one_snapshot_whatever_is_committed_meanwhile(
    sources: Sources, out: Path
) -> None:
    # Django connects to MySQL in READ COMMITTED: without REPEATABLE READ for the
    # shard, its later statements would see the deletion (19 rows, not 20).
    sources(SeesCommits)
    bulk_articles(20)
    SeesCommits.doomed = Article.objects.order_by("pk").values_list("pk", flat=True).last() or 0
    SeesCommits.counted = []
    build(out)
    assert SeesCommits.counted == [20]
    assert Article.objects.count() == 19
    assert len(urls_of(out, "sitemap-articles-1.xml")) == 20


class NoArticles(ArticleSource):
    queryset = Article.objects.none()


def test_a_section_that_matches_nothing_is_left_out(sources: Sources, out: Path) -> None:
    sources(NoArticles, PagesSource)
    bulk_articles(3)
    build(out)
    assert sorted(name for name in snapshot(out) if name.endswith(".xml")) == [
        "sitemap-pages-1.xml",
        "sitemap.xml",
    ]
    index = parse_index((out / "sitemap.xml").read_bytes())
    assert [loc for loc, _ in index] == [f"{SITE}/sitemap-pages-1.xml"]
    assert len(urls_of(out, "sitemap-pages-1.xml")) == 2


@pytest.mark.skipif(connection.vendor != "sqlite", reason="only SQLite stores bytes no codec reads")
def test_a_row_the_driver_cannot_decode_is_skipped_and_reported(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    articles = bulk_articles(5)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE testapp_article SET slug = CAST(X'61FF62' AS TEXT) WHERE id = %s",
            [articles[1].pk],
        )
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(out), stdout=stdout)
    row = next(line for line in stdout.getvalue().splitlines() if line.startswith("articles "))
    # Rows, URLs, files, ..., skipped rows.
    assert (row.split()[1:4], row.split()[7]) == (["5", "4", "1"], "1")
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        f"Skipped pk={articles[1].pk} of source 'articles': the database driver cannot read it "
        "(Could not decode to UTF-8 column 'slug' with text 'a\ufffdb')."
    ]


class EveryPriorityInvalid(SmallPages):
    def priority(self, row: dict[str, Any]) -> object:  # type: ignore[override]
        return 1.5


def test_a_build_keeps_every_url_whose_priority_is_invalid(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(EveryPriorityInvalid)
    made = [ArticleFactory.create(slug=slug, updated_at=None) for slug in "abc"]
    build(out)
    assert urls_of(out, "sitemap-articles-1.xml", "sitemap-articles-2.xml") == [
        Url(f"{SITE}/articles/{slug}/", None, "weekly") for slug in "abc"
    ]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"Left out the priority of pk={made[0].pk} of source 'articles': 1.5 is outside 0.0 "
        "to 1.0.",
        "Left out the priority of 1 more row of source 'articles' on page 1 for the same "
        f"reason as pk={made[0].pk} (2 in all).",
        f"Left out the priority of pk={made[2].pk} of source 'articles': 1.5 is outside 0.0 "
        "to 1.0.",
    ]
