"""``verify_sitemaps`` as the tests run it: the site of ``testapp/urls_verify.py`` (its
login page needs ``django.contrib.auth`` and a session, kept in a signed cookie so no
table is needed), and the command's whole outcome."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from commands import outcome
from django.core.checks.registry import registry
from django.test import override_settings
from testapp.models import Article

VERIFY_SITE = override_settings(
    ROOT_URLCONF="testapp.urls_verify",
    INSTALLED_APPS=[
        "django.contrib.contenttypes",
        "django.contrib.auth",
        "django.contrib.sites",
        "testapp",
        "django_sitemapkit",
    ],
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    SESSION_ENGINE="django.contrib.sessions.backends.signed_cookies",
)


@pytest.fixture
def verify_site() -> Iterator[None]:
    """The site ``verify_sitemaps`` requests in the tests: ``testapp/urls_verify.py``.

    ``django.contrib.auth``'s ``ready()`` registers its system checks for good:
    they are taken out again with the app, or every later ``check`` would look
    for an app that is no longer installed.
    """
    registered = set(registry.registered_checks), set(registry.deployment_checks)
    try:
        with VERIFY_SITE:
            yield
    finally:
        registry.registered_checks, registry.deployment_checks = registered


# What differs from run to run: the seconds a section took, the time per URL.
TIMINGS = re.compile(r"\d+\.\d+ (m?s)\b")


def verify(*args: str, **options: Any) -> tuple[str, str, int]:
    """``(stdout, stderr, exit status)`` of ``manage.py verify_sitemaps``, its timings
    written ``S s`` and ``S ms``; a ``CommandError`` is written to stderr as
    ``manage.py`` writes it (``tests/test_verify_sitemaps.py`` runs it for real too)."""
    stdout, stderr, status = outcome("verify_sitemaps", *args, **options)
    return TIMINGS.sub(r"S \1", stdout), stderr, status


def articles(*slugs: str) -> None:
    """Published articles, in this order (the section's: by primary key)."""
    Article.objects.bulk_create(Article(slug=slug, title=slug.title()) for slug in slugs)
