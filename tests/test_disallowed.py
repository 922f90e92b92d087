"""SITEMAPKIT_ROBOTS = "exclude" through the views: a URL the site's own robots.txt
disallows (for any crawler of SITEMAPKIT_ROBOTS_AGENTS) is left out of the XML and
HTML pages, skipped and logged as an invalid row is; a page's ETag follows the
robots.txt; one that cannot be read makes the sitemap a 503, never an empty one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client, override_settings
from factories import ArticleFactory
from plans import entries_of
from sitemap_xml import fetch, parse_extended_urlset, parse_urlset
from testapp import urls_robots
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.sites.robots_rules import Decision, Rule
from django_sitemapkit.sites.robots_txt import forget
from django_sitemapkit.sources.disallowed import Listed

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("robots_project")]
SITE = "https://www.example.com"
Sources = Callable[..., None]
DRAFTS = "User-agent: *\nDisallow: /*-draft/\n"
EXCLUDE = override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_TXT=DRAFTS)
LANGUAGES = [("en", "English"), ("fr", "French")]


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


def locations(client: Client, url: str) -> list[str]:
    status, body, _ = fetch(client, url)
    assert status == 200, body[:300]
    return [url.loc for url in parse_urlset(body)]


def drafts_and_others() -> None:
    for slug in ("first", "second-draft", "third", "fourth-draft"):
        ArticleFactory.create(slug=slug)


def disallowed(slug: str) -> str:
    return (
        f"robots.txt disallows '{SITE}/articles/{slug}/' for Googlebot (Disallow: /*-draft/, "
        "line 2)"
    )


@EXCLUDE
def test_disallowed_urls_are_left_out_of_the_page_and_logged_once(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource, PagesSource)
    drafts_and_others()
    first = Article.objects.get(slug="second-draft").pk
    assert locations(client, "/sitemap-articles-1.xml") == [
        f"{SITE}/articles/first/",
        f"{SITE}/articles/third/",
    ]
    assert logged(caplog) == [
        ("WARNING", f"Skipped pk={first} of source 'articles': {disallowed('second-draft')}."),
        (
            "WARNING",
            "Skipped 1 more row of source 'articles' on page 1 for the same reason as "
            f"pk={first} (2 in all).",
        ),
    ]
    # Asked once, for the site's host and scheme, whatever the requests.
    assert locations(client, "/sitemap-pages-1.xml") == [f"{SITE}/", f"{SITE}/about/"]
    assert urls_robots.asked == [f"{SITE}/robots.txt"]


@EXCLUDE
def test_the_html_page_leaves_them_out_too(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    drafts_and_others()
    status, body, _ = fetch(client, "/sitemap-articles-1.html")
    assert status == 200
    assert b"/articles/first/" in body
    assert b"/articles/third/" in body
    assert b"draft" not in body


@override_settings(
    SITEMAPKIT_ROBOTS="exclude",
    TEST_ROBOTS_TXT="User-agent: Bingbot\nDisallow: /articles/third/\n\n" + DRAFTS,
)
def test_a_url_any_crawler_may_not_fetch_is_left_out(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    drafts_and_others()
    # Bingbot has a group of its own, which allows the drafts: Googlebot's "*" does not.
    assert locations(client, "/sitemap-articles-1.xml") == [f"{SITE}/articles/first/"]
    with override_settings(SITEMAPKIT_ROBOTS_AGENTS=["Googlebot"]):
        assert locations(client, "/sitemap-articles-1.xml") == [
            f"{SITE}/articles/first/",
            f"{SITE}/articles/third/",
        ]


@pytest.mark.parametrize("mode", [None, "warn"])
def test_otherwise_the_views_list_everything_and_ask_nothing(
    mode: str | None, client: Client, sources: Sources
) -> None:
    sources(ArticleSource)
    drafts_and_others()
    with override_settings(SITEMAPKIT_ROBOTS=mode, TEST_ROBOTS_TXT=DRAFTS):
        assert len(locations(client, "/sitemap-articles-1.xml")) == 4
    assert urls_robots.asked == []


class Translated(ArticleSource):
    name = "translated"
    i18n = True
    alternates = True


def test_each_language_is_judged_on_its_own(
    client: Client, sources: Sources, tmp_path: Path
) -> None:
    """robots.txt keeps crawlers out of the French pages: the English ones stay listed,
    their alternates as they were."""
    sources(Translated)
    ArticleFactory.create(slug="a")
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /fr/\n")
    with override_settings(
        SITEMAPKIT_ROBOTS="exclude",
        SITEMAPKIT_ROBOTS_FILE=robots,
        ROOT_URLCONF="testapp.urls_i18n",
        LANGUAGES=LANGUAGES,
        LANGUAGE_CODE="en",
        USE_I18N=True,
    ):
        status, body, _ = fetch(client, "/sitemap-translated-1.xml")
    assert status == 200
    (url,) = parse_extended_urlset(body)
    assert url.loc == f"{SITE}/en/articles/a/"
    assert url.alternates == [("en", f"{SITE}/en/articles/a/"), ("fr", f"{SITE}/fr/articles/a/")]


@override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_STRICT=True, TEST_ROBOTS_TXT=DRAFTS)
def test_strict_mode_leaves_them_out_without_raising(caplog: pytest.LogCaptureFixture) -> None:
    # A URL robots.txt disallows is a declared exclusion, like a foreign canonical:
    # nothing is wrong with its row, so strict mode has nothing to raise.
    drafts_and_others()
    pk = Article.objects.get(slug="second-draft").pk
    with caplog.at_level("WARNING", logger="django_sitemapkit"):
        entries = entries_of(ArticleSource())
    assert [entry.loc for entry in entries] == [
        f"{SITE}/articles/{slug}/" for slug in ("first", "third")
    ]
    assert f"Skipped pk={pk} of source 'articles': {disallowed('second-draft')}." in (
        caplog.messages
    )


@EXCLUDE
def test_the_etag_follows_the_robots_txt(client: Client, sources: Sources) -> None:
    sources(ArticleSource)
    drafts_and_others()
    etag = fetch(client, "/sitemap-articles-1.xml")[2]["ETag"]
    assert fetch(client, "/sitemap-articles-1.xml")[2]["ETag"] == etag
    forget()
    with override_settings(TEST_ROBOTS_TXT="User-agent: *\nDisallow: /*third/\n"):
        status, _, headers = fetch(client, "/sitemap-articles-1.xml", if_none_match=etag)
    assert status == 200
    assert headers["ETag"] != etag


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_STATUS=503)
def test_a_robots_txt_that_fails_makes_the_sitemap_a_503(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    drafts_and_others()
    status, body, headers = fetch(client, "/sitemap-articles-1.xml")
    assert (status, headers["Retry-After"]) == (503, "120")
    assert body == b"The sitemap is unavailable; try again later.\n"
    assert logged(caplog) == [
        (
            "ERROR",
            "Page 1 of sitemap source 'articles' cannot be written under SITEMAPKIT_ROBOTS = "
            f"'exclude': {SITE}/robots.txt answered 503, which crawlers read as disallowing "
            "everything (RFC 9309 section 2.3.1.4). It is answered with 503 and Retry-After.",
        )
    ]
    # The index and the HTML sitemap too; the failure is kept a minute, not asked again.
    assert fetch(client, "/sitemap.xml")[0] == fetch(client, "/sitemap.html")[0] == 503
    assert len(urls_robots.asked) == 1


class TwoPerPage(ArticleSource):
    limit = 2


@EXCLUDE
def test_a_page_whose_every_url_is_left_out_is_a_404(client: Client, sources: Sources) -> None:
    sources(TwoPerPage)
    for slug in ("a", "b", "c-draft", "d-draft", "e"):
        ArticleFactory.create(slug=slug)
    # Its rows are in the database, so the index lists it.
    assert fetch(client, "/sitemap.xml")[1].count(b"<loc>") == 3
    assert fetch(client, "/sitemap-articles-2.xml")[0] == 404
    assert locations(client, "/sitemap-articles-3.xml") == [f"{SITE}/articles/e/"]


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_STATUS=404)
def test_a_robots_txt_that_is_not_found_allows_everything(
    client: Client, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    sources(ArticleSource)
    drafts_and_others()
    caplog.set_level(logging.WARNING)
    assert len(locations(client, "/sitemap-articles-1.xml")) == 4
    assert [level for level, _ in logged(caplog)] == ["WARNING"]


def test_listed_names_the_first_few() -> None:
    listed = Listed()
    rule = Rule.compile(False, "/x", 3)
    for n in range(7):
        listed.note(f"{SITE}/x{n}", Decision(False, "Googlebot", rule))
    assert listed.number() == "7 URLs"
    assert listed.examples() == (
        ", ".join(f"{SITE}/x{n} (Googlebot: Disallow: /x)" for n in range(5)) + ", and 2 more"
    )
