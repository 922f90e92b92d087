"""SITEMAPKIT_ROBOTS in build_sitemaps: "exclude" leaves the URLs robots.txt
disallows out of the built files (a new robots.txt renders them again; one that
cannot be read fails the build and keeps the last good set); "warn" lists them, and
says so in one warning per shard naming the section, the count and the first few."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from built_sets import leftovers, snapshot
from django.core.management import CommandError, call_command
from django.test import override_settings
from factories import ArticleFactory
from sitemap_xml import parse_urlset
from testapp import urls_robots
from testapp.sitemaps import ArticleSource

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("robots_project")]
SITE = "https://www.example.com"
Sources = Callable[..., None]
DRAFTS = "User-agent: *\nDisallow: /*-draft/\n"


class SmallPages(ArticleSource):
    name = "articles"
    limit = 2


def build(output: Path, **options: object) -> str:
    stdout = io.StringIO()
    call_command("build_sitemaps", output=str(output), stdout=stdout, **options)
    return stdout.getvalue()


def built_locations(output: Path) -> list[str]:
    names = sorted(p.name for p in output.iterdir() if p.name.startswith("sitemap-articles-"))
    return [
        url.loc
        for name in names
        if name.endswith(".xml")
        for url in parse_urlset((output / name).read_bytes())
    ]


def drafts_and_others() -> None:
    for slug in ("first", "second-draft", "third", "fourth-draft", "fifth"):
        ArticleFactory.create(slug=slug)


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
def test_exclude_leaves_them_out_of_the_built_files(out: Path, sources: Sources) -> None:
    sources(SmallPages)
    drafts_and_others()
    printed = build(out)
    # Pages keep their rows: a page whose rows are skipped is left short.
    assert built_locations(out) == [
        f"{SITE}/articles/first/",
        f"{SITE}/articles/third/",
        f"{SITE}/articles/fifth/",
    ]
    (articles,) = [line for line in printed.splitlines() if line.startswith("articles ")]
    # Section, rows, URLs, files, shards rendered, ..., skipped.
    cells = articles.split()
    assert cells[:5] + cells[-1:] == ["articles", "5", "3", "3", "3/3", "2"]
    assert urls_robots.asked == [f"{SITE}/robots.txt"]


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
def test_a_page_whose_every_url_is_left_out_has_no_file(out: Path, sources: Sources) -> None:
    sources(SmallPages)
    for slug in ("a", "b", "c-draft", "d-draft", "e"):
        ArticleFactory.create(slug=slug)
    build(out)
    assert built_locations(out) == [
        f"{SITE}/articles/a/",
        f"{SITE}/articles/b/",
        f"{SITE}/articles/e/",
    ]
    files = sorted(p.name for p in out.iterdir() if p.name.endswith(".xml"))
    # Each shard keeps its own name: page 2's shard wrote nothing.
    assert files == ["sitemap-articles-1.xml", "sitemap-articles-3.xml", "sitemap.xml"]
    assert (out / "sitemap.xml").read_bytes().count(b"<loc>") == 2


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
def test_jobs_render_with_the_robots_txt_the_build_read(out: Path, sources: Sources) -> None:
    """``--jobs`` processes are forked after the plan: they judge by the robots.txt the
    build read."""
    sources(SmallPages)
    drafts_and_others()
    build(out, jobs=2)
    assert built_locations(out) == [
        f"{SITE}/articles/first/",
        f"{SITE}/articles/third/",
        f"{SITE}/articles/fifth/",
    ]


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
def test_a_new_robots_txt_renders_every_shard_again(out: Path, sources: Sources) -> None:
    sources(SmallPages)
    drafts_and_others()
    build(out)
    # The rows are as they were: only the robots.txt changed.
    with override_settings(TEST_ROBOTS_TXT="User-agent: *\nDisallow: /articles/third/\n"):
        build(out)
    assert built_locations(out) == [
        f"{SITE}/articles/first/",
        f"{SITE}/articles/second-draft/",
        f"{SITE}/articles/fourth-draft/",
        f"{SITE}/articles/fifth/",
    ]
    # Each build reads it once, afresh.
    assert urls_robots.asked == [f"{SITE}/robots.txt"] * 2


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
def test_a_robots_txt_that_fails_fails_the_build_and_keeps_the_set(
    out: Path, sources: Sources
) -> None:
    sources(SmallPages)
    drafts_and_others()
    build(out)
    previous = snapshot(out)
    with override_settings(TEST_ROBOTS_STATUS=500), pytest.raises(CommandError) as raised:
        build(out)
    assert str(raised.value) == (
        f"RobotsUnavailable: {SITE}/robots.txt answered 500, which crawlers read as "
        "disallowing everything (RFC 9309 section 2.3.1.4). Nothing was published: the files "
        f"in {out} are as they were."
    )
    assert snapshot(out) == previous
    assert leftovers(out) == []


@override_settings(SITEMAPKIT_ROBOTS="warn", TEST_ROBOTS_TXT=DRAFTS)
def test_warn_lists_them_and_names_them_in_one_warning(
    out: Path, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    drafts_and_others()
    build(out)
    assert len(built_locations(out)) == 5
    assert logged(caplog) == [
        (
            "WARNING",
            "Section 'articles' lists 2 URLs that robots.txt disallows (page 1): "
            f"{SITE}/articles/second-draft/ (Googlebot: Disallow: /*-draft/), "
            f"{SITE}/articles/fourth-draft/ (Googlebot: Disallow: /*-draft/). robots.txt is "
            f"{SITE}/robots.txt (through Django), read for Googlebot, Bingbot; "
            "SITEMAPKIT_ROBOTS = 'exclude' leaves them out.",
        )
    ]


@override_settings(SITEMAPKIT_ROBOTS="warn", TEST_ROBOTS_TXT=DRAFTS)
def test_warn_names_the_pages_of_a_shard(
    out: Path, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(SmallPages)
    for slug in ("a-draft", "b", "c", "d", "e-draft"):
        ArticleFactory.create(slug=slug)
    build(out)
    messages = [message for level, message in logged(caplog) if level == "WARNING"]
    assert [message.split(" (")[0] for message in messages] == [
        "Section 'articles' lists 1 URL that robots.txt disallows"
    ] * 2
    assert [message.split("(")[1].split(")")[0] for message in messages] == ["page 1", "page 3"]


@override_settings(SITEMAPKIT_ROBOTS="warn", TEST_ROBOTS_STATUS=503)
def test_warn_builds_whatever_robots_txt_answers(
    out: Path, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    drafts_and_others()
    caplog.set_level(logging.ERROR)
    build(out)
    assert len(built_locations(out)) == 5
    assert logged(caplog) == [
        (
            "ERROR",
            f"SITEMAPKIT_ROBOTS = 'warn': {SITE}/robots.txt answered 503, which crawlers read "
            "as disallowing everything (RFC 9309 section 2.3.1.4). The URLs of this build are "
            "not checked against it.",
        )
    ]
