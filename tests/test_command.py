"""The ``build_sitemaps`` command as a user meets it: options, output and exit codes."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
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


def test_help_is_one_line() -> None:
    assert "\n" not in Command.help
    result = manage("build_sitemaps", "--help")
    assert result.returncode == 0
    assert Command.help in " ".join(result.stdout.split())


def test_an_unknown_section_exits_1_naming_the_sections() -> None:
    result = manage("build_sitemaps", "--output", "/nonexistent", "--section", "nope")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "CommandError: No sitemap section named 'nope'; the sections are 'articles', 'pages'.\n",
    )


def test_jobs_below_one_is_a_usage_error() -> None:
    result = manage("build_sitemaps", "--jobs", "0")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith("error: argument --jobs: must be 1 or more, not 0\n")


def test_closing_table(sources: Sources, tmp_path: Path) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(3)
    stdout, stderr = run(output=str(tmp_path))
    assert stderr == ""
    lines = stdout.splitlines()
    assert re.fullmatch(r"articles: 3 URLs in 2 files \(\d+\.\d\d s\)", lines[0])
    assert re.fullmatch(r"pages: 2 URLs in 1 file \(\d+\.\d\d s\)", lines[1])
    sizes = {p.name: p.stat().st_size for p in tmp_path.iterdir()}
    articles = sizes["sitemap-articles-1.xml"] + sizes["sitemap-articles-2.xml"]
    articles_gz = sizes["sitemap-articles-1.xml.gz"] + sizes["sitemap-articles-2.xml.gz"]
    table = [re.sub(r"\d+\.\d\d$", "S", line).split() for line in lines[2:6]]
    assert table == [
        [
            "Section",
            "Rows",
            "URLs",
            "Files",
            "Bytes",
            "Gzip",
            "bytes",
            "Skipped",
            "rows",
            "Seconds",
        ],
        ["articles", "3", "3", "2", f"{articles:,}", f"{articles_gz:,}", "0", "S"],
        [
            "pages",
            "2",
            "2",
            "1",
            f"{sizes['sitemap-pages-1.xml']:,}",
            f"{sizes['sitemap-pages-1.xml.gz']:,}",
            "0",
            "S",
        ],
        [
            "Total",
            "5",
            "5",
            "3",
            f"{articles + sizes['sitemap-pages-1.xml']:,}",
            f"{articles_gz + sizes['sitemap-pages-1.xml.gz']:,}",
            "0",
            "S",
        ],
    ]
    assert lines[6:] == [
        "Index: sitemap.xml, 3 entries.",
        f"Published to {tmp_path} (pages, .gz siblings and the index): 8 written, "
        "0 unchanged, 0 removed.",
    ]


def test_verbosity_2_lists_every_file(sources: Sources, tmp_path: Path) -> None:
    sources(SmallPages)
    bulk_articles(3)
    stdout, _ = run(output=str(tmp_path), verbosity=2)
    size = (tmp_path / "sitemap-articles-2.xml").stat().st_size
    assert f"  sitemap-articles-2.xml: 1 URLs, {size:,} bytes" in stdout.splitlines()


def test_verbosity_0_prints_nothing(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(3)
    assert run(output=str(tmp_path), verbosity=0) == ("", "")
    assert (tmp_path / "sitemap.xml").exists()


def test_verbosity_0_leaves_out_the_byte_cut_warning_too(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(250)
    with override_settings(SITEMAPKIT_MAX_BYTES=16_384):
        assert run(output=str(tmp_path), verbosity=0) == ("", "")


def test_dry_run_lists_the_files_and_writes_nothing(sources: Sources, tmp_path: Path) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    run(output=str(tmp_path), verbosity=0)
    Article.objects.filter(pk__in=Article.objects.order_by("-pk").values("pk")[:3]).delete()
    before = sorted(p.name for p in tmp_path.iterdir())
    stdout, stderr = run(output=str(tmp_path), dry_run=True)
    assert stderr == ""
    assert stdout == (
        f"Dry run: nothing is written. A build would write to {tmp_path}:\n"
        "  articles: sitemap-articles-1.xml, sitemap-articles-1.xml.gz\n"
        "  pages: sitemap-pages-1.xml, sitemap-pages-1.xml.gz\n"
        "  index: sitemap.xml, sitemap.xml.gz\n"
        "and remove: sitemap-articles-2.xml, sitemap-articles-2.xml.gz, "
        "sitemap-articles-3.xml, sitemap-articles-3.xml.gz\n"
        "File numbers assume no page reaches SITEMAPKIT_MAX_BYTES (52,428,800 bytes); "
        "a build cuts such a page in two.\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_dry_run_into_a_new_directory_creates_nothing(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    run(output=str(tmp_path / "new"), dry_run=True)
    assert not (tmp_path / "new").exists()


def test_nothing_to_do(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    stdout, stderr = run(output=str(tmp_path))
    assert re.fullmatch(r"articles: 0 URLs in 0 files \(\d+\.\d\d s\)", stdout.splitlines()[0])
    assert (stdout.splitlines(keepends=True)[1], stderr) == (
        f"No sitemap section has any rows: nothing to write. The files in {tmp_path} are "
        "left as they are.\n",
        "",
    )
    assert run(output=str(tmp_path), dry_run=True) == (
        "No sitemap section has any rows: nothing would be written.\n",
        "",
    )


NO_SOURCES = (
    "No sitemap source is registered: nothing was built, and no file was written or removed. "
    "Sources are registered with @register (from django_sitemapkit import register) in the "
    "sitemaps.py module of an app in INSTALLED_APPS, which is imported at start-up. A "
    "sitemaps.py in the project package (beside settings.py), or in an app missing from "
    "INSTALLED_APPS, is never imported: move it into an installed app, or add its app to "
    "INSTALLED_APPS."
)


@pytest.mark.parametrize("dry_run", [False, True])
def test_no_source_registered_fails_and_leaves_the_built_files(
    sources: Sources, tmp_path: Path, dry_run: bool
) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    run(output=str(tmp_path), verbosity=0)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    sources()
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError) as raised:
        call_command(
            "build_sitemaps", output=str(tmp_path), dry_run=dry_run, stdout=stdout, stderr=stderr
        )
    assert (str(raised.value), stdout.getvalue(), stderr.getvalue()) == (NO_SOURCES, "", "")
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


@pytest.mark.parametrize("args", [(), ("--dry-run",), ("--section", "articles")])
def test_no_source_registered_exits_1(tmp_path: Path, args: tuple[str, ...]) -> None:
    # The app whose sitemaps.py registers the sources is not installed.
    result = manage("build_sitemaps", "--output", str(tmp_path), *args, settings="without_sources")
    assert (result.returncode, result.stdout) == (1, "")
    # Ends with: the system checks run first, and may have something to say.
    assert result.stderr.endswith(f"CommandError: {NO_SOURCES}\n"), result.stderr
    assert list(tmp_path.iterdir()) == []


def test_output_dir_setting_is_the_default_destination(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(1)
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        run(verbosity=0)
    assert (tmp_path / "sitemap-articles-1.xml").exists()


def test_nowhere_to_write() -> None:
    with pytest.raises(CommandError) as raised:
        run()
    assert str(raised.value) == (
        "Nowhere to write: pass --output DIR, or set SITEMAPKIT_OUTPUT_DIR (a directory) or "
        "SITEMAPKIT_STORAGE (an alias of STORAGES)."
    )


def test_gzip_links_need_gzip(tmp_path: Path) -> None:
    with pytest.raises(CommandError) as raised:
        run(output=str(tmp_path), gzip=False, gzip_links=True)
    assert str(raised.value) == (
        "--gzip-links (or SITEMAPKIT_GZIP_LINKS) needs the .xml.gz files; drop --no-gzip."
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    bulk_articles(2_500)
    stdout = Terminal()
    call_command("build_sitemaps", output=str(tmp_path), stdout=stdout)
    output = stdout.getvalue()
    # Drawn after each chunk of SITEMAPKIT_CHUNK_SIZE (2,000) rows.
    bar = re.search(r"\rarticles  \[(#*-*)\]  2,000/2,500 rows  [\d,]+ rows/s  ETA \d+ s", output)
    assert bar is not None, output[:300]
    assert len(bar[1]) == 24
    assert "\r\x1b[Karticles: 2,500 URLs in 1 file" in output
