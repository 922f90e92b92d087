"""Settings for the example blog: SQLite next to manage.py, sitemaps from django_sitemapkit.

Environment variables:

``EXAMPLE_WWW_URL``, ``EXAMPLE_SHOP_URL``
    The base URLs (scheme, host and port) of the project's two sites: ``www``,
    the blog (default ``http://www.localhost:8000``), and ``shop`` (default
    ``http://shop.localhost:8000``). Both are served by the one runserver: the
    request's ``Host`` header chooses the site. Their hosts are added to
    ``ALLOWED_HOSTS``.
``SITEMAPKIT_BASE_URL``
    Set, the project has one site instead, on this base URL (such as
    ``http://127.0.0.1:8000``), which lists every section; its host is added to
    ``ALLOWED_HOSTS``, and the two variables above are not read.
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
``EXAMPLE_S3_ENDPOINT``, ``EXAMPLE_S3_BUCKET``
    Both set: the sitemap files are written to (and served from) that S3
    bucket through django-storages' ``S3Storage``, the ``STORAGES`` alias
    ``sitemaps`` (``SITEMAPKIT_STORAGE``), instead of ``SITEMAPKIT_OUTPUT_DIR``,
    which is then not set: a distributed build (``build_sitemaps --via``)
    writes through a storage every machine shares. The endpoint is the
    server's URL (an S3-compatible server, or moto's); the credentials come
    from boto3's usual places (``AWS_ACCESS_KEY_ID`` and
    ``AWS_SECRET_ACCESS_KEY``, say); ``EXAMPLE_S3_REGION`` defaults to
    ``us-east-1``.
``EXAMPLE_CELERY_BROKER_URL``
    Set (``redis://127.0.0.1:6379/0``, say): Celery's broker and result
    backend, read by the project's Celery app (``mysite/celery.py``), for
    ``build_sitemaps --via celery`` and its workers (``celery -A mysite
    worker``). ``manage.py benchmark_sitemaps --cases distributed`` sets this
    and the two above for its own processes, with servers it starts itself.
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

if os.environ.get("SITEMAPKIT_BASE_URL"):
    # One site: every <loc> is built on this base URL, whatever the request's host.
    SITEMAPKIT_BASE_URL = os.environ["SITEMAPKIT_BASE_URL"]
    _site_urls = [SITEMAPKIT_BASE_URL]
    # blog/sitemaps.py names the two sites a section lists on; with one site
    # every section is listed on it, as sitemapkit.W015 would say on every start.
    SILENCED_SYSTEM_CHECKS = ["sitemapkit.W015"]
else:
    # Two sites, one project: the request's Host header selects the site (any
    # other host gets a 404 for every sitemap URL), and the site's base URL is
    # what every <loc> of its documents is built on. blog/sitemaps.py says which
    # section lists on which site.
    SITEMAPKIT_SITES = {
        "www": os.environ.get("EXAMPLE_WWW_URL") or "http://www.localhost:8000",
        "shop": os.environ.get("EXAMPLE_SHOP_URL") or "http://shop.localhost:8000",
    }
    _site_urls = list(SITEMAPKIT_SITES.values())

# Pre-rendered sitemaps: `manage.py build_sitemaps` writes here; git-ignored.
# The package wants an absolute path, so a relative one is joined to BASE_DIR
# (an absolute one replaces it: that is how Path's "/" works).
SITEMAPKIT_OUTPUT_DIR: Path | None = BASE_DIR / (
    os.environ.get("SITEMAPKIT_OUTPUT_DIR") or "public/sitemaps"
)
SITEMAPKIT_SERVE = os.environ.get("SITEMAPKIT_SERVE") or "database"

if os.environ.get("EXAMPLE_S3_ENDPOINT") and os.environ.get("EXAMPLE_S3_BUCKET"):
    # The files in an S3 bucket instead (see the top of this file).
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        "sitemaps": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "endpoint_url": os.environ["EXAMPLE_S3_ENDPOINT"],
                "bucket_name": os.environ["EXAMPLE_S3_BUCKET"],
                "region_name": os.environ.get("EXAMPLE_S3_REGION") or "us-east-1",
                # A build replaces a file under its own name.
                "file_overwrite": True,
            },
        },
    }
    SITEMAPKIT_STORAGE = "sitemaps"
    SITEMAPKIT_OUTPUT_DIR = None

if os.environ.get("EXAMPLE_CELERY_BROKER_URL"):
    # Read by mysite/celery.py (the CELERY_ namespace).
    CELERY_BROKER_URL = os.environ["EXAMPLE_CELERY_BROKER_URL"]
    CELERY_RESULT_BACKEND = CELERY_BROKER_URL
    # A worker process takes one shard at a time: the others wait in the
    # queue for whichever worker is free first.
    CELERY_WORKER_PREFETCH_MULTIPLIER = 1
    CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# 127.0.0.1 and localhost are allowed but, with two sites, are neither: their
# sitemap URLs answer 404 (and their robots.txt names no sitemap).
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
for _url in _site_urls:
    _host = urlsplit(_url.strip()).hostname
    if _host and ":" in _host:
        # Django matches an IPv6 Host header with its brackets: "[::1]".
        _host = f"[{_host}]"
    if _host and _host not in ALLOWED_HOSTS:
        ALLOWED_HOSTS.append(_host)

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
