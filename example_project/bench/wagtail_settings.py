"""Settings of the benchmark's Wagtail children (``manage.py benchmark_sitemaps --cases
thirdparty``): the example project with Wagtail installed, its pages at the root, in
a database of their own (SQLite: ``benchmark-wagtail.sqlite3`` beside
``manage.py``; PostgreSQL: the benchmark's, with Wagtail's tables added).

Only the children of the Wagtail cases start with these (bench/thirdparty_runs.py
sets ``DJANGO_SETTINGS_MODULE``), so no other case loads Wagtail.
"""

from __future__ import annotations

import os

from mysite.settings import *  # noqa: F403 - the example project, and more
from mysite.settings import BASE_DIR, INSTALLED_APPS, database

INSTALLED_APPS = [
    *INSTALLED_APPS,
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "wagtail",
    "wagtail.sites",
    "wagtail.contrib.sitemaps",
    "modelcluster",
    "taggit",
]
ROOT_URLCONF = "bench.wagtail_urls"
WAGTAIL_SITE_NAME = "benchmark"
# Wagtail's blocks read the static files storage as they are imported.
STATIC_URL = "/static/"
_choice = os.environ.get("EXAMPLE_DATABASE", "")
DATABASES = {
    "default": database("postgresql")
    if _choice == "postgresql"
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "benchmark-wagtail.sqlite3"}
}
