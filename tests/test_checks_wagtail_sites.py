"""Checks of Wagtail's sites without Wagtail installed (checks/sites/wagtail_sites.py):
the test project has no Wagtail; tests/thirdparty/test_wagtail_checks.py checks
its Site rows where it is installed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Error
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import check_site_settings, check_wagtail_sites

E105 = Error(
    "SITEMAPKIT_SITES is 'wagtail', but 'wagtail' is not in INSTALLED_APPS: there is no "
    "Wagtail Site to serve sitemaps for.",
    hint="Install Wagtail and add 'wagtail' to INSTALLED_APPS, or list the sites in "
    "SITEMAPKIT_SITES.",
    id="sitemapkit.E105",
)


@override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES="wagtail")
def test_e105_wagtail_sites_without_wagtail() -> None:
    assert check_site_settings() == [E105]
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E105"):
        call_command("check", stdout=StringIO(), stderr=StringIO())


@pytest.mark.django_db
@override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES="wagtail")
def test_the_database_checks_say_nothing_without_wagtail() -> None:
    assert check_wagtail_sites(databases=["default"]) == []
