"""``build_sitemaps --max-removed`` and ``SITEMAPKIT_MAX_REMOVED`` (build/guard.py): a set
that would remove too many of a site's URLs is refused before the publish, and the
last good set stays, in a directory, a storage and a distributed build alike."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from built_sets import builds, leftovers, snapshot
from commands import outcome as command_outcome
from django.core.files.storage import InMemoryStorage, storages
from django.db.models import QuerySet
from django.test import override_settings
from factories import bulk_articles
from indexnow_endpoint import Endpoint
from processes import manage
from sitemap_xml import parse_urlset
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import SitemapSite

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
SITE = "https://www.example.com"
UPDATED = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
LATER = dt.datetime(2025, 1, 2, tzinfo=dt.timezone.utc)


class FourPerPage(ArticleSource):
    limit = 4


def outcome(**options: Any) -> tuple[str, str, int]:
    return command_outcome("build_sitemaps", **options)


def refusal(removed: int, before: int, share: str, limit: str, source: str, **rest: Any) -> str:
    after, added, label, needed = rest["after"], rest["added"], rest["label"], rest["needed"]
    return (
        f"CommandError: Refused to publish the sitemaps of site 'default' ({SITE}): the build "
        f"would remove {removed} of the {before} URLs they list ({share} %), more than the "
        f"{limit} % that {source} allows (they would list {after} URLs, {added} of them new). "
        f"Nothing was published: the files in {label} are as they were. If the removal is "
        f"intended, build again with --max-removed {needed} or more.\n"
    )


def with_times(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Each file's bytes and modification time, read through the link."""
    return {
        name: (content, (directory / name).stat().st_mtime_ns)
        for name, content in snapshot(directory).items()
    }


def lock_is_free(output: Path) -> bool:
    with open(builds(output) / ".lock", "a") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        return True


def urls(directory: Path) -> list[str]:
    pages = sorted(name for name in os.listdir(directory) if name.startswith("sitemap-"))
    found = []
    for name in pages:
        if name.endswith(".xml"):
            found += [url.loc for url in parse_urlset((directory / name).read_bytes())]
    return sorted(found)


def delete(rows: list[Article]) -> None:
    Article.objects.filter(pk__in=[row.pk for row in rows]).delete()


