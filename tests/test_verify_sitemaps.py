"""``manage.py verify_sitemaps`` as a user meets it: each planted problem reported with
its reason, and nothing else; the exit status, the JSON report, the options."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.test import override_settings
from processes import example_environ, example_manage, manage
from testapp import views_verify
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource
from verified import TIMINGS, articles, verify, verify_site  # noqa: F401 (a fixture)

from django_sitemapkit.management.commands.verify_sitemaps import Command
from django_sitemapkit.names import MANIFEST_FILENAME
from django_sitemapkit.verification.reasons import KINDS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_site")]
Sources = Callable[..., None]
BASE = "https://www.example.com"
#: The line of a site whose index lists one page, each answering 200 with its URLs.
INDEX_AND_ONE_PAGE = "sitemap.xml: the index and 1 page requested, 0 problems (S s)\n"


class Translated(ArticleSource):
    """Each article an English or German version of a topic (``en-tea``, ``de-tea``),
    listing both; ``de-lonely`` lists only itself, so ``en-lonely`` is not listed back."""

    def alternates(self, row: dict[str, Any]) -> dict[str, str]:
        slug = row["slug"]
        language, _, topic = slug.partition("-")
        if slug == "de-lonely":
            return {language: f"/articles/{slug}/"}
        return {"en": f"/articles/en-{topic}/", "de": f"/articles/de-{topic}/"}


def json_report(listed: int, *problems: tuple[str, str, str], emails: int = 0) -> dict[str, Any]:
    """The whole report of a database run of the ``articles`` section, every URL of it
    requested (and the index and its one page, both good), with these problems:
    ``(url, code, detail)``; its views sent ``emails`` messages."""
    return {
        "format": 1,
        "source": "database",
        "sample": None,
        "problems": [
            {"site": "default", "section": "articles", "url": url, "reason": code, "detail": detail}
            for url, code, detail in problems
        ],
        "sections": [
            {
                "site": "default",
                "section": "articles",
                "listed": listed,
                "requested": listed,
                "problems": dict(Counter(code for _, code, _ in problems)),
            }
        ],
        "documents": [{"site": "default", "requested": 2, "problems": {}}],
        "reasons": KINDS,
        "unchecked_alternates": 0,
        "requested": listed,
        "emails": emails,
        "problems_found": len(problems),
    }


def test_help_is_one_line() -> None:
    assert "\n" not in Command.help


def test_a_clean_site_has_no_problem(sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    articles("first", "second")
    assert verify() == (
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        "articles: 2 of 2 URLs requested, 0 problems (S s)\n"
        "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
        "No problem found.\n"
        "4 URLs requested in S s, S ms a URL.\n",
        "",
        0,
    )


PLANTED = [
    ("missing", "not-found", "404"),
    ("moved", "redirect", f"301 to {BASE}/articles/elsewhere/"),
    ("private", "login", f"302 to {BASE}/accounts/login/?next=/articles/private/"),
    ("meta-noindex", "noindex", '<meta name="robots" content="noindex, follow">'),
    ("header-noindex", "noindex", "X-Robots-Tag: googlebot: noindex"),
    ("copy", "canonical", f'{BASE}/articles/original/ (<link rel="canonical">)'),
    ("broken", "server-error", "500, ValueError: the template is missing"),
    ("draft-hidden", "robots", "Googlebot: Disallow: /articles/*-hidden/$, line 3"),
]


@pytest.mark.parametrize(("slug", "code", "detail"), PLANTED)
def test_a_planted_problem_is_reported_alone(
    sources: Sources, tmp_path: Path, slug: str, code: str, detail: str
) -> None:
    sources(ArticleSource)
    articles("first", slug, "last")
    url = f"{BASE}/articles/{slug}/"
    assert verify(json=str(tmp_path / "report.json")) == (
        INDEX_AND_ONE_PAGE + "articles: 3 of 3 URLs requested, 1 problem (S s)\n"
        "Found 1 problem:\n"
        f"articles, {KINDS[code]}: 1 URL\n"
        f"  {url}  {detail}\n"
        "3 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )
    assert json.loads((tmp_path / "report.json").read_text()) == json_report(3, (url, code, detail))


def test_alternates_that_are_not_listed_back(sources: Sources, tmp_path: Path) -> None:
    sources(Translated)
    articles("en-tea", "de-tea", "en-lonely", "de-lonely")
    url = f"{BASE}/articles/en-lonely/"
    detail = f"de {BASE}/articles/de-lonely/ does not list it back"
    assert verify(json=str(tmp_path / "report.json")) == (
        INDEX_AND_ONE_PAGE + "articles: 4 of 4 URLs requested, 0 problems (S s)\n"
        "hreflang: 3 alternates checked, 1 problem.\n"
        "Found 1 problem:\n"
        f"articles, {KINDS['hreflang']}: 1 URL\n"
        f"  {url}  {detail}\n"
        "4 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )
    assert json.loads((tmp_path / "report.json").read_text()) == json_report(
        4, (url, "hreflang", detail)
    )


def test_every_kind_at_once_in_the_order_of_kinds(sources: Sources) -> None:
    sources(ArticleSource)
    slugs = [slug for slug, _, _ in PLANTED]
    articles("first", *slugs)
    assert verify("--max-shown", "1") == (
        INDEX_AND_ONE_PAGE + "articles: 9 of 9 URLs requested, 8 problems (S s)\n"
        "Found 8 problems:\n"
        "articles, not found (404): 1 URL\n"
        f"  {BASE}/articles/missing/  404\n"
        "articles, server error (5xx): 1 URL\n"
        f"  {BASE}/articles/broken/  500, ValueError: the template is missing\n"
        "articles, redirects to the login page: 1 URL\n"
        f"  {BASE}/articles/private/  302 to {BASE}/accounts/login/?next=/articles/private/\n"
        "articles, redirects: 1 URL\n"
        f"  {BASE}/articles/moved/  301 to {BASE}/articles/elsewhere/\n"
        "articles, marked noindex: 2 URLs\n"
        f'  {BASE}/articles/meta-noindex/  <meta name="robots" content="noindex, follow">\n'
        "  ... and 1 more\n"
        "articles, its canonical URL is another: 1 URL\n"
        f'  {BASE}/articles/copy/  {BASE}/articles/original/ (<link rel="canonical">)\n'
        "articles, disallowed by robots.txt: 1 URL\n"
        f"  {BASE}/articles/draft-hidden/  Googlebot: Disallow: /articles/*-hidden/$, line 3\n"
        "9 URLs requested in S s, S ms a URL.\n",
        "CommandError: 8 problems found, more than --max-problems 0.\n",
        1,
    )


def test_max_problems_tolerates_that_many(sources: Sources) -> None:
    sources(ArticleSource)
    articles("first", "missing")
    stdout, stderr, status = verify("--max-problems", "1")
    assert (stderr, status) == ("", 0)
    assert f"  {BASE}/articles/missing/  404\n" in stdout


def test_a_sample_requests_urls_spread_evenly(sources: Sources) -> None:
    sources(ArticleSource)
    # With 10 URLs, a sample of 3 requests positions 0, 3 and 6.
    articles("a0", "a1", "a2", "missing", "moved", "a5", "a6", "a7", "a8", "a9")
    assert verify("--sample", "3") == (
        INDEX_AND_ONE_PAGE + "articles: 3 of 10 URLs requested, 1 problem (S s)\n"
        "Found 1 problem:\n"
        "articles, not found (404): 1 URL\n"
        f"  {BASE}/articles/missing/  404\n"
        "3 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )


def test_dry_run_counts_what_would_be_requested(sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    articles(*(f"a{number}" for number in range(10)))
    assert verify("--dry-run", "--sample", "3") == (
        "articles: would request 3 of 10 URLs\n"
        "pages: would request 2 of 2 URLs\n"
        "Dry run: 5 URLs would be requested.\n",
        "",
        0,
    )


def test_no_url_listed_is_nothing_to_do(sources: Sources) -> None:
    sources(ArticleSource)
    assert verify() == ("No sitemap section lists a URL: nothing to do.\n", "", 0)


def test_section_chooses_the_sections(sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    articles("missing")
    assert verify("--section", "pages") == (
        INDEX_AND_ONE_PAGE + "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
        "No problem found.\n"
        "2 URLs requested in S s, S ms a URL.\n",
        "",
        0,
    )


def test_an_unknown_section_names_the_sections(sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    assert verify("--section", "nope") == (
        "",
        "CommandError: No sitemap section named 'nope'; the sections are 'articles', 'pages'.\n",
        1,
    )


def test_an_unknown_site_is_an_error(sources: Sources) -> None:
    sources(ArticleSource)
    assert verify("--site", "shop") == (
        "",
        "CommandError: No site named 'shop': SITEMAPKIT_SITES is not set, so the project's "
        "only site is 'default'.\n",
        1,
    )


def test_no_source_registered_is_an_error(sources: Sources) -> None:
    sources()
    stdout, stderr, status = verify()
    assert (stdout, status) == ("", 1)
    assert stderr.startswith("CommandError: No sitemap source is registered: nothing to verify.")


def test_each_site_is_requested_on_its_own_host(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    articles("first")
    sites = {"www": BASE, "shop": "http://shop.example.com:8080"}
    allowed = ["www.example.com", "shop.example.com"]
    with override_settings(SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=allowed):
        # Each page's canonical is built on the host and scheme it was asked on.
        assert verify() == (
            f"Site 'www' on {BASE}:\n"
            f"{INDEX_AND_ONE_PAGE}"
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "Site 'shop' on http://shop.example.com:8080:\n"
            f"{INDEX_AND_ONE_PAGE}"
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "No problem found.\n"
            "2 URLs requested in S s, S ms a URL.\n",
            "",
            0,
        )
        assert verify("--site", "shop", "--dry-run") == (
            "Site 'shop' on http://shop.example.com:8080:\n"
            "articles: would request 1 of 1 URLs\n"
            "Dry run: 1 URL would be requested.\n",
            "",
            0,
        )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar(sources: Sources) -> None:
    sources(ArticleSource)
    articles(*(f"a{number}" for number in range(120)))
    stdout = Terminal()
    call_command("verify_sitemaps", stdout=stdout)
    output = stdout.getvalue()
    # Drawn after each batch of 50 URLs (at most ten times a second).
    bar = re.search(r"\rarticles  \[(#*-*)\]  50/120 URLs  [\d,]+ URLs/s  ETA \d+ s", output)
    assert bar is not None, output[:300]
    assert len(bar[1]) == 24
    assert "\r\x1b[Karticles: 120 of 120 URLs requested, 0 problems" in output


class Failing(ArticleSource):
    def location(self, row: Any) -> str:
        raise RuntimeError("the database went away")


def test_a_failed_run_leaves_the_last_json_report(sources: Sources, tmp_path: Path) -> None:
    sources(Failing)
    articles("first")
    report = tmp_path / "report.json"
    report.write_text("the last report\n")
    with pytest.raises(RuntimeError, match="the database went away"):
        call_command("verify_sitemaps", json=str(report), stdout=io.StringIO())
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]
    assert report.read_text() == "the last report\n"


# -- --built: the URLs of the published files --------------------------------------------


@pytest.fixture
def built(sources: Sources, out: Path) -> Iterator[Path]:
    """A set built by ``build_sitemaps`` into ``out``, which the settings name."""
    sources(ArticleSource, PagesSource)
    articles("first", "deleted-since", "last")
    call_command("build_sitemaps", output=str(out), verbosity=0)
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out)):
        yield out


def test_built_verifies_the_urls_of_the_published_files(built: Path) -> None:
    Article.objects.filter(slug="deleted-since").delete()
    url = f"{BASE}/articles/deleted-since/"
    # The database no longer lists the article; the published file still does.
    assert verify()[2] == 0
    assert verify("--built") == (
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        "articles: 3 of 3 URLs requested, 1 problem (S s)\n"
        "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
        "Found 1 problem:\n"
        "articles, not found (404): 1 URL\n"
        f"  {url}  404\n"
        "5 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )


def test_built_with_a_sample_and_a_section(built: Path) -> None:
    assert verify("--built", "--dry-run", "--sample", "2", "--section", "articles") == (
        "articles: would request 2 of 3 URLs\nDry run: 2 URLs would be requested.\n",
        "",
        0,
    )
    assert verify("--built", "--section", "nope") == (
        "",
        "CommandError: No built section named 'nope'; the sections are 'articles', 'pages'.\n",
        1,
    )


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (
            b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY a "aaaaaaaa">]>\n<urlset/>',
            "sitemap-articles-1.xml has a document type declaration, which is refused.",
        ),
        (
            b"<html><body>Not a sitemap</body></html>",
            "sitemap-articles-1.xml is not a <urlset> document: its root is 'html'.",
        ),
        (
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>',
            "sitemap-articles-1.xml is not well-formed XML: no element found: line 1, column 70.",
        ),
    ],
)
def test_a_damaged_page_file_is_a_problem_of_its_own(built: Path, content: bytes, why: str) -> None:
    (built / "sitemap-articles-1.xml").write_bytes(content)
    assert verify("--built") == (
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        "articles: 0 of 3 URLs requested, 1 problem (S s)\n"
        "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
        "Found 1 problem:\n"
        f"articles, {KINDS['unreadable']}: 1 URL\n"
        f"  {BASE}/sitemap-articles-1.xml  {why}\n"
        "2 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )


def test_a_page_file_gone_is_a_problem(built: Path) -> None:
    (built / "sitemap-articles-1.xml").unlink()
    stdout, _, status = verify("--built")
    assert status == 1
    assert (
        f"  {BASE}/sitemap-articles-1.xml  it is not in the built set, which its manifest lists\n"
        in stdout
    )


def test_built_without_a_set_says_so(sources: Sources, tmp_path: Path) -> None:
    sources(ArticleSource)
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        assert verify("--built") == (
            "",
            "CommandError: Site 'default' has no built set (sitemapkit-manifest.json is not "
            "there); run build_sitemaps first, or verify the database's sitemap without "
            "--built.\n",
            1,
        )


def test_built_refuses_a_manifest_it_cannot_trust(built: Path) -> None:
    (built / MANIFEST_FILENAME).write_text('{"format": 2, "site": 1}')
    stdout, stderr, status = verify("--built")
    assert (stdout, status) == ("", 1)
    assert stderr.startswith(
        "CommandError: sitemapkit-manifest.json of site 'default' cannot be read (Invalid: "
    )
    assert stderr.endswith("; run build_sitemaps to publish a new one.\n")


def test_built_without_a_place_names_the_settings(sources: Sources) -> None:
    sources(ArticleSource)
    assert verify("--built") == (
        "",
        "CommandError: The built set of site 'default' cannot be read: SITEMAPKIT_SERVE is "
        "'database' but neither SITEMAPKIT_OUTPUT_DIR nor SITEMAPKIT_STORAGE is set, so there "
        "are no files to serve.\n",
        1,
    )


@pytest.mark.django_db(transaction=True)
def test_verifying_changes_no_data(sources: Sources) -> None:
    # The "writer" page updates its article, inserts one and hooks on_commit each time
    # it is viewed; transaction=True: the command's transactions are the real ones.
    sources(ArticleSource)
    articles("first", "writer")
    views_verify.committed.clear()
    assert verify()[2] == 0
    assert list(Article.objects.values_list("slug", "title")) == [
        ("first", "First"),
        ("writer", "Writer"),
    ]
    assert views_verify.committed == []


# -- the example project -----------------------------------------------------------------

# A developer's mistakes, planted in a copy of the example's URLconf: one post's page
# answers 404, another's says noindex. The example's own code stays as it is.
PLANTED_URLS = """
from django.http import Http404
from django.urls import path

