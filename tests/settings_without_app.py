"""The test settings with django_sitemapkit left out of INSTALLED_APPS, as a project
that forgot it: its ``ready()`` never runs, so no ``sitemaps.py`` is imported and
none of its system checks is registered."""

from __future__ import annotations

import os

from settings import *  # noqa: F403
from settings import INSTALLED_APPS

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "django_sitemapkit"]
# The URLconf a test names (tests/test_decorators.py), or the suite's.
ROOT_URLCONF = os.environ.get("SITEMAPKIT_TEST_URLCONF", "testapp.urls")
