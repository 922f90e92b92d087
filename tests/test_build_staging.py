"""build/staging.py through ``build_sitemaps``: a storage's build removes the local staging
directories of builds that died, and nothing else of the temporary directory."""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from factories import bulk_articles
from testapp.sitemaps import ArticleSource

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory of this process, for the test alone."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def staging_directory(root: Path, name: str) -> Path:
    """A staging directory as a build makes it: its owner file, and a staged file."""
    directory = root / name
    directory.mkdir(mode=0o700)
    (directory / ".owner").touch()
    (directory / ".shard-0-1.xml").write_bytes(b"<" * 1000)
    return directory


def build_to_storage(tmp_path: Path) -> None:
    stores = {
        "sitemaps": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "storage"), "allow_overwrite": True},
        }
    }
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps"):
        call_command("build_sitemaps", verbosity=0)


def test_a_dead_builds_staging_is_removed_and_nothing_else(
    sources: Sources, tmp_path: Path, temporary: Path
) -> None:
    sources(ArticleSource)
    bulk_articles(2)
    dead = staging_directory(temporary, "sitemapkit-00000000000000d1")
    # A build still running: its owner file is locked (here by this process).
    running = staging_directory(temporary, "sitemapkit-00000000000000a1")
    with open(running / ".owner", "rb") as owner:
        fcntl.flock(owner.fileno(), fcntl.LOCK_EX)
        # What only looks like one: no owner file, another user's, not a
        # directory, a link to a directory, another name.
        (temporary / "sitemapkit-00000000000000b1").mkdir()
        other_user = staging_directory(temporary, "sitemapkit-00000000000000b2")
        os.chown(other_user, 65534, 65534)
        (temporary / "sitemapkit-00000000000000b3").write_text("a file")
        (temporary / "sitemapkit-00000000000000b4").symlink_to(dead.parent / "linked")
        staging_directory(temporary, "linked")
        staging_directory(temporary, "sitemapkit-notes")
        build_to_storage(tmp_path)
        left = sorted(entry.name for entry in temporary.iterdir() if entry.name[0] != ".")
    assert left == [
        "linked",
        "sitemapkit-00000000000000a1",
        "sitemapkit-00000000000000b1",
        "sitemapkit-00000000000000b2",
        "sitemapkit-00000000000000b3",
        "sitemapkit-00000000000000b4",
        "sitemapkit-notes",
    ]
    assert sorted(os.listdir(temporary / "linked")) == [".owner", ".shard-0-1.xml"]
    # Now that its build is over, the next build removes it too.
    build_to_storage(tmp_path)
    assert not (temporary / "sitemapkit-00000000000000a1").exists()
