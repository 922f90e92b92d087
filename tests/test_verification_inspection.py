"""A response judged as a search engine judges a submitted URL."""

from __future__ import annotations

import pytest
from django.test import override_settings
from verified import verify_site  # noqa: F401 (a fixture)

from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_rules import parse_robots_txt
from django_sitemapkit.sites.robots_txt import SiteRobots
from django_sitemapkit.verification.inspection import SiteFacts, inspected, same_url
from django_sitemapkit.verification.markup import Head
from django_sitemapkit.verification.reasons import KINDS
from django_sitemapkit.verification.requester import Answer

URL = "https://www.example.com/articles/tea/"
AGENTS = ("Googlebot", "Bingbot")
ALLOW_ALL = SiteRobots("robots.txt", parse_robots_txt(""), "")
FACTS = SiteFacts("/accounts/login/", ALLOW_ALL, AGENTS)
HTML = {"Content-Type": "text/html"}


def reasons(answer: Answer, facts: SiteFacts = FACTS) -> list[tuple[str, str]]:
    found = inspected(URL, answer, facts)
    assert all(item.text == KINDS[item.code] for item in found)
    return [(item.code, item.detail) for item in found]


def test_a_200_that_is_its_own_canonical_has_no_reason() -> None:
    head = Head([], ["/articles/tea/", "https://WWW.example.com:443/articles/%74ea/#top"])
    assert reasons(Answer(200, {"Link": f'<{URL}>; rel="canonical"', **HTML}, head)) == []


@pytest.mark.parametrize(
    ("status", "code", "detail"),
    [
        (404, "not-found", "404"),
        (410, "gone", "410"),
        (401, "unauthorized", "401"),
        (403, "unauthorized", "403"),
        (400, "status", "400"),
        (204, "status", "204"),
        (503, "server-error", "503"),
    ],
)
def test_a_status_other_than_200(status: int, code: str, detail: str) -> None:
    assert reasons(Answer(status, HTML)) == [(code, detail)]


def test_a_500_names_the_exception() -> None:
    answer = Answer(500, {}, error="KeyError: 'slug'")
    assert reasons(answer) == [("server-error", "500, KeyError: 'slug'")]


@pytest.mark.parametrize(
    ("location", "code", "detail"),
    [
        ("../coffee/", "redirect", "302 to https://www.example.com/articles/coffee/"),
        ("https://other.example.com/", "redirect", "302 to https://other.example.com/"),
        (
            "/accounts/login/?next=/articles/tea/",
            "login",
            "302 to https://www.example.com/accounts/login/?next=/articles/tea/",
        ),
        # Another host's /accounts/login/ is no login page of this site.
        (
            "https://sso.example.com/accounts/login/",
            "redirect",
            "302 to https://sso.example.com/accounts/login/",
        ),
    ],
)
def test_a_redirect_and_a_login_page(location: str, code: str, detail: str) -> None:
    assert reasons(Answer(302, {"Location": location})) == [(code, detail)]


def test_a_redirect_without_a_location() -> None:
    assert reasons(Answer(301, {})) == [("redirect", "301 without a Location header")]


def test_no_login_url_makes_every_redirect_a_redirect() -> None:
    answer = Answer(302, {"Location": "/accounts/login/"})
    assert reasons(answer, SiteFacts(None, ALLOW_ALL, AGENTS)) == [
        ("redirect", "302 to https://www.example.com/accounts/login/")
    ]


def test_noindex_from_the_header_and_the_head_is_one_reason() -> None:
    head = Head(['<meta name="robots" content="noindex">'], [])
    answer = Answer(200, {"X-Robots-Tag": "noindex, nofollow", **HTML}, head)
    assert reasons(answer) == [
        ("noindex", 'X-Robots-Tag: noindex, nofollow; <meta name="robots" content="noindex">')
    ]


def test_only_a_200_is_judged_for_noindex_and_canonical() -> None:
    answer = Answer(404, {"X-Robots-Tag": "noindex", "Link": '</x/>; rel="canonical"'})
    assert reasons(answer) == [("not-found", "404")]