def test_a_build_that_removes_30_percent_is_refused_at_20_and_published_at_40(
    sources: Sources, out: Path
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    assert outcome(output=str(out), verbosity=0) == ("", "", 0)
    before, link = with_times(out), os.readlink(out)
    delete(rows[2:5])
    assert outcome(output=str(out), max_removed=20) == (
        "",
        refusal(3, 10, "30", "20", "--max-removed", after=7, added=0, label=out, needed=30),
        1,
    )
    # The published files untouched, the staged set gone, the lock released.
    assert (with_times(out), os.readlink(out)) == (before, link)
    assert leftovers(out) == []
    assert lock_is_free(out)
    stdout, stderr, code = outcome(output=str(out), max_removed=40)
    assert (stderr, code) == ("", 0)
    assert stdout.splitlines()[-1].startswith(f"Published to {out} ")
    assert urls(out) == sorted(f"{SITE}/articles/{row.slug}/" for row in rows[:2] + rows[5:])


def test_a_share_at_the_limit_is_published(sources: Sources, out: Path) -> None:
    sources(FourPerPage)
    rows = bulk_articles(10, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    delete(rows[:3])
    assert outcome(output=str(out), verbosity=0, max_removed=30) == ("", "", 0)
    assert len(urls(out)) == 7


def test_a_first_build_is_never_refused(sources: Sources, out: Path) -> None:
    sources(FourPerPage)
    bulk_articles(3, updated_at=UPDATED)
    assert outcome(output=str(out), verbosity=0, max_removed=0) == ("", "", 0)
    assert len(urls(out)) == 3


def test_urls_replaced_by_others_count_as_removed(sources: Sources, out: Path) -> None:
    sources(FourPerPage)
    rows = bulk_articles(4, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    # The same count of rows, two of them under new slugs: the old URLs leave the
    # sitemap. (Their lastmod is as it was: --full renders them.)
    for row in rows[:2]:
        Article.objects.filter(pk=row.pk).update(slug=f"renamed-{row.pk}")
    assert outcome(output=str(out), full=True, max_removed=25) == (
        "",
        refusal(2, 4, "50", "25", "--max-removed", after=4, added=2, label=out, needed=50),
        1,
    )


def test_the_setting_guards_every_build_and_the_option_overrides_it(
    sources: Sources, out: Path
) -> None:
    sources(FourPerPage)
    rows = bulk_articles(3, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    delete(rows[:1])
    with override_settings(SITEMAPKIT_MAX_REMOVED=12.5):
        assert outcome(output=str(out)) == (
            "",
            refusal(
                1,
                3,
                "33.3",
                "12.5",
                "SITEMAPKIT_MAX_REMOVED",
                after=2,
                added=0,
                label=out,
                needed=34,
            ),
            1,
        )
        assert outcome(output=str(out), verbosity=0, max_removed=100) == ("", "", 0)
    assert len(urls(out)) == 2


def test_a_setting_that_is_no_percentage_stops_a_build_run_without_the_checks(
    sources: Sources, out: Path
) -> None:
    sources(FourPerPage)
    bulk_articles(3, updated_at=UPDATED)
    with override_settings(SITEMAPKIT_MAX_REMOVED="20%"):
        assert outcome(output=str(out)) == (
            "",
            "CommandError: SITEMAPKIT_MAX_REMOVED is '20%', not a number from 0 to 100, or None. "
            "Set it to the percentage of a site's URLs a build may remove (such as 20), to None "
            "for no limit, or remove it. (sitemapkit.E080)\n",
            1,
        )
    assert not out.exists()


class SiteTotal(ArticleSource):
    """Two sections: the share is of the site's URLs, whichever sections are built."""

    limit = 4


def test_the_share_is_of_the_whole_site_with_section(sources: Sources, out: Path) -> None:
    sources(SiteTotal, PagesSource)
    rows = bulk_articles(8, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    delete(rows[:2])
    # 2 of the site's 10 URLs (8 articles, 2 static pages): 20 %, within 20, not 19.
    assert outcome(output=str(out), section=["articles"], max_removed=19) == (
        "",
        refusal(2, 10, "20", "19", "--max-removed", after=8, added=0, label=out, needed=20),
        1,
    )
    assert outcome(output=str(out), section=["articles"], max_removed=20, verbosity=0) == (
        "",
        "",
        0,
    )


def test_a_refusal_leaves_the_indexnow_record_alone_and_sends_nothing(
    sources: Sources, out: Path, endpoint: Endpoint
) -> None:
    sources(FourPerPage)
    rows = bulk_articles(10, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    Article.objects.filter(pk=rows[0].pk).update(updated_at=LATER)
    outcome(output=str(out), verbosity=0)
    record = builds(out) / "sitemapkit-indexnow.json"
    kept, sent = record.read_bytes(), len(endpoint.received)
    delete(rows[4:9])
    stdout, stderr, code = outcome(output=str(out), max_removed=10)
    assert (stdout, code) == ("", 1)
    assert stderr.startswith("CommandError: Refused to publish the sitemaps of site 'default'")
    assert (record.read_bytes(), len(endpoint.received)) == (kept, sent)
    # Once let through, the removals are sent as any build's are.
    outcome(output=str(out), verbosity=0, max_removed=50)
    assert endpoint.received[-1].json["urlList"] == sorted(
        f"{SITE}/articles/{row.slug}/" for row in rows[4:9]
    )


def test_a_page_that_cannot_be_read_back_counts_the_drop_in_urls(
    sources: Sources, out: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    outcome(output=str(out), verbosity=0)
    # A published page cut short: the build renders it again, and cannot read it
    # back to tell which of its URLs went.
    page = out / "sitemap-articles-1.xml"
    page.write_bytes(page.read_bytes()[:100])
    delete(rows[:3])
    stdout, stderr, code = outcome(output=str(out), max_removed=20)
    assert (stdout, code) == ("", 1)
    assert stderr == (
        f"CommandError: Refused to publish the sitemaps of site 'default' ({SITE}): the build "
        "would remove at least 3 of the 10 URLs they list (30 %), more than the 20 % that "
        "--max-removed allows (they would list 7 URLs). Nothing was published: the files in "
        f"{out} are as they were. If the removal is intended, build again with --max-removed "
        "30 or more.\n"
    )
    assert caplog.messages[-1].startswith(
        "The changes of this build could not be read (ValueError: sitemap-articles-1.xml is "
        "not well-formed XML: "
    )
    assert caplog.messages[-1].endswith(
        "IndexNow is sent none of them, the report lists none, and --max-removed counts the "
        "URLs the set loses."
    )


@pytest.fixture
def file_storage(tmp_path: Path) -> Iterator[Path]:
    location = tmp_path / "storage"
    stores = {
        "sitemaps": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(location)},
        }
    }
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        yield location


def test_a_storage_keeps_its_files_when_a_build_is_refused(
    sources: Sources, file_storage: Path
) -> None:
    sources(FourPerPage)
    rows = bulk_articles(10, updated_at=UPDATED)
    outcome(verbosity=0)
    before = with_times(file_storage)
    delete(rows[:3])
    assert outcome(max_removed=20) == (
        "",
        refusal(
            3,
            10,
            "30",
            "20",
            "--max-removed",
            after=7,
            added=0,
            label="storage 'sitemaps'",
            needed=30,
        ),
        1,
    )
    assert with_times(file_storage) == before
    assert outcome(verbosity=0, max_removed=40) == ("", "", 0)
    assert len(urls(file_storage)) == 7


TASKS_PACKAGE = "django.tasks"
try:
    import django.tasks  # noqa: F401
except ImportError:  # Django 5.2: the backport
    TASKS_PACKAGE = "django_tasks"


def stored(storage: InMemoryStorage) -> dict[str, bytes]:
    """Every file of the storage, below its root too (a distributed build's staging)."""
    found = {}

    def walk(directory: str) -> None:
        folders, names = storage.listdir(directory)
        for name in names:
            with storage.open(f"{directory}{name}") as file:
                found[f"{directory}{name}"] = file.read()
        for folder in folders:
            walk(f"{directory}{folder}/")

    walk("")
    return found


def test_a_distributed_build_is_refused_by_its_coordinator(sources: Sources) -> None:
    # The workers render through the Tasks framework's immediate backend, into a
    # storage in memory; the coordinator refuses before it copies anything.
    immediate = f"{TASKS_PACKAGE}.backends.immediate.ImmediateBackend"
    with override_settings(
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
            "sitemaps": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
        },
        SITEMAPKIT_STORAGE="sitemaps",
        TASKS={"default": {"BACKEND": immediate}},
    ):
        storage = storages["sitemaps"]
        assert isinstance(storage, InMemoryStorage)
        sources(FourPerPage)
        rows = bulk_articles(10, updated_at=UPDATED)
        outcome(via="tasks", verbosity=0)
        before = stored(storage)
        delete(rows[:3])
        bulk_articles(1, updated_at=LATER)
        assert outcome(via="tasks", verbosity=0, max_removed=20) == (
            "",
            refusal(
                3,
                10,
                "30",
                "20",
                "--max-removed",
                after=8,
                added=1,
                label="storage 'sitemaps'",
                needed=30,
            ),
            1,
        )
        # Nothing published, and nothing the workers staged left behind.
        assert stored(storage) == before
        assert outcome(via="tasks", verbosity=0, max_removed=30) == ("", "", 0)
        manifest = json.loads(stored(storage)["sitemapkit-manifest.json"])
        assert sum(f["urls"] for shard in manifest["shards"] for f in shard["files"]) == 8


class PerSite(ArticleSource):
    """The shop lists the articles whose title says so, the www site every article."""

    limit = 4

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        rows: QuerySet[Any] = self.get_queryset()
        return rows.filter(title__startswith="shop") if site.name == "shop" else rows


def test_each_site_is_judged_on_its_own(sources: Sources, tmp_path: Path) -> None:
    sources(PerSite)
    shop_rows = bulk_articles(4, title="shop", updated_at=UPDATED)
    bulk_articles(16, updated_at=UPDATED)
    sites = {"www": SITE, "shop": "https://shop.example.com"}
    with override_settings(SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=["*"]):
        outcome(output=str(tmp_path), verbosity=0)
        shop = with_times(tmp_path / "shop")
        # 2 of the shop's 4 URLs, 2 of the 20 of www.
        delete(shop_rows[:2])
        stdout, stderr, code = outcome(output=str(tmp_path), max_removed=25)
    assert code == 1
    assert stderr == (
        "CommandError: The sitemaps of 1 of 2 sites failed (the other one was built):\n"
        "- 'shop' (https://shop.example.com): Refused to publish the sitemaps of site 'shop' "
        "(https://shop.example.com): the build would remove 2 of the 4 URLs they list (50 %), "
        "more than the 25 % that --max-removed allows (they would list 2 URLs, 0 of them new). "
        f"Nothing was published: the files in {tmp_path / 'shop'} are as they were. If the "
        "removal is intended, build again with --max-removed 50 or more.\n"
    )
    assert "Failed: see the error at the end. Its files are as they were." in stdout
    assert with_times(tmp_path / "shop") == shop
    assert len(urls(tmp_path / "www")) == 18


@pytest.mark.slow
def test_max_removed_takes_a_percentage() -> None:
    result = manage("build_sitemaps", "--max-removed", "101")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.endswith(
        "error: argument --max-removed: must be a number from 0 to 100, not 101\n"
    )


def test_a_dry_run_renders_nothing_so_applies_no_limit(sources: Sources, out: Path) -> None:
    sources(FourPerPage)
    rows = bulk_articles(10, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    delete(rows[:5])
    stdout, stderr, code = outcome(output=str(out), dry_run=True, max_removed=0)
    assert (stderr, code) == ("", 0)
    assert stdout.startswith(f"Dry run: nothing is written. A build of {out} would:\n")
