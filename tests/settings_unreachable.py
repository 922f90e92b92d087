"""The suite's settings with a second database that cannot be opened (its directory does
not exist): ``verify_sitemaps`` must stop, naming it (``tests/test_verify_sitemaps.py``)."""

from __future__ import annotations

from settings import *  # noqa: F403
from settings import DATABASES

DATABASES = {
    **DATABASES,
    "replica": {"ENGINE": "django.db.backends.sqlite3", "NAME": "/nonexistent/db.sqlite3"},
}
