"""Settings of the benchmark's django CMS children (``manage.py benchmark_sitemaps
--cases thirdparty``): the example project with django CMS installed as its
documentation installs it, the sites framework's current site on the host of
``SITEMAPKIT_BASE_URL`` (bench/cms_cases.py moves it there), in a database of their
own (SQLite: ``benchmark-cms.sqlite3`` beside ``manage.py``; PostgreSQL: the
benchmark's, with django CMS's tables added).

Only the children of the django CMS cases start with these (bench/thirdparty_runs.py
sets ``DJANGO_SETTINGS_MODULE``), so no other case loads django CMS.
"""

from __future__ import annotations

import os

from mysite.settings import *  # noqa: F403 - the example project, and more
from mysite.settings import BASE_DIR, INSTALLED_APPS, MIDDLEWARE, TEMPLATES, database

INSTALLED_APPS = [
    *INSTALLED_APPS,
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "cms",
    "menus",
    "treebeard",
    "sekizai",
]
# What django.contrib.admin's checks require of a project (admin.E408 to E410).
MIDDLEWARE = [
    *MIDDLEWARE,
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
TEMPLATES = [
    {
        **TEMPLATES[0],
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "sekizai.context_processors.sekizai",
                "cms.context_processors.cms_settings",
            ]
        },
    }
]
ROOT_URLCONF = "bench.cms_urls"
SITE_ID = 1
STATIC_URL = "/static/"
# A template django CMS checks exists as it makes a page; the sitemap never renders it.
CMS_TEMPLATES = [("bench/cms_page.html", "Page")]
CMS_CONFIRM_VERSION4 = True
_choice = os.environ.get("EXAMPLE_DATABASE", "")
DATABASES = {
    "default": database("postgresql")
    if _choice == "postgresql"
    else {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "benchmark-cms.sqlite3"}
}
