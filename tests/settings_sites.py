"""The test settings with three sites, for ``build_sitemaps`` run in a process of its own.

The database is the SQLite file ``SITEMAPKIT_TEST_SQLITE_FILE`` names, so that the
tables ``migrate`` creates in one process are there for the next.
"""

from __future__ import annotations

import os

from settings import *  # noqa: F403

SITEMAPKIT_SITES = {
    "www": "https://www.example.com",
    "shop": "https://shop.example.com",
    "de": "https://example.de:8443",
}
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ.get("SITEMAPKIT_TEST_SQLITE_FILE", ":memory:"),
    }
}