from blog import views
from mysite.urls import urlpatterns as example_patterns

GONE, NOINDEX = {gone!r}, {noindex!r}


def post_detail(request, category, slug):
    if slug == GONE:
        raise Http404("Deleted by mistake.")
    response = views.post_detail(request, category, slug)
    if slug == NOINDEX:
        response.content = response.content.replace(
            b"<head>", b'<head><meta name="robots" content="noindex">', 1
        )
    return response


urlpatterns = [
    path("posts/<slug:category>/<slug:slug>/", post_detail, name="post-detail"),
    *example_patterns,
]
"""
PLANTED_SETTINGS = 'from mysite.settings import *  # noqa: F403\n\nROOT_URLCONF = "planted_urls"\n'


def example(env: dict[str, str], *args: str) -> tuple[str, str, int]:
    """``manage.py <args>`` of the example project: (stdout, stderr, exit status)."""
    done = example_manage(env, *args)
    return TIMINGS.sub(r"S \1", done.stdout), done.stderr, done.returncode


def example_counts(database: Path) -> tuple[int, int, int, list[tuple[str, str]]]:
    """Published posts, featured ones, categories, and two posts of the blog alone
    (not featured, so on the www site only): ``(category, slug)``."""
    with closing(sqlite3.connect(database)) as connection:
        (published, featured, categories) = connection.execute(
            "SELECT (SELECT count(*) FROM blog_post WHERE published),"
            " (SELECT count(*) FROM blog_post WHERE published AND priority >= 0.9),"
            " (SELECT count(*) FROM blog_category)"
        ).fetchone()
        posts = connection.execute(
            "SELECT c.slug, p.slug FROM blog_post p JOIN blog_category c ON c.id = p.category_id"
            " WHERE p.published AND (p.priority IS NULL OR p.priority < 0.9)"
            " ORDER BY p.id LIMIT 2"
        ).fetchall()
    return published, featured, categories, posts


@pytest.mark.slow
def test_the_example_project_is_clean_and_its_planted_problems_are_found(
    tmp_path: Path,
) -> None:
    env = example_environ(
        EXAMPLE_DATABASE=str(tmp_path / "example.sqlite3"),
        SITEMAPKIT_OUTPUT_DIR=str(tmp_path / "sitemaps"),
        DJANGO_DEBUG="0",
    )
    assert example(env, "migrate", "--noinput", "-v", "0")[1:] == ("", 0)
    assert example(env, "seed", "--rows", "40", "--categories", "4")[1:] == ("", 0)
    published, featured, categories, planted = example_counts(tmp_path / "example.sqlite3")
    (gone_category, gone), (noindex_category, noindex) = planted
    total = published + 3 + featured + categories
    assert example(env, "verify_sitemaps") == (
        "Site 'www' on http://www.localhost:8000:\n"
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        f"posts: {published} of {published} URLs requested, 0 problems (S s)\n"
        "pages: 3 of 3 URLs requested, 0 problems (S s)\n"
        "Site 'shop' on http://shop.localhost:8000:\n"
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        f"posts: {featured} of {featured} URLs requested, 0 problems (S s)\n"
        f"categories: {categories} of {categories} URLs requested, 0 problems (S s)\n"
        "No problem found.\n"
        f"{total} URLs requested in S s, S ms a URL.\n",
        "",
        0,
    )
    (tmp_path / "planted_urls.py").write_text(PLANTED_URLS.format(gone=gone, noindex=noindex))
    (tmp_path / "planted_settings.py").write_text(PLANTED_SETTINGS)
    env.update(PYTHONPATH=str(tmp_path), DJANGO_SETTINGS_MODULE="planted_settings")
    report = tmp_path / "report.json"
    gone_url = f"http://www.localhost:8000/posts/{gone_category}/{gone}/"
    noindex_url = f"http://www.localhost:8000/posts/{noindex_category}/{noindex}/"
    assert example(env, "verify_sitemaps", "--site", "www", "--json", str(report)) == (
        "Site 'www' on http://www.localhost:8000:\n"
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        f"posts: {published} of {published} URLs requested, 2 problems (S s)\n"
        "pages: 3 of 3 URLs requested, 0 problems (S s)\n"
        "Found 2 problems:\n"
        "www: posts, not found (404): 1 URL\n"
        f"  {gone_url}  404\n"
        "www: posts, marked noindex: 1 URL\n"
        f'  {noindex_url}  <meta name="robots" content="noindex">\n'
        f"{published + 3} URLs requested in S s, S ms a URL.\n",
        "CommandError: 2 problems found, more than --max-problems 0.\n",
        1,
    )
    found = json.loads(report.read_text())
    assert (found["problems"], found["problems_found"]) == (
        [
            {
                "site": "www",
                "section": "posts",
                "url": gone_url,
                "reason": "not-found",
                "detail": "404",
            },
            {
                "site": "www",
                "section": "posts",
                "url": noindex_url,
                "reason": "noindex",
                "detail": '<meta name="robots" content="noindex">',
            },
        ],
        2,
    )
    # --jobs: the same report from forked processes. The command runs in a process
    # of its own here: forking the test runner, whose servers' threads may hold a
    # lock at that moment, could leave a child waiting on it for ever.
    jobs_report = tmp_path / "jobs.json"
    one = example(env, "verify_sitemaps", "--site", "www", "--json", str(report))
    two = example(
        env, "verify_sitemaps", "--site", "www", "--jobs", "2", "--json", str(jobs_report)
    )
    assert two == one
    assert jobs_report.read_text() == report.read_text()


def test_a_site_row_that_cannot_be_a_site_is_not_verified(sources: Sources) -> None:
    sources(ArticleSource)
    articles("first")
    Site.objects.update_or_create(pk=1, defaults={"domain": "www.example.com"})
    bad = Site.objects.create(domain="shop.example.org/blog", name="shop")
    with override_settings(SITEMAPKIT_SITES="django.contrib.sites"):
        assert verify() == (
            "Site 'www.example.com' on https://www.example.com:\n"
            f"{INDEX_AND_ONE_PAGE}"
            "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "No problem found.\n"
            "1 URL requested in S s, S ms a URL.\n",
            f"Not verified: The domain of Site {bad.pk} (SITEMAPKIT_SITES = "
            "'django.contrib.sites'), 'shop.example.org/blog', carries a path: the sitemap "
            f"cannot be built on https:// and that domain. Set the domain of Site {bad.pk} to "
            "the host the site is served on, alone or with its port, such as "
            "'www.example.com' or 'www.example.com:8443' (a non-ASCII host in its xn-- form), "
            "or delete the Site if it has no sitemap.\n",
            0,
        )
    Site.objects.clear_cache()


def test_a_json_report_that_cannot_be_written_is_said_first(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource)
    articles("first")
    path = str(tmp_path / "nowhere" / "report.json")
    assert verify(json=path) == (
        "",
        f"CommandError: --json {path!r} cannot be written (No such file or directory): "
        "nothing was requested. Name a file in a directory that exists and can be written.\n",
        1,
    )


@pytest.mark.slow
def test_a_database_that_cannot_be_reached_stops_the_run() -> None:
    # settings_unreachable.py: a second database whose file cannot be opened. The
    # static pages are listed without a query; their requests need a transaction on it.
    result = manage("verify_sitemaps", "--section", "pages", settings="unreachable")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        "",
        "CommandError: No transaction can be opened on database 'replica' of DATABASES "
        "(OperationalError: unable to open database file), so no request can be rolled "
        "back: nothing was requested since. Every database of DATABASES must be reachable "
        "while verify_sitemaps runs.\n",
    )


def test_an_interrupted_run_exits_130_and_writes_no_report(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource)
    articles("missing", "interrupted", "last")
    assert verify(json=str(tmp_path / "report.json")) == (
        INDEX_AND_ONE_PAGE,
        "CommandError: Interrupted after 0 URLs verified, 0 problems found; no report was "
        "written.\n",
        130,
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_options_out_of_range_are_usage_errors() -> None:
    for option, value, rule in [
        ("--max-problems", "-1", "must be 0 or more, not -1"),
        ("--sample", "0", "must be 1 or more, not 0"),
        ("--jobs", "0", "must be 1 or more, not 0"),
    ]:
        result = manage("verify_sitemaps", option, value)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr.endswith(f"error: argument {option}: {rule}\n")


def test_what_a_page_says_is_printed_without_its_control_characters(
    sources: Sources, tmp_path: Path
) -> None:
    sources(ArticleSource)
    articles("escaped")
    stdout, _, status = verify(json=str(tmp_path / "report.json"))
    detail = "X-Robots-Tag: noindex, \\x1b[2J"
    assert (status, stdout.splitlines()[4]) == (1, f"  {BASE}/articles/escaped/  {detail}")
    (problem,) = json.loads((tmp_path / "report.json").read_text())["problems"]
    assert problem["detail"] == detail


class PagedTranslations(Translated):
    limit = 2


def test_alternates_on_pages_not_read_are_counted_unchecked(sources: Sources) -> None:
    # Pages of two rows: en-tea and de-tea on page 1, en-lonely and de-lonely on page
    # 2, en-gone on page 3. A sample of 1 reads page 1 alone.
    sources(PagedTranslations)
    articles("en-tea", "de-tea", "en-lonely", "de-lonely", "en-gone")
    assert verify("--sample", "1") == (
        "sitemap.xml: the index and 3 pages requested, 0 problems (S s)\n"
        "articles: 1 of 5 URLs requested, 0 problems (S s)\n"
        "hreflang: 2 alternates checked, 0 problems.\n"
        "No problem found.\n"
        "1 URL requested in S s, S ms a URL.\n",
        "",
        0,
    )
    # Every page read: en-gone's alternate de-gone is listed nowhere.
    stdout, _, status = verify()
    assert status == 1
    assert stdout.splitlines()[2:7] == [
        "hreflang: 4 alternates checked, 2 problems.",
        "Found 2 problems:",
        f"articles, {KINDS['hreflang']}: 2 URLs",
        f"  {BASE}/articles/en-lonely/  de {BASE}/articles/de-lonely/ does not list it back",
        f"  {BASE}/articles/en-gone/  de {BASE}/articles/de-gone/ is not in the sitemap",
    ]
    # A section chosen: de-gone may be listed in another section, so it is unchecked.
    assert verify("--section", "articles") == (
        "sitemap.xml: the index and 3 pages requested, 0 problems (S s)\n"
        "articles: 5 of 5 URLs requested, 0 problems (S s)\n"
        "hreflang: 4 alternates checked, 1 problem; 1 points to URLs outside those read "
        "(--sample, --section or --site), not checked.\n"
        "Found 1 problem:\n"
        f"articles, {KINDS['hreflang']}: 1 URL\n"
        f"  {BASE}/articles/en-lonely/  de {BASE}/articles/de-lonely/ does not list it back\n"
        "5 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )


def test_a_view_that_exits_is_reported_and_the_run_goes_on(
    sources: Sources, tmp_path: Path
) -> None:
    # sys.exit() in a view ends a WSGI server's worker; here it is that URL's problem.
    sources(ArticleSource)
    articles("first", "exits", "last")
    report = tmp_path / "report.json"
    assert verify(json=str(report)) == (
        INDEX_AND_ONE_PAGE + "articles: 3 of 3 URLs requested, 1 problem (S s)\n"
        "Found 1 problem:\n"
        "articles, ends the process it runs in: 1 URL\n"
        f"  {BASE}/articles/exits/  SystemExit(3)\n"
        "3 URLs requested in S s, S ms a URL.\n",
        "CommandError: 1 problem found, more than --max-problems 0.\n",
        1,
    )
    assert json.loads(report.read_text()) == json_report(
        3, (f"{BASE}/articles/exits/", "exited", "SystemExit(3)")
    )
