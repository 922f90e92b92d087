"""System checks of the ``SITEMAPKIT_*`` settings of every site: the base URL (its
checks live in ``base_url``), the limits, strictness and news age (checked by the
settings table's rules, ``setting_values``). The settings of
pre-rendered files are checked in ``files``; the base URL against
``django.contrib.sites``, a database check, in ``sites``; ``SITEMAPKIT_SITES``,
which replaces the base URL with one per site, in ``hosts``; the HTML sitemap's
in ``html``.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage

from django_sitemapkit.checks.files import check_file_settings
from django_sitemapkit.checks.html import check_html_settings
from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.checks.sites.base_url import check_allowed_hosts, check_base_url, check_https
from django_sitemapkit.sites.hosts import several_sites


def check_settings(**kwargs: Any) -> list[CheckMessage]:
    if several_sites():
        # Each site has its own base URL (checked in ``hosts``); SITEMAPKIT_BASE_URL
        # and SITE_ID are not used.
        errors = check_values("LIMIT", "STRICT")
    else:
        errors = check_base_url() + check_values("LIMIT", "STRICT")
        if not errors:
            errors += check_allowed_hosts()
        errors += check_https()
    return (
        errors
        + check_file_settings()
        + check_values("NEWS_MAX_AGE", "VERIFY_TIMEOUT")
        + check_html_settings()
    )
