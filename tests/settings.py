"""Settings for the test suite: SQLite by default, PostgreSQL or MySQL when asked.

``SITEMAPKIT_TEST_DATABASE=postgresql`` runs the suite on a PostgreSQL server
found through the libpq variables ``PGHOST``, ``PGPORT``, ``PGUSER``,
``PGPASSWORD`` and ``PGDATABASE``. ``SITEMAPKIT_TEST_DATABASE=mysql`` runs it
on a MariaDB or MySQL server (Django's ``mysql`` backend, mysqlclient: the
"mysql" dependency group) found through ``MYSQL_HOST``, ``MYSQL_PORT``,
``MYSQL_USER``, ``MYSQL_PASSWORD`` and ``MYSQL_DATABASE``.
"""

from __future__ import annotations

import os
from typing import Any

SECRET_KEY = "django-sitemapkit-tests"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "www.example.com"]
USE_TZ = True
TIME_ZONE = "Europe/Paris"

INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.sites",
    "testapp",
    "django_sitemapkit",
]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "testapp.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SITE_ID = 1
# The live server (tests/test_hosts_crawlers.py) serves static files under this
# prefix, and cannot start without one; no test serves any.
STATIC_URL = "/static/"
SITEMAPKIT_BASE_URL = "https://www.example.com"


def database() -> dict[str, Any]:
    engine = os.environ.get("SITEMAPKIT_TEST_DATABASE", "sqlite")
    if engine == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}
    if engine == "postgresql":
        return {
            "ENGINE": "django.db.backends.postgresql",
            "HOST": os.environ.get("PGHOST", "127.0.0.1"),
            "PORT": os.environ.get("PGPORT", "5432"),
            "USER": os.environ.get("PGUSER", "postgres"),
            "PASSWORD": os.environ.get("PGPASSWORD", ""),
            "NAME": os.environ.get("PGDATABASE", "sitemapkit"),
        }
    if engine == "mysql":
        return mysql()
    raise ValueError(
        f"SITEMAPKIT_TEST_DATABASE is {engine!r}; use 'sqlite' (the default), 'postgresql'"
        " or 'mysql'."
    )


def mysql() -> dict[str, Any]:
    # utf8mb4: MySQL's "utf8" is three bytes a character, and the tests store
    # text beyond the Basic Multilingual Plane (emoji in titles and paths). The
    # test database is created with that charset's default collation
    # (case-insensitive: docs/databases.md), as a project's would be.
    return {
        "ENGINE": "django.db.backends.mysql",
        "HOST": os.environ.get("MYSQL_HOST", "127.0.0.1"),
        "PORT": os.environ.get("MYSQL_PORT", "3306"),
        "USER": os.environ.get("MYSQL_USER", "root"),
        "PASSWORD": os.environ.get("MYSQL_PASSWORD", ""),
        "NAME": os.environ.get("MYSQL_DATABASE", "sitemapkit"),
        "OPTIONS": {"charset": "utf8mb4"},
        "TEST": {"CHARSET": "utf8mb4"},
    }


def named_database(name: str) -> dict[str, str]:
    """The environment that makes a process started by a test use the database
    ``name`` of the selected server (the test database, whose rows a
    transactional test commits)."""
    engine = os.environ.get("SITEMAPKIT_TEST_DATABASE", "sqlite")
    return {"MYSQL_DATABASE" if engine == "mysql" else "PGDATABASE": name}


DATABASES = {"default": database()}
