"""Checks of the SITEMAPKIT_* settings of every site (checks/settings.py); the base
URL's own checks are in test_checks_base_url.py, those against django.contrib.sites
in test_checks_sites.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.checks import Error
from django.test import override_settings

from django_sitemapkit.checks import check_settings


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


@pytest.mark.parametrize("value", [0, -1.5, float("inf"), "5", True, None])
def test_e122_verify_timeout(value: object) -> None:
    with override_settings(SITEMAPKIT_VERIFY_TIMEOUT=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_VERIFY_TIMEOUT is {value!r}, not a positive number of seconds.",
                hint="Set SITEMAPKIT_VERIFY_TIMEOUT to a number of seconds such as 5 (the "
                "default), or remove it.",
                id="sitemapkit.E122",
            )
        ]


@pytest.mark.parametrize("value", [dt.timedelta(seconds=-1), 86_400, "1 day", False])
def test_e047_full_build_every(value: object) -> None:
    with override_settings(SITEMAPKIT_FULL_BUILD_EVERY=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_FULL_BUILD_EVERY is {value!r}, not a timedelta of 0 or more, or None.",
                hint="Set it to a datetime.timedelta such as timedelta(days=1) (how often a "
                "build renders every shard), to None to do so only with build_sitemaps --full, "
                "or remove it.",
                id="sitemapkit.E047",
            )
        ]


@pytest.mark.parametrize("value", [dt.timedelta(0), dt.timedelta(hours=6), None])
def test_full_build_every_accepts_a_timedelta_or_none(value: object) -> None:
    with override_settings(SITEMAPKIT_FULL_BUILD_EVERY=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", [-1, 101, "20", "20%", True, float("nan")])
def test_e080_max_removed(value: object) -> None:
    with override_settings(SITEMAPKIT_MAX_REMOVED=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_MAX_REMOVED is {value!r}, not a number from 0 to 100, or None.",
                hint="Set it to the percentage of a site's URLs a build may remove (such as "
                "20), to None for no limit, or remove it.",
                id="sitemapkit.E080",
            )
        ]


@pytest.mark.parametrize("value", [0, 20, 12.5, 100, None])
def test_max_removed_accepts_a_percentage_or_none(value: object) -> None:
    with override_settings(SITEMAPKIT_MAX_REMOVED=value):
        assert check_settings() == []
