"""``verify_sitemaps`` requests the sitemap's own documents: the index and each page it
lists must answer 200 with at least one URL; a run that requested no URL says so
and fails, and never says "No problem found"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings
from testapp.sitemaps import ArticleSource, PagesSource
from verified import articles, verify, verify_site  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_site")]
BASE = "https://www.example.com"


def test_a_page_that_fails_and_a_page_that_lists_nothing(sources: Any, tmp_path: Path) -> None:
    sources(ArticleSource, PagesSource)
    articles("first")
    report = tmp_path / "report.json"
    failing = f"{BASE}/sitemap-articles-1.xml"
    empty = f"{BASE}/sitemap-pages-1.xml"
    with override_settings(ROOT_URLCONF="testapp.urls_verify_documents"):
        assert verify(json=str(report)) == (
            "sitemap.xml: the index and 2 pages requested, 2 problems (S s)\n"
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
            "Found 2 problems:\n"
            "sitemap.xml, a sitemap document that does not answer 200: 1 URL\n"
            f"  {failing}  500, ValueError: the sitemap's source failed\n"
            "sitemap.xml, a sitemap document that lists no URL: 1 URL\n"
            f"  {empty}  200, no <loc>\n"
            "3 URLs requested in S s, S ms a URL.\n",
            "CommandError: 2 problems found, more than --max-problems 0.\n",
            1,
        )
    found = json.loads(report.read_text())
    assert (found["problems"], found["documents"]) == (
        [
            {
                "site": "default",
                "section": "sitemap.xml",
                "url": failing,
                "reason": "sitemap-status",
                "detail": "500, ValueError: the sitemap's source failed",
            },
            {
                "site": "default",
                "section": "sitemap.xml",
                "url": empty,
                "reason": "sitemap-empty",
                "detail": "200, no <loc>",
            },
        ],
        [
            {
                "site": "default",
                "requested": 3,
                "problems": {"sitemap-status": 1, "sitemap-empty": 1},
            }
        ],
    )


def test_an_index_that_is_no_sitemap(sources: Any) -> None:
    sources(ArticleSource)
    articles("first")
    with override_settings(ROOT_URLCONF="testapp.urls_verify_index"):
        assert verify() == (
            "sitemap.xml: the index requested, 1 problem (S s)\n"
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "Found 1 problem:\n"
            "sitemap.xml, a sitemap document that is not one: 1 URL\n"
            f"  {BASE}/sitemap.xml  sitemap.xml is not well-formed XML: syntax error: line 1, "
            "column 0.\n"
            "1 URL requested in S s, S ms a URL.\n",
            "CommandError: 1 problem found, more than --max-problems 0.\n",
            1,
        )


def test_a_section_chosen_requests_its_own_pages(sources: Any) -> None:
    sources(ArticleSource, PagesSource)
    articles("first")
    with override_settings(ROOT_URLCONF="testapp.urls_verify_documents"):
        assert verify("--section", "pages", "--max-problems", "1") == (
            "sitemap.xml: the index and 1 page requested, 1 problem (S s)\n"
            "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
            "Found 1 problem:\n"
            "sitemap.xml, a sitemap document that lists no URL: 1 URL\n"
            f"  {BASE}/sitemap-pages-1.xml  200, no <loc>\n"
            "2 URLs requested in S s, S ms a URL.\n",
            "",
            0,
        )


class Elsewhere(ArticleSource):
    """Every row's location on another host: each row is skipped, none listed."""

    def location(self, row: Any) -> str:
        return f"https://elsewhere.example/articles/{row['slug']}/"


def test_nothing_requested_is_said_and_fails(sources: Any) -> None:
    # What the index and the page answer for a section whose every row is skipped is
    # the documents' line (a page that 404s, or an index that lists no page); the
    # section's own line and the closing ones are the same either way.
    sources(Elsewhere)
    articles("first", "second")
    stdout, stderr, status = verify("--max-problems", "1")
    lines = stdout.splitlines()
    assert lines[0].startswith("sitemap.xml: the index")
    assert lines[1] == "articles: 0 of 2 URLs requested, 0 problems (S s)"
    assert "No problem found." not in lines
    assert lines[-2:] == [
        "No URL was requested of the 2 listed: nothing was verified.",
        "0 URLs requested in S s.",
    ]
    assert (stderr, status) == (
        "CommandError: 0 of 2 listed URLs were requested (their rows made no valid entry, "
        "or their pages could not be read): nothing was verified.\n",
        1,
    )


def test_an_index_the_urlconf_does_not_name_is_not_requested(sources: Any) -> None:
    sources(ArticleSource)
    articles("first")
    with override_settings(ROOT_URLCONF="testapp.urls_verify_unindexed"):
        assert verify() == (
            "sitemap.xml: not requested: no URL pattern is named 'sitemapkit:index' "
            '(include("django_sitemapkit.urls") serves it).\n'
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "No problem found.\n"
            "1 URL requested in S s, S ms a URL.\n",
            "",
            0,
        )
