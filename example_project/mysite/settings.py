"""Settings for the example blog: SQLite next to manage.py, sitemaps from django_sitemapkit.

Environment variables:

``SITEMAPKIT_BASE_URL``
    Scheme, host and port every sitemap ``<loc>`` is built on
    (default ``http://127.0.0.1:8000``). Its host is added to ``ALLOWED_HOSTS``.
``DJANGO_DEBUG``
    ``1`` (the default) or ``0``.
``DJANGO_SECRET_KEY``
    Defaults to a development-only key.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "django-insecure-example-project-only-never-use-in-production"
)
DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"

SITEMAPKIT_BASE_URL = os.environ.get("SITEMAPKIT_BASE_URL", "http://127.0.0.1:8000")

ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
_base_host = urlsplit(SITEMAPKIT_BASE_URL).hostname
if _base_host and _base_host not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append(_base_host)

INSTALLED_APPS = [
    "blog",
    "django_sitemapkit",
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

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BASE_DIR / "db.sqlite3",
    }
}
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
