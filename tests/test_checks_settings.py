"""Checks of the SITEMAPKIT_* settings of every site, and W001 (checks/settings.py); the
base URL's own checks are in test_checks_base_url.py."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.contrib.sites.models import Site
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.test import override_settings

from django_sitemapkit.checks import check_settings, check_sites_framework


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("domain", "expected"), [("www.example.com", []), ("WWW.example.com:443", []), ("shop", 1)]
)
def test_w001_sites_framework(domain: str, expected: object) -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": domain, "name": "x"})
    Site.objects.clear_cache()
    messages = check_sites_framework(databases=["default"])
    if expected == []:
        assert messages == []
    else:
        assert messages == [
            Warning(
                f"SITEMAPKIT_BASE_URL 'https://www.example.com' names another host than the "
                f"current Site's domain {domain!r} (django.contrib.sites).",
                hint="Make them agree: update the Site's domain in the admin, or "
                "SITEMAPKIT_BASE_URL. Sitemaps are built on SITEMAPKIT_BASE_URL.",
                id="sitemapkit.W001",
            )
        ]


def test_w001_runs_only_with_database_checks() -> None:
    assert check_sites_framework() == []


@pytest.mark.django_db
def test_w001_is_registered_as_a_database_check() -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": "example.com", "name": "x"})
    Site.objects.clear_cache()
    out = StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=out)
    assert "(sitemapkit.W001) SITEMAPKIT_BASE_URL 'https://www.example.com' names" in out.getvalue()


@pytest.mark.parametrize("value", [0, 50_001, "100", 1.5, True, None])
def test_e012_limit(value: object) -> None:
    with override_settings(SITEMAPKIT_LIMIT=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_LIMIT is {value!r}, not a whole number from 1 to 50,000.",
                hint="Set SITEMAPKIT_LIMIT to at most 50000 (the protocol's cap), or remove it.",
                id="sitemapkit.E012",
            )
        ]


@override_settings(SITEMAPKIT_STRICT="yes")
def test_e016_strict_not_a_bool() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_STRICT is 'yes', not True or False.",
            hint="Set SITEMAPKIT_STRICT = True to raise on invalid entries, or False to skip "
            "and log them.",
            id="sitemapkit.E016",
        )
    ]


@pytest.mark.parametrize("value", [dt.timedelta(0), 2, "2 days", None])
def test_e030_news_max_age(value: object) -> None:
    with override_settings(SITEMAPKIT_NEWS_MAX_AGE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_NEWS_MAX_AGE is {value!r}, not a positive timedelta.",
                hint="Set it to a datetime.timedelta such as timedelta(days=2) (Google News "
                "reads articles of the last two days), or remove it.",
                id="sitemapkit.E030",
            )
        ]
