"""The test settings of the refresh on workers (tests/test_changes_workers.py): the
Celery workers, the ``db_worker`` processes and the processes that save rows all
read them.

Those of distributed builds (fifty URLs to a page, Redis, the shared database),
with the built files in a directory (``SITEMAPKIT_TEST_OUTPUT_DIR``), change
capture sending its refresh task to ``SITEMAPKIT_TEST_CHANGES`` ("celery" unless
set, none if empty), a delay of ``SITEMAPKIT_TEST_CHANGES_DELAY`` seconds (1 unless set), and
the package's log at INFO on stderr: one line per refresh, which the tests count.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile

from settings_distributed import *  # noqa: F403

SITEMAPKIT_STORAGE = None  # type: ignore[assignment]
SITEMAPKIT_OUTPUT_DIR = os.environ.get("SITEMAPKIT_TEST_OUTPUT_DIR") or tempfile.mkdtemp()
SITEMAPKIT_SERVE = "files"
# "" (the seeding's): no capture.
SITEMAPKIT_CHANGES = os.environ.get("SITEMAPKIT_TEST_CHANGES", "celery") or None
SITEMAPKIT_CHANGES_DELAY = dt.timedelta(
    seconds=float(os.environ.get("SITEMAPKIT_TEST_CHANGES_DELAY", "1"))
)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(process)d %(levelname)s %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {"django_sitemapkit": {"handlers": ["stderr"], "level": "INFO", "propagate": False}},
}

import refresh_hooks  # noqa: E402

refresh_hooks.connect()
