"""Around every view of the app (views/decorators.py): without the app in
INSTALLED_APPS each says so and names the fix, robots.txt logs it, and ``check``
reports it through the app's URLconfs (sitemapkit.E064). The ``Vary`` the same
decorator adds is tested with the choice of site, in test_hosts.py."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.checks import Error
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, override_settings
from factories import ArticleFactory
from sitemap_xml import fetch

from django_sitemapkit.checks.urls import check_installed
from django_sitemapkit.urls import urlpatterns

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
TESTS = Path(__file__).parent
NOT_INSTALLED = (
    "django_sitemapkit is not in INSTALLED_APPS, so no app's sitemaps.py is imported (no "
    "source is registered) and its system checks are not registered. Add it to your "
    'settings: INSTALLED_APPS += ["django_sitemapkit"].'
)
KEY = "0123456789abcdef"


def e064(urlconf: str) -> Error:
    return Error(
        f"{urlconf} is included in the URLconf, but django_sitemapkit is not in "
        "INSTALLED_APPS, so no app's sitemaps.py is imported (no source is registered) and "
        "its system checks are not registered. Every sitemap URL answers 500 "
        "(ImproperlyConfigured) until it is added.",
        hint='Add it to your settings: INSTALLED_APPS += ["django_sitemapkit"].',
        id="sitemapkit.E064",
    )


@pytest.fixture
def without_the_app(sources: Sources) -> Iterator[None]:
    """INSTALLED_APPS without django_sitemapkit, and so nothing registered: what a
    project that forgot it has (its ready() never ran)."""
    sources()
    apps = [app for app in settings.INSTALLED_APPS if app != "django_sitemapkit"]
    with override_settings(INSTALLED_APPS=apps, SITEMAPKIT_INDEXNOW_KEY=KEY):
        yield


@pytest.mark.parametrize(
    ("urlconf", "url"),
    [
        ("testapp.urls", "/sitemap.xml"),
        ("testapp.urls", "/sitemap.xml.gz"),
        ("testapp.urls", "/sitemap-articles-1.xml"),
        ("testapp.urls", "/sitemap-articles-1.xml.gz"),
        ("testapp.urls", f"/{KEY}.txt"),
        ("testapp.urls_html", "/sitemap.html"),
        ("testapp.urls_html", "/sitemap-articles-1.html"),
        ("testapp.urls_contrib_redirects", "/sitemap-articles.xml"),
    ],
)
def test_every_view_names_the_missing_app_and_the_fix(
    client: Client, without_the_app: None, urlconf: str, url: str
) -> None:
    # Found by trying: the sitemap was a 404 blaming the project's sources, and
    # nothing named the missing app.
    ArticleFactory.create()
    with override_settings(ROOT_URLCONF=urlconf), pytest.raises(ImproperlyConfigured) as raised:
        client.get(url)
    assert str(raised.value) == NOT_INSTALLED


@pytest.mark.urls("testapp.urls_compat")
def test_the_drop_in_views_need_no_app(client: Client, without_the_app: None) -> None:
    # Step 1 of docs/migrating.md is one import line: those views read no registry.
    ArticleFactory.create()
    for url in ("/compat/sitemap.xml", "/compat/sitemap-articles.xml"):
        assert fetch(client, url)[0] == 200, url


def test_a_server_answers_500_and_logs_the_fix(
    without_the_app: None, caplog: pytest.LogCaptureFixture
) -> None:
    client = Client(raise_request_exception=False)
    assert client.get("/sitemap.xml").status_code == 500
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert record.getMessage() == "Internal Server Error: /sitemap.xml"
    assert record.exc_info is not None
    assert str(record.exc_info[1]) == NOT_INSTALLED


def test_robots_txt_keeps_its_rules_and_logs_the_fix(
    client: Client, without_the_app: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        response = client.get("/robots.txt")
    # A robots.txt that fails stops crawlers on the whole site: the rules stay.
    assert (response.status_code, response.content) == (200, b"User-agent: *\nDisallow:\n")
    assert caplog.messages == [f"robots.txt names no sitemap: {NOT_INSTALLED}"]


def test_check_installed(without_the_app: None) -> None:
    assert check_installed("django_sitemapkit.urls") == [e064("django_sitemapkit.urls")]


def test_check_installed_is_silent_with_the_app() -> None:
    assert check_installed("django_sitemapkit.urls") == []
    assert urlpatterns[0].check() == []


@pytest.mark.slow
def test_manage_py_check_names_the_missing_app_once_per_urlconf() -> None:
    # Found by trying: check was silent, since the app's checks are registered
    # by its ready(). Django checks every pattern of ROOT_URLCONF, installed or not.
    env = {
        **os.environ,
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_without_app",
    }
    found = {}
    for urlconf in ("testapp.urls", "testapp.urls_html"):
        result = subprocess.run(
            [sys.executable, "-m", "django", "check", "--settings", "settings_without_app"],
            capture_output=True,
            text=True,
            env={**env, "SITEMAPKIT_TEST_URLCONF": urlconf},
            check=False,
            timeout=120,
        )
        found[urlconf] = (result.returncode, result.stdout, result.stderr)
    message = e064("django_sitemapkit.urls")
    assert found["testapp.urls"] == (
        1,
        "",
        "SystemCheckError: System check identified some issues:\n\nERRORS:\n"
        f"?: (sitemapkit.E064) {message.msg}\n\tHINT: {message.hint}\n\n"
        "System check identified 1 issue (0 silenced).\n",
    )
    html = e064("django_sitemapkit.html_urls")
    assert found["testapp.urls_html"][0] == 1
    assert f"?: (sitemapkit.E064) {html.msg}\n" in found["testapp.urls_html"][2]
    assert "System check identified 2 issues (0 silenced)." in found["testapp.urls_html"][2]
