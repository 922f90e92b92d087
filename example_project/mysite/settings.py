"""Settings for the example blog: SQLite next to manage.py, sitemaps from django_sitemapkit.

Environment variables:

``SITEMAPKIT_BASE_URL``
    Scheme, host and port every sitemap ``<loc>`` is built on
    (default ``http://127.0.0.1:8000``). Its host is added to ``ALLOWED_HOSTS``.
``DJANGO_DEBUG``
    ``1`` (the default) or ``0``.
``DJANGO_SECRET_KEY``
    Defaults to a development-only key.
``SITEMAPKIT_OUTPUT_DIR``
    Where ``manage.py build_sitemaps`` writes the sitemap files, and where the
    views read them in the file mode (default ``public/sitemaps`` in this
    directory; a relative path is taken from this directory too).
``SITEMAPKIT_SERVE``
    ``database`` (the default: every response streamed from the database),
    ``files`` (the files ``build_sitemaps`` wrote, 404 for a missing one) or
    ``files-or-database``.
``EXAMPLE_DATABASE``
    Unset: ``db.sqlite3`` next to ``manage.py``. A file path: that SQLite file
    (a relative path is taken from this directory). ``postgresql``: the
    PostgreSQL server and database named by the libpq variables ``PGHOST``,
    ``PGPORT``, ``PGUSER``, ``PGPASSWORD`` and ``PGDATABASE``.
    ``manage.py benchmark_sitemaps`` sets it for its own processes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "django-insecure-example-project-only-never-use-in-production"
)
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"

SITEMAPKIT_BASE_URL = os.environ.get("SITEMAPKIT_BASE_URL", "http://127.0.0.1:8000")

# Pre-rendered sitemaps: `manage.py build_sitemaps` writes here; git-ignored.
# The package wants an absolute path, so a relative one is joined to BASE_DIR
# (an absolute one replaces it: that is how Path's "/" works).
SITEMAPKIT_OUTPUT_DIR = BASE_DIR / (os.environ.get("SITEMAPKIT_OUTPUT_DIR") or "public/sitemaps")
SITEMAPKIT_SERVE = os.environ.get("SITEMAPKIT_SERVE") or "database"

ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
_base_host = urlsplit(SITEMAPKIT_BASE_URL.strip()).hostname
if _base_host and ":" in _base_host:
    # Django matches an IPv6 Host header with its brackets: "[::1]".
    _base_host = f"[{_base_host}]"
if _base_host and _base_host not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(_base_host)

INSTALLED_APPS = [
    "blog",
    "django_sitemapkit",
    # The benchmark's model and URL (`manage.py benchmark_sitemaps`). It has no
    # sitemaps.py: its sitemap section exists only inside the benchmark.
    "bench",
    # Only for the benchmark's comparison with Django's own sitemaps (their
    # templates); no URL of this project uses it.
    "django.contrib.sitemaps",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]

ROOT_URLCONF = "mysite.urls"
WSGI_APPLICATION = "mysite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    },
]


def database(choice: str) -> dict[str, Any]:
    """The ``default`` database for ``EXAMPLE_DATABASE`` (see the top of this file)."""
    if choice == "postgresql":
        return {
            "ENGINE": "django.db.backends.postgresql",
            "HOST": os.environ.get("PGHOST", "127.0.0.1"),
            "PORT": os.environ.get("PGPORT", "5432"),
            "USER": os.environ.get("PGUSER", "postgres"),
            "PASSWORD": os.environ.get("PGPASSWORD", ""),
            "NAME": os.environ.get("PGDATABASE", "sitemapkit"),
            # Persistent connections, as in production: otherwise every request
            # (and every timed run of benchmark_sitemaps) opens a new one.
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    return {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / (choice or "db.sqlite3")}


DATABASES = {"default": database(os.environ.get("EXAMPLE_DATABASE", ""))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # Entries the package skips (a row whose URL does not reverse, say) are logged here.
    "loggers": {"django_sitemapkit": {"handlers": ["console"], "level": "WARNING"}},
}
