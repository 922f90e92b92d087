"""The test settings of distributed builds (tests/test_distributed*.py): the
coordinator, the Celery workers and the ``db_worker`` processes all read them.

Fifty URLs to a page, so a few hundred rows make several shards. What the
processes share comes from the environment the test gives them: the database
(an SQLite file, or on a server the test database, see ``named_database()``), the
S3 server and bucket, and Redis.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import Any

# The kill test's: fifty URLs to a page, and the database every process shares.
from settings_kill import *  # noqa: F403
from settings_kill import DATABASES, INSTALLED_APPS

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Workers and the coordinator write the task table at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30}

try:
    import django.tasks  # noqa: F401

    TASKS_APPS = ["django_tasks_db"]
except ImportError:  # Django 5.2: the backport
    TASKS_APPS = ["django_tasks", "django_tasks_db"]
INSTALLED_APPS = [*INSTALLED_APPS, *TASKS_APPS]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}

STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # The test's bucket: the STORAGES entry of its S3 server, as JSON.
    "sitemaps": json.loads(os.environ.get("SITEMAPKIT_TEST_S3_STORAGE", "null"))
    or {"BACKEND": "django.core.files.storage.InMemoryStorage"},
}
if "OPTIONS" in STORAGES["sitemaps"]:
    from botocore.config import Config

    # A stopped S3 server is found out in seconds, not after botocore's
    # retries with backoff; the checksums stay boto3's defaults.
    STORAGES["sitemaps"]["OPTIONS"]["client_config"] = Config(
        connect_timeout=2, read_timeout=20, retries={"mode": "standard", "max_attempts": 2}
    )
SITEMAPKIT_STORAGE = "sitemaps"
SITEMAPKIT_SERVE = "files"
SITEMAPKIT_SHARD_TIMEOUT = dt.timedelta(
    seconds=float(os.environ.get("SITEMAPKIT_TEST_SHARD_TIMEOUT", "60"))
)
SITEMAPKIT_BUILD_DEADLINE = dt.timedelta(
    seconds=float(os.environ.get("SITEMAPKIT_TEST_DEADLINE", "120"))
)

CELERY_BROKER_URL = os.environ.get("SITEMAPKIT_TEST_REDIS_URL", "redis://127.0.0.1:1/0")
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
# One shard at a time per worker process: a killed worker loses one shard.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

SITEMAPKIT_STRICT = os.environ.get("SITEMAPKIT_TEST_STRICT") == "1"

# The project's Celery app, loaded with the settings as a project's
# __init__.py would load it; and the tests' hooks in the workers.
import celery_app  # noqa: E402, F401
import shard_hooks  # noqa: E402

shard_hooks.connect()
