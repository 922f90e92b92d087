"""The ``build_sitemaps`` command as a user meets it: options, output and exit codes."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from built_sets import builds
from django.core.management import CommandError, call_command
from django.test import override_settings
from factories import bulk_articles
from processes import manage
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.management.commands.build_sitemaps import Command

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]


class SmallPages(ArticleSource):
    limit = 2


def run(*args: str, **options: Any) -> tuple[str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    call_command("build_sitemaps", *args, stdout=stdout, stderr=stderr, **options)
    return stdout.getvalue(), stderr.getvalue()


@pytest.mark.slow
def test_help_is_one_line() -> None:
    assert "\n" not in Command.help
    result = manage("build_sitemaps", "--help")
    assert result.returncode == 0
    assert Command.help in " ".join(result.stdout.split())


@pytest.mark.slow
def test_an_unknown_section_exits_1_naming_the_sections() -> None:
    result = manage("build_sitemaps", "--output", "/nonexistent", "--section", "nope")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "CommandError: No sitemap section named 'nope'; the sections are 'articles', 'pages'.\n",
    )


@pytest.mark.slow
def test_jobs_below_one_is_a_usage_error() -> None:
    result = manage("build_sitemaps", "--jobs", "0")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith("error: argument --jobs: must be 1 or more, not 0\n")


def test_closing_table(sources: Sources, out: Path) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(3)
    stdout, stderr = run(output=str(out))
    assert stderr == ""
    lines = [re.sub(r"\d+\.\d\d s\b", "S s", line) for line in stdout.splitlines()]
    assert lines[:2] == [
        "articles: 3 URLs in 2 files, 2 of 2 shard(s) rendered (S s)",
        "pages: 2 URLs in 1 file, 1 of 1 shard(s) rendered (S s)",
    ]
    sizes = {p.name: p.stat().st_size for p in out.iterdir()}
    articles = sizes["sitemap-articles-1.xml"] + sizes["sitemap-articles-2.xml"]
    articles_gz = sizes["sitemap-articles-1.xml.gz"] + sizes["sitemap-articles-2.xml.gz"]
    pages, pages_gz = sizes["sitemap-pages-1.xml"], sizes["sitemap-pages-1.xml.gz"]
    table = [line.split() for line in lines[2:6]]
    assert table == [
        ["Section", "Rows", "URLs", "Files", "Rendered", "Bytes", "Gzip", "bytes", "Skipped"],
        ["articles", "3", "3", "2", "2/2", f"{articles:,}", f"{articles_gz:,}", "0"],
        ["pages", "2", "2", "1", "1/1", f"{pages:,}", f"{pages_gz:,}", "0"],
        [
            "Total",
            "5",
            "5",
            "3",
            "3/3",
            f"{articles + pages:,}",
            f"{articles_gz + pages_gz:,}",
            "0",
        ],
    ]
    assert lines[6:] == [
        "Index: sitemap.xml, 3 entries. 3 of 3 shard(s) rendered in S s.",
        f"Published to {out} (8 files and the manifest): 8 written, 0 unchanged, 0 removed.",
    ]


def test_a_build_that_changes_nothing_says_so_and_publishes_nothing(
    sources: Sources, out: Path
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(3)
    run(output=str(out), verbosity=0)
    published = os.readlink(out)
    stdout, stderr = run(output=str(out))
    assert stderr == ""
    # The static pages are rendered again each time, to the same bytes.
    assert [re.sub(r"\d+\.\d\d s\b", "S s", line) for line in stdout.splitlines()] == [
        "articles: 3 URLs in 2 files, 0 of 2 shard(s) rendered (S s)",
        "pages: 2 URLs in 1 file, 1 of 1 shard(s) rendered (S s)",
        "Nothing changed: 3 shard(s) are as the manifest records them, and the 8 files in "
        f"{out} are as they were.",
    ]
    assert os.readlink(out) == published


def test_verbosity_2_lists_every_file(sources: Sources, out: Path) -> None:
    sources(SmallPages)
    bulk_articles(3)
    stdout, _ = run(output=str(out), verbosity=2)
    size = (out / "sitemap-articles-2.xml").stat().st_size
    assert f"  sitemap-articles-2.xml: 1 URLs, {size:,} bytes" in stdout.splitlines()


def test_verbosity_0_prints_nothing(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    assert run(output=str(out), verbosity=0) == ("", "")
    assert (out / "sitemap.xml").exists()


def test_verbosity_0_leaves_out_the_byte_cut_warning_too(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(250)
    with override_settings(SITEMAPKIT_MAX_BYTES=16_384):
        assert run(output=str(out), verbosity=0) == ("", "")


def test_dry_run_lists_the_shards_to_render_and_writes_nothing(sources: Sources, out: Path) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    run(output=str(out), verbosity=0)
    # The first shard changes, the last grows past page_size and is cut in two.
    Article.objects.order_by("pk")[0].delete()
    bulk_articles(2)
    before = sorted(os.listdir(builds(out))), os.readlink(out)
    stdout, stderr = run(output=str(out), dry_run=True)
    assert stderr == ""
    assert stdout == (
        f"Dry run: nothing is written. A build of {out} would:\n"
        "  articles: render 3 of 4 shard(s): sitemap-articles-1.xml; sitemap-articles-3.xml; "
        "new files\n"
        "  pages: render 1 of 1 shard(s): sitemap-pages-1.xml\n"
        "A shard's files keep their bytes, modification time and ETag when they come out the "
        "same.\n"
    )
    assert (sorted(os.listdir(builds(out))), os.readlink(out)) == before


def test_dry_run_of_a_first_build_renders_every_shard(sources: Sources, out: Path) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(3)
    assert run(output=str(out), dry_run=True) == (
        f"Dry run: nothing is written. A build of {out} would:\n"
        "  render every shard: there is no set built with these settings yet.\n"
        "  articles: render 2 of 2 shard(s): new files; new files\n"
        "  pages: render 1 of 1 shard(s): new files\n"
        "A shard's files keep their bytes, modification time and ETag when they come out the "
        "same.\n",
        "",
    )


def test_dry_run_into_a_new_directory_creates_nothing(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    run(output=str(tmp_path / "new"), dry_run=True)
    # Not even the directory of builds, or its lock.
    assert list(tmp_path.iterdir()) == []


def test_no_rows_exits_1_and_writes_nothing(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    with pytest.raises(CommandError) as raised:
        run(output=str(out))
    assert (str(raised.value), raised.value.returncode) == (
        "No sitemap section has a single URL (no rows, or none valid): nothing was "
        f"published, and nothing was written to {out}. An index must list at least one "
        "sitemap, and an empty database is more often a mistake (another DATABASES, a failed "
        "import) than a site without pages; add rows, or fix the sources, then build again.",
        1,
    )
    assert not out.exists()
    assert run(output=str(out), dry_run=True) == (
        f"Dry run: nothing is written. A build of {out} would:\n"
        "  render every shard: there is no set built with these settings yet.\n"
        "  articles: render 1 of 1 shard(s): new files\n"
        "No sitemap section has any rows: the build would publish nothing and fail.\n"
        "A shard's files keep their bytes, modification time and ETag when they come out the "
        "same.\n",
        "",
    )


def test_a_section_without_a_count_may_have_urls(sources: Sources, out: Path) -> None:
    # The static pages are not counted: a dry run cannot say the build would fail.
    sources(ArticleSource, PagesSource)
    stdout, _ = run(output=str(out), dry_run=True)
    assert "No sitemap section has any rows" not in stdout
    run(output=str(out), verbosity=0)
    assert sorted(p.name for p in out.iterdir() if p.name.endswith(".xml")) == [
        "sitemap-pages-1.xml",
        "sitemap.xml",
    ]


NO_SOURCES = (
    "No sitemap source is registered: nothing was built, and no file was written or removed. "
    "Sources are registered with @register (from django_sitemapkit import register) in the "
    "sitemaps.py module of an app in INSTALLED_APPS, which is imported at start-up. A "
    "sitemaps.py in the project package (beside settings.py), or in an app missing from "
    "INSTALLED_APPS, is never imported: move it into an installed app, or add its app to "
    "INSTALLED_APPS. Classes of django.contrib.sitemaps served by the drop-in views "
    "(django_sitemapkit.compat) are not sources: compat.register(sitemaps) in such a "
    "sitemaps.py makes each one a section, which build_sitemaps builds and verify_sitemaps "
    "checks."
)


@pytest.mark.parametrize("dry_run", [False, True])
def test_no_source_registered_fails_and_leaves_the_built_files(
    sources: Sources, out: Path, dry_run: bool
) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    run(output=str(out), verbosity=0)
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    sources()
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command(
            "build_sitemaps", output=str(out), dry_run=dry_run, stdout=stdout, stderr=stderr
        )
    assert (str(raised.value), stdout.getvalue(), stderr.getvalue()) == (NO_SOURCES, "", "")
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


@pytest.mark.slow
@pytest.mark.parametrize("args", [(), ("--dry-run",), ("--section", "articles")])
def test_no_source_registered_exits_1(tmp_path: Path, out: Path, args: tuple[str, ...]) -> None:
    # The app whose sitemaps.py registers the sources is not installed.
    result = manage("build_sitemaps", "--output", str(out), *args, settings="without_sources")
    assert (result.returncode, result.stdout) == (1, "")
    # Ends with: the system checks run first, and may have something to say.
    assert result.stderr.endswith(f"CommandError: {NO_SOURCES}\n"), result.stderr
    assert list(tmp_path.iterdir()) == []


def test_output_dir_setting_is_the_default_destination(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out)):
        run(verbosity=0)
    assert (out / "sitemap-articles-1.xml").exists()


def test_nowhere_to_write() -> None:
    with pytest.raises(CommandError) as raised:
        run()
    assert str(raised.value) == (
        "Nowhere to write: pass --output DIR, or set SITEMAPKIT_OUTPUT_DIR (a directory) or "
        "SITEMAPKIT_STORAGE (an alias of STORAGES)."
    )


def test_gzip_links_need_gzip(out: Path) -> None:
    with pytest.raises(CommandError) as raised:
        run(output=str(out), gzip=False, gzip_links=True)
    assert str(raised.value) == (
        "--gzip-links (or SITEMAPKIT_GZIP_LINKS) needs the .xml.gz files; drop --no-gzip."
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar(sources: Sources, out: Path) -> None:
    sources(ArticleSource)
    bulk_articles(2_500)
    stdout = Terminal()
    call_command("build_sitemaps", output=str(out), stdout=stdout)
    output = stdout.getvalue()
    # Drawn after each chunk of SITEMAPKIT_CHUNK_SIZE (2,000) rows.
    bar = re.search(r"\rarticles  \[(#*-*)\]  2,000/2,500 rows  [\d,]+ rows/s  ETA \d+ s", output)
    assert bar is not None, output[:300]
    assert len(bar[1]) == 24
    assert "\r\x1b[Karticles: 2,500 URLs in 1 file" in output
