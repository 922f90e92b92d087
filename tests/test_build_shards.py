"""planning.py, sets.py and manifest.py through ``build_sitemaps``: shards that keep their
boundaries, incremental rebuilds that render only what changed, and the manifest."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from factories import bulk_articles
from sitemap_xml import parse_index, parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.due import left_out_date
from django_sitemapkit.build.manifest import Shard
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
Sources = Callable[..., None]
UTC = dt.timezone.utc
LATER = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


class TenPerPage(ArticleSource):
    limit = 10


class ByTitle(ArticleSource):
    """Keyed on a text column and the primary key: the manifest records both."""

    limit = 10
    ordering = ("title", "pk")


def build(output: Path, **options: Any) -> None:
    call_command("build_sitemaps", output=str(output), verbosity=0, **options)


def files(output: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each published file (through the link): its inode, mtime and bytes."""
    found = {}
    for path in sorted(output.iterdir()):
        status = path.stat()
        found[path.name] = (status.st_ino, status.st_mtime_ns, path.read_bytes())
    return found


def rewritten(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The files of ``after`` that are new or not the very file they were."""
    return sorted(n for n in after if n not in before or after[n][:2] != before[n][:2])


def manifest(output: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((output / MANIFEST_FILENAME).read_bytes())
    return data


def urls(output: Path) -> list[tuple[str, str | None]]:
    """Every URL of the set with its lastmod, in the order of the index and its pages."""
    found = []
    for loc, _ in parse_index((output / "sitemap.xml").read_bytes()):
        for url in parse_urlset((output / loc.rsplit("/", 1)[-1]).read_bytes()):
            found.append((url.loc, url.lastmod))
    return found


def articles(count: int) -> list[Article]:
    created = bulk_articles(count, updated_at=dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc))
    return sorted(created, key=lambda article: article.pk)


def change(rows: list[Article]) -> None:
    """The issue's three changes, at the scale of ten rows a page: rows appended, rows
    deleted in the middle of the third page, rows updated within the second."""
    bulk_articles(4, updated_at=LATER)
    Article.objects.filter(pk__in=[rows[24].pk, rows[25].pk]).delete()
    Article.objects.filter(pk__in=[rows[12].pk, rows[13].pk]).update(updated_at=LATER)


def test_a_rebuild_renders_only_the_shards_that_changed(sources: Sources, tmp_path: Path) -> None:
    sources(TenPerPage, PagesSource)
    rows = articles(40)
    out = tmp_path / "out"
    build(out)
    before = files(out)
    change(rows)
    build(out)
    after = files(out)
    # Page 2 (updated), page 3 (deleted from) and page 4 (rows appended after
    # its ten: cut, its first ten kept and a new fifth file for the rest).
    assert rewritten(before, after) == [
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap-articles-3.xml",
        "sitemap-articles-3.xml.gz",
        "sitemap-articles-5.xml",
        "sitemap-articles-5.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]
    sizes = [len(parse_urlset(after[f"sitemap-articles-{n}.xml"][2])) for n in range(1, 6)]
    assert sizes == [10, 10, 8, 10, 4]


def test_an_incremental_rebuild_gives_the_urls_and_bytes_of_a_full_build(
    sources: Sources, tmp_path: Path
) -> None:
    sources(TenPerPage, PagesSource)
    rows = articles(40)
    out = tmp_path / "out"
    build(out)
    change(rows)
    build(out)
    incremental = files(out)
    # --full renders every shard of the same plan: not one file differs from
    # what the incremental build left, so none is written.
    build(out, full=True)
    full = files(out)
    assert rewritten(incremental, full) == [MANIFEST_FILENAME]
    assert {n: v[2] for n, v in full.items() if n != MANIFEST_FILENAME} == {
        n: v[2] for n, v in incremental.items() if n != MANIFEST_FILENAME
    }
    # A build from nothing cuts its pages afresh, and lists the same URLs.
    build(tmp_path / "fresh")
    assert sorted(urls(out)) == sorted(urls(tmp_path / "fresh"))
    assert len(urls(out)) == 40 + 4 - 2 + 2


def test_nothing_changed_publishes_nothing(sources: Sources, tmp_path: Path) -> None:
    sources(TenPerPage, PagesSource)
    articles(25)
    out = tmp_path / "out"
    build(out)
    link, before = os.readlink(out), files(out)
    build(out)
    assert (os.readlink(out), files(out)) == (link, before)


def test_unchanged_files_keep_their_etag_and_last_modified(
    client: Client, sources: Sources, tmp_path: Path
) -> None:
    sources(TenPerPage)
    rows = articles(30)
    out = tmp_path / "out"
    build(out)
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(out)):
        first = {n: client.head(f"/sitemap-articles-{n}.xml") for n in (1, 2, 3)}
        Article.objects.filter(pk=rows[15].pk).update(updated_at=LATER)
        build(out)
        second = {n: client.head(f"/sitemap-articles-{n}.xml") for n in (1, 2, 3)}
    validators = {n: (r.status_code, r["ETag"], r["Last-Modified"]) for n, r in first.items()}
    assert {n: (r.status_code, r["ETag"], r["Last-Modified"]) for n, r in second.items()} == {
        1: validators[1],
        2: (200, second[2]["ETag"], second[2]["Last-Modified"]),
        3: validators[3],
    }
    assert second[2]["ETag"] != validators[2][1]


def test_a_shard_with_no_rows_left_leaves_the_index(sources: Sources, tmp_path: Path) -> None:
    sources(TenPerPage)
    rows = articles(30)
    out = tmp_path / "out"
    build(out)
    Article.objects.filter(pk__in=[row.pk for row in rows[10:20]]).delete()
    build(out)
    assert sorted(n for n in files(out) if n.endswith(".xml")) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-3.xml",
        "sitemap.xml",
    ]
    assert [loc for loc, _ in parse_index((out / "sitemap.xml").read_bytes())] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-3.xml",
    ]
    # A row inserted later in the gone range joins the shard before it, which
    # already has its ten rows: they stay in their file, the new one is cut off
    # into a new file, listed between the two in the order of the rows.
    Article.objects.create(pk=rows[15].pk, slug="back", updated_at=LATER)
    before = files(out)
    build(out)
    assert rewritten(before, files(out)) == [
        "sitemap-articles-4.xml",
        "sitemap-articles-4.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]
    assert [loc for loc, _ in parse_index((out / "sitemap.xml").read_bytes())] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-4.xml",
        f"{SITE}/sitemap-articles-3.xml",
    ]


def test_the_manifest_describes_every_file(sources: Sources, tmp_path: Path) -> None:
    sources(ByTitle)
    rows = articles(12)
    for number, row in enumerate(rows):
        Article.objects.filter(pk=row.pk).update(title=f"t{number:02}")
    out = tmp_path / "out"
    build(out)
    data = manifest(out)
    shards = data["shards"]
    assert [(s["section"], s["low"], s["rows"], s["stats"]) for s in shards] == [
        (
            "articles",
            None,
            10,
            {
                "rows": 10,
                "lastmod": {"datetime": "2024-05-01T00:00:00+00:00"},
                "key_sum": sum(r.pk for r in rows[:10]),
            },
        ),
        (
            "articles",
            ["t10", rows[10].pk],
            2,
            {
                "rows": 2,
                "lastmod": {"datetime": "2024-05-01T00:00:00+00:00"},
                "key_sum": rows[10].pk + rows[11].pk,
            },
        ),
    ]
    for shard in shards:
        (file,) = shard["files"]
        content = (out / file["name"]).read_bytes()
        assert file["size"] == len(content)
        assert file["gzip_size"] == (out / (file["name"] + ".gz")).stat().st_size
        assert file["urls"] == len(parse_urlset(content))
        assert file["newest"] == "2024-05-01T00:00:00+00:00"
        # The set's first build dates each file in the index by its newest row.
        assert file["lastmod"] == "2024-05-01T00:00:00+00:00"
    assert data["index"]["name"] == "sitemap.xml"
    assert data["index"]["lastmod"] is None
    assert data["site"] == SITE
    # A row moved to the end of the order (another title) leaves the first shard
    # and joins the last: two files change, and so does the index, which dates
    # both by this build although their newest lastmods are as they were.
    before = files(out)
    Article.objects.filter(pk=rows[0].pk).update(title="z")
    build(out)
    assert rewritten(before, files(out)) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]


def test_another_base_url_rebuilds_every_file(sources: Sources, tmp_path: Path) -> None:
    sources(TenPerPage)
    articles(15)
    out = tmp_path / "out"
    build(out)
    before = files(out)
    with override_settings(SITEMAPKIT_BASE_URL="https://other.example.com"):
        build(out)
    assert rewritten(before, files(out)) == sorted(files(out))


def test_a_periodic_full_check_renders_every_shard_and_keeps_what_is_the_same(
    sources: Sources, tmp_path: Path
) -> None:
    sources(TenPerPage)
    articles(15)
    out = tmp_path / "out"
    build(out)
    before = files(out)
    # An edit the shard's stats cannot see: the slug, with the same lastmod.
    Article.objects.filter(slug__isnull=False).order_by("pk")[:1].get()
    first = Article.objects.order_by("pk").first()
    assert first is not None
    Article.objects.filter(pk=first.pk).update(slug="renamed")
    build(out)
    assert rewritten(before, files(out)) == []
    with override_settings(SITEMAPKIT_FULL_BUILD_EVERY=dt.timedelta(0)):
        build(out)
    # The page's bytes changed: its date in the index moves on (dates.py).
    assert rewritten(before, files(out)) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]
    assert f"{SITE}/articles/renamed/" in [loc for loc, _ in urls(out)]


def shard_dated(tag: str, text: str) -> Shard:
    return Shard("articles", None, {"rows": 1, "lastmod": {tag: text}, "key_sum": 1}, ())


def test_a_shard_is_rendered_again_until_the_date_it_left_out_is_written() -> None:
    at = dt.datetime(2030, 1, 1, 12, tzinfo=UTC)
    # A datetime is written once the clock is five minutes short of it.
    datetime = shard_dated("datetime", "2030-01-01T12:05:01+00:00")
    assert left_out_date(datetime, at) is True
    assert left_out_date(datetime, at + dt.timedelta(seconds=1)) is False
    # A date once some place has reached it: UTC+14 reaches 2030-01-02 at 10:00 UTC.
    date = shard_dated("date", "2030-01-02")
    assert left_out_date(date, dt.datetime(2030, 1, 1, 9, 54, 59, tzinfo=UTC)) is True
    assert left_out_date(date, dt.datetime(2030, 1, 1, 9, 55, tzinfo=UTC)) is False
    # Nothing to write: no stats, no date.
    assert left_out_date(Shard("pages", None, None, ()), at) is False
    assert left_out_date(shard_dated("decimal", "1"), at) is False
