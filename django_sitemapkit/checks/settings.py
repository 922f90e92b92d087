"""System checks of the ``SITEMAPKIT_*`` settings of every site: the base URL (its
checks live in ``base_url``), the limits, strictness and news age. The settings of
pre-rendered files are checked in ``files``; the base URL against
``django.contrib.sites``, a database check, in ``sites``; ``SITEMAPKIT_SITES``,
which replaces the base URL with one per site, in ``hosts``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.checks import CheckMessage, Error

from django_sitemapkit.checks.base_url import check_allowed_hosts, check_base_url, check_https
from django_sitemapkit.checks.files import check_file_settings
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.sites.hosts import several_sites


def check_settings(**kwargs: Any) -> list[CheckMessage]:
    if several_sites():
        # Each site has its own base URL (checked in ``hosts``); SITEMAPKIT_BASE_URL
        # and SITE_ID are not used.
        errors = check_limit() + check_strict()
    else:
        errors = check_base_url() + check_limit() + check_strict()
        if not errors:
            errors += check_allowed_hosts()
        errors += check_https()
    return errors + check_file_settings() + check_news_max_age()


def check_news_max_age() -> list[CheckMessage]:
    value = conf.raw("NEWS_MAX_AGE")
    if isinstance(value, dt.timedelta) and value > dt.timedelta(0):
        return []
    return [
        Error(
            f"SITEMAPKIT_NEWS_MAX_AGE is {value!r}, not a positive timedelta.",
            hint="Set it to a datetime.timedelta such as timedelta(days=2) (Google News "
            "reads articles of the last two days), or remove it.",
            id="sitemapkit.E030",
        )
    ]


def check_limit() -> list[CheckMessage]:
    value = conf.raw("LIMIT")
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_URLS:
        return []
    return [
        Error(
            f"SITEMAPKIT_LIMIT is {value!r}, not a whole number from 1 to {MAX_URLS:,}.",
            hint=f"Set SITEMAPKIT_LIMIT to at most {MAX_URLS} (the protocol's cap), or remove it.",
            id="sitemapkit.E012",
        )
    ]


def check_strict() -> list[CheckMessage]:
    value = conf.raw("STRICT")
    if isinstance(value, bool):
        return []
    return [
        Error(
            f"SITEMAPKIT_STRICT is {value!r}, not True or False.",
            hint="Set SITEMAPKIT_STRICT = True to raise on invalid entries, or False to skip "
            "and log them.",
            id="sitemapkit.E016",
        )
    ]
