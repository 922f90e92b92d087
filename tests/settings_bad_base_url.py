"""The test settings with a base URL ``manage.py check`` must refuse."""

from __future__ import annotations

from settings import *  # noqa: F403

SITEMAPKIT_BASE_URL = "ftp://www.example.com"
