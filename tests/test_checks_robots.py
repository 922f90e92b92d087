"""Checks of SITEMAPKIT_ROBOTS (checks/robots.py): its settings at every check, and,
with ``check --deploy`` only, the site's robots.txt against each section's first
page."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from factories import ArticleFactory
from testapp import urls_robots
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.checks import check_robots, check_robots_txt

# The project of testapp/urls_robots.py, whose robots.txt answers what a test says.
pytestmark = pytest.mark.usefixtures("robots_project")
SITE = "https://www.example.com"
Sources = Callable[..., None]
FILE_HINT = (
    "Set SITEMAPKIT_ROBOTS_FILE to the absolute path of the robots.txt your web server "
    "serves (BASE_DIR / 'static' / 'robots.txt', say), or a dict of site names to such "
    "paths; or to None to ask the project for /robots.txt."
)
FILE_FIX = FILE_HINT[0].lower() + FILE_HINT[1:].partition("; or")[0]


@pytest.mark.parametrize("value", ["Exclude", "skip", True, ""])
def test_e070_robots_is_none_warn_or_exclude(value: object) -> None:
    with override_settings(SITEMAPKIT_ROBOTS=value):
        assert check_robots() == [
            Error(
                f"SITEMAPKIT_ROBOTS is {value!r}, not None, 'warn' or 'exclude'.",
                hint="Set SITEMAPKIT_ROBOTS = 'warn' to be told which listed URLs robots.txt "
                "disallows, 'exclude' to leave them out, or None (the default) to read no "
                "robots.txt.",
                id="sitemapkit.E070",
            )
        ]


@pytest.mark.parametrize("value", [None, "warn", "exclude"])
def test_e070_accepted(value: str | None) -> None:
    with override_settings(SITEMAPKIT_ROBOTS=value):
        assert check_robots() == []


@pytest.mark.parametrize(
    "value", ["Googlebot", [], ("Googlebot/2.1",), ["Googlebot", None], ("Google bot",)]
)
def test_e071_agents_are_product_tokens(value: object) -> None:
    with override_settings(SITEMAPKIT_ROBOTS="warn", SITEMAPKIT_ROBOTS_AGENTS=value):
        assert check_robots() == [
            Error(
                f"SITEMAPKIT_ROBOTS_AGENTS is {value!r}, not a list or tuple of crawlers' "
                "product tokens (letters, '_' and '-').",
                hint="Set it to the product tokens of robots.txt's User-agent lines, without "
                "a version, such as ('Googlebot', 'Bingbot') (the default).",
                id="sitemapkit.E071",
            )
        ]


@override_settings(SITEMAPKIT_ROBOTS="exclude")
def test_e072_file(tmp_path: Path) -> None:
    with override_settings(SITEMAPKIT_ROBOTS_FILE=tmp_path / "robots.txt"):
        assert check_robots() == []
    with override_settings(SITEMAPKIT_ROBOTS_FILE={"default": str(tmp_path / "robots.txt")}):
        assert check_robots() == []
    cases = {
        "robots.txt": "SITEMAPKIT_ROBOTS_FILE is 'robots.txt', a relative path, read from "
        "wherever each process starts",
        b"/srv/robots.txt": "SITEMAPKIT_ROBOTS_FILE is b'/srv/robots.txt', not a path",
        5: "SITEMAPKIT_ROBOTS_FILE is 5, not a path",
    }
    for value, problem in cases.items():
        with override_settings(SITEMAPKIT_ROBOTS_FILE=value):
            assert check_robots() == [Error(f"{problem}.", hint=FILE_HINT, id="sitemapkit.E072")]


@override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_BASE_URL=None)
def test_e072_a_dict_names_sites(tmp_path: Path) -> None:
    sites = {"www": "https://www.example.com", "shop": "https://shop.example.com"}
    value = {"www": tmp_path / "www.txt", "Shop": tmp_path / "shop.txt", "shop": "shop.txt"}
    with override_settings(SITEMAPKIT_SITES=sites, SITEMAPKIT_ROBOTS_FILE=value):
        assert check_robots() == [
            Error(
                "SITEMAPKIT_ROBOTS_FILE['Shop'] names no site (the sites are 'shop', 'www').",
                hint=FILE_HINT,
                id="sitemapkit.E072",
            ),
            Error(
                "SITEMAPKIT_ROBOTS_FILE['shop'] is 'shop.txt', a relative path, read from "
                "wherever each process starts.",
                hint=FILE_HINT,
                id="sitemapkit.E072",
            ),
        ]


@override_settings(SITEMAPKIT_ROBOTS="warn", FORCE_SCRIPT_NAME="/blog/")
def test_e073_a_project_below_the_root_is_not_asked(tmp_path: Path) -> None:
    assert check_robots() == [
        Error(
            "SITEMAPKIT_ROBOTS asks the project for /robots.txt, but FORCE_SCRIPT_NAME = "
            "'/blog/' puts the project below the host's root, where robots.txt is not its "
            "own: every sitemap would fail to read it.",
            hint=FILE_HINT,
            id="sitemapkit.E073",
        )
    ]
    with override_settings(SITEMAPKIT_ROBOTS_FILE=tmp_path / "robots.txt"):
        assert check_robots() == []


def test_w033_settings_without_robots(tmp_path: Path) -> None:
    with override_settings(
        SITEMAPKIT_ROBOTS_FILE=tmp_path / "robots.txt", SITEMAPKIT_ROBOTS_AGENTS=["Googlebot"]
    ):
        assert check_robots() == [
            Warning(
                f"{setting} is set, but SITEMAPKIT_ROBOTS is None: no robots.txt is read.",
                hint="Set SITEMAPKIT_ROBOTS = 'warn' or 'exclude', or remove the setting.",
                id="sitemapkit.W033",
            )
            for setting in ("SITEMAPKIT_ROBOTS_FILE", "SITEMAPKIT_ROBOTS_AGENTS")
        ]


def test_the_settings_checks_are_registered() -> None:
    with (
        override_settings(SITEMAPKIT_ROBOTS="skip"),
        pytest.raises(SystemCheckError, match=r"\(sitemapkit\.E070\) SITEMAPKIT_ROBOTS is "),
    ):
        call_command("check")


# -- check --deploy: the robots.txt itself -------------------------------------------


DRAFTS = "User-agent: *\nDisallow: /*-draft/\n"


@pytest.mark.django_db
@override_settings(SITEMAPKIT_ROBOTS="warn", TEST_ROBOTS_TXT=DRAFTS)
def test_w030_the_first_page_lists_disallowed_urls(sources: Sources) -> None:
    sources(ArticleSource, PagesSource)
    for slug in ("a", "b-draft", "c"):
        ArticleFactory.create(slug=slug)
    assert check_robots_txt() == [
        Warning(
            "Section 'articles' lists 1 URL on its first page that robots.txt disallows "
            f"({SITE}/robots.txt (through Django), read for Googlebot, Bingbot): "
            f"{SITE}/articles/b-draft/ (Googlebot: Disallow: /*-draft/).",
            hint="Leave them out of the source (its queryset or urls), allow them in "
            "robots.txt, or set SITEMAPKIT_ROBOTS = 'exclude' to leave them out of the sitemap.",
            id="sitemapkit.W030",
        )
    ]
    # Under "exclude" they are left out: nothing to say.
    with override_settings(SITEMAPKIT_ROBOTS="exclude"):
        assert check_robots_txt() == []


@pytest.mark.parametrize(
    ("mode", "effect"),
    [
        (
            "exclude",
            "every sitemap page of the site answers 503, and build_sitemaps fails, until it can",
        ),
        ("warn", "build_sitemaps cannot say which listed URLs it disallows"),
    ],
)
def test_w031_unreadable(mode: str, effect: str) -> None:
    with override_settings(SITEMAPKIT_ROBOTS=mode, TEST_ROBOTS_STATUS=500):
        assert check_robots_txt() == [
            Warning(
                f"The robots.txt of {SITE} cannot be read: {SITE}/robots.txt answered 500, "
                "which crawlers read as disallowing everything (RFC 9309 section 2.3.1.4). "
                f"Under SITEMAPKIT_ROBOTS = {mode!r}, {effect}.",
                hint=f"Make /robots.txt answer 200 (or 404 where there are no rules), or "
                f"{FILE_FIX}.",
                id="sitemapkit.W031",
            )
        ]


@override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_STATUS=404)
def test_w032_not_found_through_django() -> None:
    assert check_robots_txt() == [
        Warning(
            f"{SITE}/robots.txt (through Django) answered 404: SITEMAPKIT_ROBOTS takes it that "
            f"the site {SITE} has no robots.txt, and every URL is allowed (RFC 9309 section "
            "2.3.1.3).",
            hint=f"If your web server serves robots.txt, {FILE_FIX}. If the site has none, "
            "set SITEMAPKIT_ROBOTS = None.",
            id="sitemapkit.W032",
        )
    ]


@pytest.mark.django_db  # check --deploy reads each section's first rows (E118)
def test_the_robots_txt_checks_run_with_deploy_only() -> None:
    with override_settings(SITEMAPKIT_ROBOTS="exclude", TEST_ROBOTS_STATUS=404):
        out = StringIO()
        call_command("check", stdout=out, stderr=out)
        assert "sitemapkit.W032" not in out.getvalue()
        assert urls_robots.asked == []
        call_command("check", deploy=True, stdout=out, stderr=out, fail_level="CRITICAL")
    assert "?: (sitemapkit.W032) https://www.example.com/robots.txt (through" in out.getvalue()
