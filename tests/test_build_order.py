"""build/order.py through ``build_sitemaps``: a storage's publish that stops before any
one of its writes leaves every page one version to every reader, and its linked
name always there."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot, without_times
from django.core.files.storage import FileSystemStorage
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from factories import bulk_articles
from sitemap_xml import versions_served
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.build.order import publish_order, publish_waves

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
SITE = "https://www.example.com"
FIRST = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


class SmallPages(ArticleSource):
    limit = 2


class FailingWrites(FileSystemStorage):
    """A storage whose write number ``fail_at`` (a save or a delete; 0: none) raises, as
    one whose server stops answering at that moment would."""

    def __init__(self, *, fail_at: int = 0, **options: Any) -> None:
        super().__init__(**options)
        self.fail_at = fail_at
        self.writes: list[str] = []

    def count(self, what: str) -> None:
        self.writes.append(what)
        if len(self.writes) == self.fail_at:
            raise ConnectionError(f"the storage went away before {what}")

    def save(self, name: str | None, content: Any, max_length: int | None = None) -> str:
        self.count(f"saving {name}")
        return super().save(name, content, max_length)

    def delete(self, name: str) -> None:
        self.count(f"deleting {name}")
        super().delete(name)


@pytest.fixture
def location(tmp_path: Path) -> Path:
    return tmp_path / "storage"


def storages_failing_at(location: Path, fail_at: int) -> dict[str, Any]:
    options = {"location": str(location), "allow_overwrite": True, "fail_at": fail_at}
    return {"sitemaps": {"BACKEND": f"{__name__}.FailingWrites", "OPTIONS": options}}


def serving(location: Path) -> override_settings:
    stores = storages_failing_at(location, 0)
    return override_settings(
        STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps", SITEMAPKIT_SERVE="files"
    )


def build_failing_at(location: Path, fail_at: int, **options: Any) -> str | None:
    """Build into the storage, its write ``fail_at`` failing; the error the build
    stopped with, ``None`` if it ended."""
    stores = storages_failing_at(location, fail_at)
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        try:
            call_command("build_sitemaps", verbosity=0, **options)
        except CommandError as exc:
            return str(exc)
    return None


# Some 40 builds: seconds.
@pytest.mark.slow
@pytest.mark.parametrize("gzip_links", [False, True], ids=["xml linked", "gz linked"])
def test_a_publish_stopped_before_any_write_never_serves_two_versions(
    client: Client, sources: Sources, location: Path, tmp_path: Path, gzip_links: bool
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    Article.objects.update(updated_at=FIRST)
    assert build_failing_at(location, 0, gzip_links=gzip_links) is None
    fail_at = 0
    while True:
        fail_at += 1
        # Every page of articles changes: each is replaced, .xml and .gz.
        Article.objects.update(updated_at=FIRST + dt.timedelta(minutes=fail_at))
        error = build_failing_at(location, fail_at, gzip_links=gzip_links)
        stopped = "Publishing to storage 'sitemaps' stopped: ConnectionError: the storage went away"
        assert error is None or error.startswith(stopped), error
        # The linked URL is always there; every reader gets one version.
        with serving(location):
            for loc, got in versions_served(client, SITE):
                assert len(got) == 1, f"(the write {fail_at} failed; {loc})"
        if error is None:
            break
        # The next build publishes the whole set.
        assert build_failing_at(location, 0, gzip_links=gzip_links) is None
    # Each write failed in turn: those of a build that replaces 3 pages and the
    # index (the 4 unlinked names deleted, 8 files and the manifest saved).
    assert fail_at - 1 == 13
    call_command(
        "build_sitemaps", output=str(tmp_path / "fresh"), verbosity=0, gzip_links=gzip_links
    )
    stored = {path.name: path.read_bytes() for path in location.iterdir()}
    assert without_times(stored) == snapshot(tmp_path / "fresh", built=False)


def page(name: str) -> ManifestFile:
    return ManifestFile(name, 1, None, 100, 50, "0" * 64)


def test_the_linked_name_goes_first() -> None:
    assert publish_order(page("sitemap-a-1.xml"), gzip_links=False) == [
        "sitemap-a-1.xml",
        "sitemap-a-1.xml.gz",
    ]
    assert publish_order(page("sitemap-a-1.xml"), gzip_links=True) == [
        "sitemap-a-1.xml.gz",
        "sitemap-a-1.xml",
    ]
    # robots.txt links the index's .xml, whatever the index links.
    assert publish_order(page("sitemap.xml"), gzip_links=True) == ["sitemap.xml", "sitemap.xml.gz"]


def test_the_unlinked_names_go_first_and_are_uploaded_after_the_linked_ones() -> None:
    written = [
        *publish_order(page("sitemap-a-1.xml"), gzip_links=False),
        "sitemap-b-1.xml",  # --no-gzip
        *publish_order(page("sitemap-a-2.xml"), gzip_links=False),
        *publish_order(page("sitemap.xml"), gzip_links=False),
    ]
    assert publish_waves(written) == (
        ["sitemap-a-1.xml.gz", "sitemap-a-2.xml.gz", "sitemap.xml.gz"],
        [
            ["sitemap-a-1.xml", "sitemap-b-1.xml", "sitemap-a-2.xml"],
            ["sitemap-a-1.xml.gz", "sitemap-a-2.xml.gz"],
            ["sitemap.xml"],
            ["sitemap.xml.gz"],
        ],
    )
