"""The suite's settings for ``verify_sitemaps`` in a process of its own, on the site of
``testapp/urls_verify.py`` (as ``verified.py`` sets it up) and a SQLite file named by
``SITEMAPKIT_TEST_VERIFY_DATABASE``: ``--jobs`` forks, which a test runner's own
process must not (``tests/test_verification_containment.py``)."""

from __future__ import annotations

import os

from settings import *  # noqa: F403

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.environ["SITEMAPKIT_TEST_VERIFY_DATABASE"],
    }
}
ROOT_URLCONF = "testapp.urls_verify"
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sites",
    "testapp",
    "django_sitemapkit",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
