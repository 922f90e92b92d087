"""build/fingerprints.py through ``build_sitemaps``: the gzip level is part of what a set
was built with. Each ``.gz`` is the deterministic gzip of its ``.xml`` at
``SITEMAPKIT_GZIP_LEVEL``, the same bytes from build to build, and a build after a
change of the level writes every ``.gz`` again."""

from __future__ import annotations

import gzip
import io
import zlib
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import override_settings
from factories import bulk_articles
from testapp.sitemaps import ArticleSource

from django_sitemapkit.build.fingerprints import settings_fingerprint
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.hosts import default_site

pytestmark = pytest.mark.django_db


class TenPerPage(ArticleSource):
    limit = 10


def build(output: Path, **options: Any) -> str:
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(output), stdout=stdout, **options)
    return stdout.getvalue()


def at_level(level: int, data: bytes) -> bytes:
    compressor = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def compressed(output: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(output.glob("*.gz"))}


def identities(output: Path) -> dict[str, int]:
    """Each file's inode: a file the build wrote again has a new one."""
    return {path.name: path.stat().st_ino for path in output.iterdir()}


@pytest.fixture
def articles(sources: Any) -> None:
    sources(TenPerPage)
    bulk_articles(25)


@pytest.mark.parametrize("level", [1, 6, 9])
@pytest.mark.usefixtures("articles")
def test_each_gz_is_its_xml_at_the_configured_level(tmp_path: Path, level: int) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    with override_settings(SITEMAPKIT_GZIP_LEVEL=level):
        build(first)
        build(second)
    files = compressed(first)
    assert len(files) == 4  # three pages and the index
    for name, data in files.items():
        xml = (first / name.removesuffix(".gz")).read_bytes()
        assert data == at_level(level, xml)
        assert gzip.decompress(data) == xml
    # Deterministic: two builds of the same rows, the same bytes.
    assert compressed(second) == files


@pytest.mark.usefixtures("articles")
def test_the_default_level_is_7(out: Path) -> None:
    build(out)
    for name, data in compressed(out).items():
        assert data == at_level(7, (out / name.removesuffix(".gz")).read_bytes())


@pytest.mark.usefixtures("articles")
def test_a_new_level_writes_every_gz_again(out: Path) -> None:
    build(out)
    xml = {name: (out / name).read_bytes() for name in identities(out) if name.endswith(".xml")}
    before = identities(out)
    # The same documents: the index keeps each file's date (build/dates.py).
    index = (out / "sitemap.xml").read_bytes()
    # The same level again: nothing to write.
    assert build(out).splitlines()[-1].startswith("Nothing changed: ")
    assert identities(out) == before
    with override_settings(SITEMAPKIT_GZIP_LEVEL=9):
        summary = build(out)
        assert "articles: 25 URLs in 3 files, 3 of 3 shard(s) rendered " in summary
        for name, data in compressed(out).items():
            assert data == at_level(9, xml[name.removesuffix(".gz")])
        rewritten = identities(out)
        assert {name for name in before if before[name] != rewritten[name]} >= set(compressed(out))
        assert (out / "sitemap.xml").read_bytes() == index
        # And at 9 again, nothing.
        assert build(out).splitlines()[-1].startswith("Nothing changed: ")


def test_the_level_is_in_the_settings_fingerprint_only_with_gzip() -> None:
    site = default_site()
    with override_settings(SITEMAPKIT_GZIP_LEVEL=6):
        six = settings_fingerprint(site, BuildOptions(gzip=True))
        six_off = settings_fingerprint(site, BuildOptions(gzip=False))
    with override_settings(SITEMAPKIT_GZIP_LEVEL=9):
        nine = settings_fingerprint(site, BuildOptions(gzip=True))
        nine_off = settings_fingerprint(site, BuildOptions(gzip=False))
    assert six != nine
    # Without .gz files, the level writes no byte: the set keeps its fingerprint.
    assert six_off == nine_off
