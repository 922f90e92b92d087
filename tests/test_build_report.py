"""``build_sitemaps --report FILE`` (build/report_file.py, build/changes.py): what a run
changed, per site and section, in a JSON file put in place whole when the run ends."""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot
from commands import outcome as command_outcome
from django.core.files.storage import FileSystemStorage
from django.db.models import QuerySet
from django.test import override_settings
from factories import bulk_articles
from indexnow_endpoint import Endpoint
from testapp.models import Article
from testapp.sitemaps import ArticleSource

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


def loc(row: Article) -> str:
    return f"{SITE}/articles/{row.slug}/"


def listed(row: Article, lastmod: dt.datetime = UPDATED) -> dict[str, str]:
    return {"url": loc(row), "lastmod": lastmod.isoformat()}


def times(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with its times checked (ISO 8601 in UTC, in order) and taken out."""
    started = dt.datetime.fromisoformat(report.pop("started"))
    finished = dt.datetime.fromisoformat(report.pop("finished"))
    seconds = report.pop("seconds")
    assert started.tzinfo == dt.timezone.utc
    assert started <= finished
    assert seconds == pytest.approx((finished - started).total_seconds(), abs=0.002)
    return report


def site_part(report: dict[str, Any], name: str = "default") -> dict[str, Any]:
    part = times(report["sites"][name])
    for section in part["sections"].values():
        seconds = section.pop("seconds")
        assert seconds is None or seconds >= 0
    return part


def test_the_report_lists_exactly_a_planted_change(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    outcome(output=str(out), verbosity=0)
    first = json.loads((out / "sitemapkit-manifest.json").read_bytes())["built"]
    before = snapshot(out)
    # One row added, one deleted, one row's lastmod changed; each in another page.
    Article.objects.filter(pk=rows[1].pk).delete()
    Article.objects.filter(pk=rows[5].pk).update(updated_at=LATER)
    (added,) = bulk_articles(1, updated_at=UPDATED)
    path = tmp_path / "report.json"
    stdout, stderr, code = outcome(output=str(out), report=str(path))
    assert (stderr, code) == ("", 0)
    assert stdout.splitlines()[-1] == f"Wrote the report to {path}."
    after = snapshot(out)
    report = times(json.loads(path.read_bytes()))
    assert isinstance(report["sites"]["default"]["sections"]["articles"]["seconds"], float)
    part = site_part(report)
    written = part.pop("files")
    assert report == {"version": 1, "published": True, "sites": {"default": part}}
    counts = {"before": 10, "after": 10, "added": 1, "removed": 1, "changed": 1}
    assert part == {
        "base_url": SITE,
        "destination": str(out),
        "outcome": "published",
        "published": True,
        "error": None,
        "previous": first,
        "compared": True,
        "counts": counts,
        "sections": {
            "articles": {
                "counts": counts,
                "added": [listed(added)],
                "removed": [listed(rows[1])],
                "changed": [listed(rows[5], LATER)],
            }
        },
    }
    changed = {name for name in after if after[name] != before.get(name)}
    assert sorted(written["written"]) == sorted(changed - {"sitemapkit-manifest.json"})
    assert sorted(written["kept"]) == sorted(set(after) - changed)
    assert written["removed"] == []


def test_a_first_build_reports_every_url_as_added(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(5, updated_at=UPDATED), key=lambda row: row.pk)
    outcome(output=str(out), verbosity=0, report=str(tmp_path / "report.json"))
    part = site_part(json.loads((tmp_path / "report.json").read_bytes()))
    assert (part["previous"], part["counts"]) == (
        None,
        {"before": 0, "after": 5, "added": 5, "removed": 0, "changed": 0},
    )
    assert part["sections"]["articles"]["added"] == [listed(row) for row in rows]


def test_a_build_that_changes_nothing_reports_so(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(FourPerPage)
    bulk_articles(5, updated_at=UPDATED)
    outcome(output=str(out), verbosity=0)
    path = tmp_path / "report.json"
    stdout, stderr, code = outcome(output=str(out), report=str(path))
    assert (stdout.splitlines()[-2:], stderr, code) == (
        [
            f"Nothing changed: 2 shard(s) are as the manifest records them, and the 6 files in "
            f"{out} are as they were.",
            f"Wrote the report to {path}.",
        ],
        "",
        0,
    )
    report = times(json.loads(path.read_bytes()))
    part = site_part(report)
    assert (report["published"], part["outcome"], part["published"]) == (False, "unchanged", False)
    nothing = {"before": 5, "after": 5, "added": 0, "removed": 0, "changed": 0}
    assert part["counts"] == nothing
    assert part["sections"] == {
        "articles": {"counts": nothing, "added": [], "removed": [], "changed": []}
    }
    assert part["files"] == {"written": [], "kept": sorted(snapshot(out))[:-1], "removed": []}


def test_a_refused_build_reports_what_it_would_have_changed(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    outcome(output=str(out), verbosity=0)
    Article.objects.filter(pk__in=[row.pk for row in rows[:3]]).delete()
    path = tmp_path / "report.json"
    stdout, stderr, code = outcome(output=str(out), report=str(path), max_removed=20)
    assert (stdout, code) == (f"Wrote the report to {path}.\n", 1)
    report = times(json.loads(path.read_bytes()))
    assert report["sites"]["default"]["sections"]["articles"]["seconds"] is None
    part = site_part(report)
    assert stderr == f"CommandError: {part['error']}\n"
    assert part["error"].startswith("Refused to publish the sitemaps of site 'default'")
    assert (report["published"], part["outcome"], part["published"], part["files"]) == (
        False,
        "refused",
        False,
        None,
    )
    assert part["counts"] == {"before": 10, "after": 7, "added": 0, "removed": 3, "changed": 0}
    assert part["sections"]["articles"]["removed"] == [listed(row) for row in rows[:3]]


def test_a_dry_run_refuses_to_report(sources: Sources, out: Path, tmp_path: Path) -> None:
    sources(FourPerPage)
    bulk_articles(3, updated_at=UPDATED)
    path = tmp_path / "report.json"
    assert outcome(output=str(out), dry_run=True, report=str(path)) == (
        "",
        "CommandError: --report lists the URLs a build changes, which a dry run does not "
        "render: drop --dry-run, or --report.\n",
        1,
    )
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("where", ["missing", "directory"])
def test_a_report_that_cannot_be_written_stops_the_run_before_it_builds(
    sources: Sources, out: Path, tmp_path: Path, where: str
) -> None:
    sources(FourPerPage)
    bulk_articles(3, updated_at=UPDATED)
    path = tmp_path / "nowhere" / "report.json" if where == "missing" else tmp_path
    reason = (
        "No such file or directory; give --report a file in a directory that exists and can "
        "be written to."
        if where == "missing"
        else "it is a directory."
    )
    assert outcome(output=str(out), report=str(path)) == (
        "",
        f"CommandError: Cannot write the report to {path}: {reason}\n",
        1,
    )
    assert not out.exists()


class Watching(FourPerPage):
    """Looks at the report's directory while the build plans (a documented hook)."""

    directory = Path()
    seen: list[list[str]] = []

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        report = (self.directory / "report.json").read_text()
        self.seen.append([*sorted(os.listdir(self.directory)), report])
        return super().get_site_queryset(site)


def test_the_report_is_put_in_place_whole_when_the_run_ends(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(Watching)
    bulk_articles(3, updated_at=UPDATED)
    directory = tmp_path / "reports"
    directory.mkdir()
    (directory / "report.json").write_text("the last run's")
    Watching.directory, Watching.seen = directory, []
    outcome(output=str(out), verbosity=0, report=str(directory / "report.json"))
    # While the build ran, the last report was whole at its name, this one beside it.
    ((staged, report, last),) = Watching.seen
    assert (staged.startswith(".report.json."), staged.endswith(".tmp"), report, last) == (
        True,
        True,
        "report.json",
        "the last run's",
    )
    assert os.listdir(directory) == ["report.json"]
    assert json.loads((directory / "report.json").read_bytes())["version"] == 1


class Interrupted(FourPerPage):
    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        raise KeyboardInterrupt


def test_an_interrupted_run_leaves_the_last_report(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    sources(Interrupted)
    bulk_articles(3, updated_at=UPDATED)
    directory = tmp_path / "reports"
    directory.mkdir()
    (directory / "report.json").write_text("the last run's")
    stdout, stderr, code = outcome(output=str(out), report=str(directory / "report.json"))
    assert (stdout, stderr, code) == (
        "",
        f"CommandError: Interrupted. Nothing was published: the files in {out} are as they were.\n",
        130,
    )
    assert os.listdir(directory) == ["report.json"]
    assert (directory / "report.json").read_text() == "the last run's"


class PerSite(FourPerPage):
    """The shop lists the articles whose title says so; www every article."""

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        rows: QuerySet[Any] = self.get_queryset()
        return rows.filter(title__startswith="shop") if site.name == "shop" else rows


def test_a_run_of_several_sites_reports_each_the_refused_one_too(
    sources: Sources, tmp_path: Path
) -> None:
    sources(PerSite)
    shop = sorted(bulk_articles(2, title="shop", updated_at=UPDATED), key=lambda row: row.pk)
    bulk_articles(8, updated_at=UPDATED)
    path = tmp_path / "report.json"
    with override_settings(
        SITEMAPKIT_SITES={"www": SITE, "shop": "https://shop.example.com"}, ALLOWED_HOSTS=["*"]
    ):
        outcome(output=str(tmp_path / "sites"), verbosity=0)
        Article.objects.filter(pk=shop[0].pk).delete()
        _, _, code = outcome(output=str(tmp_path / "sites"), report=str(path), max_removed=20)
    report = times(json.loads(path.read_bytes()))
    assert (code, list(report["sites"]), report["published"]) == (1, ["www", "shop"], True)
    www, refused = site_part(report, "www"), site_part(report, "shop")
    assert (www["outcome"], www["counts"]["removed"], www["sections"]["articles"]["removed"]) == (
        "published",
        1,
        [listed(shop[0])],
    )
    assert (refused["outcome"], refused["counts"]["removed"]) == ("refused", 1)
    assert refused["sections"]["articles"]["removed"] == [
        {
            "url": f"https://shop.example.com/articles/{shop[0].slug}/",
            "lastmod": UPDATED.isoformat(),
        }
    ]


def test_the_report_and_indexnow_read_the_same_changes(
    sources: Sources, out: Path, tmp_path: Path, endpoint: Endpoint
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    outcome(output=str(out), verbosity=0)
    Article.objects.filter(pk__in=[rows[2].pk, rows[9].pk]).delete()
    Article.objects.filter(pk=rows[6].pk).update(updated_at=LATER)
    bulk_articles(2, updated_at=LATER)
    outcome(output=str(out), verbosity=0, report=str(tmp_path / "report.json"))
    part = site_part(json.loads((tmp_path / "report.json").read_bytes()))
    reported = [
        change["url"]
        for kind in ("added", "removed", "changed")
        for change in part["sections"]["articles"][kind]
    ]
    (sent,) = [request.json["urlList"] for request in endpoint.received]
    assert (len(reported), sorted(reported)) == (5, sent)


class CountingStorage(FileSystemStorage):
    """A storage that notes each page read through it."""

    opened: list[str] = []

    def open(self, name: str, mode: str = "rb") -> Any:
        if name.startswith("sitemap-"):
            self.opened.append(name)
        return super().open(name, mode)


def test_only_a_report_or_a_limit_reads_the_published_pages(
    sources: Sources, tmp_path: Path
) -> None:
    sources(FourPerPage)
    rows = sorted(bulk_articles(10, updated_at=UPDATED), key=lambda row: row.pk)
    backend = f"{__name__}.CountingStorage"
    stores = {"sitemaps": {"BACKEND": backend, "OPTIONS": {"location": str(tmp_path / "s")}}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        outcome(verbosity=0)
        reads: list[list[str]] = []
        each: list[dict[str, Any]] = [
            {},
            {"report": str(tmp_path / "report.json")},
            {"max_removed": 50},
        ]
        for options in each:
            Article.objects.filter(pk=rows[5].pk).update(
                updated_at=LATER + dt.timedelta(len(reads))
            )
            CountingStorage.opened = []
            outcome(verbosity=0, **options)
            reads.append(CountingStorage.opened)
    # Without either, a build costs what it did: no published page is read back.
    assert reads == [[], ["sitemap-articles-2.xml"], ["sitemap-articles-2.xml"]]


class FiftyPerPage(ArticleSource):
    limit = 50


def test_a_report_that_fills_the_disk_fails_the_run_after_the_publish(
    sources: Sources, out: Path, tmp_path: Path
) -> None:
    # RLIMIT_FSIZE makes any write past 32 KiB fail with EFBIG, as a full disk
    # fails with ENOSPC: the pages and the manifest fit, the report of 400 URLs does not.
    sources(FiftyPerPage)
    bulk_articles(400, updated_at=UPDATED)
    directory = tmp_path / "reports"
    directory.mkdir()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (32_768, hard))
    try:
        stdout, stderr, code = outcome(output=str(out), report=str(directory / "report.json"))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert (stderr, code) == (
        f"CommandError: Cannot write the report to {directory / 'report.json'}: File too "
        "large. What each site's build did is as the output above says.\n",
        1,
    )
    assert stdout.splitlines()[-1].startswith(f"Published to {out} (")
    assert os.listdir(directory) == []