def test_each_canonical_that_is_another_url() -> None:
    head = Head([], ["/articles/tea/", "?page=2", "http://www.example.com/articles/tea/"])
    answer = Answer(200, {"Link": '</articles/tea-2/>; rel="canonical"', **HTML}, head)
    assert reasons(answer) == [
        (
            "canonical",
            "https://www.example.com/articles/tea-2/ (Link header); "
            f'{URL}?page=2 (<link rel="canonical">); '
            'http://www.example.com/articles/tea/ (<link rel="canonical">)',
        )
    ]


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("https://a.example/x/", "HTTPS://A.EXAMPLE:443/x/", True),
        ("https://a.example", "https://a.example/", True),
        ("https://a.example/%7Ex/", "https://a.example/~x/", True),
        ("https://a.example/%c3%a9/", "https://a.example/%C3%A9/", True),
        ("https://a.example/\u00e9/", "https://a.example/%C3%A9/", True),
        ("https://a.example/x/#top", "https://a.example/x/", True),
        ("https://a.example/x/", "https://a.example/X/", False),
        ("https://a.example/x/?a=1", "https://a.example/x/", False),
        ("https://a.example/%2F/", "https://a.example///", False),
        ("http://a.example/", "https://a.example/", False),
        ("https://a.example:8443/", "https://a.example/", False),
        ("https://a.example:bad/", "https://a.example/", False),
    ],
)
def test_same_url_after_normalization(one: str, other: str, same: bool) -> None:
    assert same_url(one, other) is same


@pytest.mark.django_db
@pytest.mark.usefixtures("verify_site")
def test_login_is_read_from_the_settings() -> None:
    site = SitemapSite("default", Origin.from_url("https://www.example.com"))
    with override_settings(LOGIN_URL="/sign-in/"):
        assert SiteFacts.found(site).login == "/sign-in/"
    with override_settings(LOGIN_URL="login"):
        # A URL name, as testapp/urls_verify.py names its login page.
        assert SiteFacts.found(site).login == "/accounts/login/"
    with override_settings(LOGIN_URL="no-such-url-name"):
        assert SiteFacts.found(site).login is None


def robots(text: str) -> SiteFacts:
    return SiteFacts(None, SiteRobots("robots.txt", parse_robots_txt(text), ""), AGENTS)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "User-agent: *\nDisallow: /*/tea/$\n",
            [("robots", "Googlebot: Disallow: /*/tea/$, line 2")],
        ),
        # The longest match decides, and Allow wins a tie (Google's documented rules).
        ("User-agent: *\nDisallow: /articles/\nAllow: /articles/tea/\n", []),
        ("User-agent: *\nDisallow: /articles/t\nAllow: /articles/t\n", []),
        # Bingbot's own group is obeyed by Bingbot alone.
        (
            "User-agent: bingbot\nDisallow: /articles/\n",
            [("robots", "Bingbot: Disallow: /articles/, line 2")],
        ),
        ("User-agent: *\nDisallow: /*?\n", []),
    ],
)
def test_a_url_robots_txt_disallows_whatever_the_answer(
    text: str, found: list[tuple[str, str]]
) -> None:
    # A crawler never fetches a URL its robots.txt disallows: the answer is not read.
    assert reasons(Answer(404, {}), robots(text)) == [*found, ("not-found", "404")]


def test_a_robots_txt_that_cannot_be_read_is_said_of_each_url() -> None:
    facts = SiteFacts(None, "https://www.example.com/robots.txt answered 503", AGENTS)
    assert reasons(Answer(200, HTML), facts) == [
        ("robots", "robots.txt could not be read: https://www.example.com/robots.txt answered 503")
    ]


@pytest.mark.django_db
@pytest.mark.usefixtures("verify_site")
def test_the_robots_txt_is_the_projects_own() -> None:
    site = SitemapSite("default", Origin.from_url("https://www.example.com"))
    facts = SiteFacts.found(site)
    assert facts.agents == AGENTS
    assert reasons(Answer(200, HTML), facts) == []
    hidden = inspected("https://www.example.com/articles/tea-hidden/", Answer(200, HTML), facts)
    assert [(item.code, item.detail) for item in hidden] == [
        ("robots", "Googlebot: Disallow: /articles/*-hidden/$, line 3")
    ]
