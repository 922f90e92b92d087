"""The test settings for the processes of the kill test (tests/test_build_kill.py).

Fifty URLs to a sitemap page, so a few thousand rows make dozens of files. The
database is one every process shares: the SQLite file
``SITEMAPKIT_TEST_SQLITE_FILE`` names, or on a server the test database, which
``settings.named_database()`` names.
"""

from __future__ import annotations

import os

from settings import *  # noqa: F403

SITEMAPKIT_LIMIT = 50

if os.environ.get("SITEMAPKIT_TEST_DATABASE", "sqlite") == "sqlite":
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SITEMAPKIT_TEST_SQLITE_FILE", ":memory:"),
        }
    }
