"""The test settings with the app that holds the sources left out of INSTALLED_APPS:
its ``sitemaps.py`` is never imported, and nothing is registered."""

from __future__ import annotations

from settings import *  # noqa: F403
from settings import INSTALLED_APPS

INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "testapp"]
