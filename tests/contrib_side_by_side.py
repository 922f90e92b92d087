"""What the tests of django_sitemapkit.compat share: contrib's views and the drop-in
serving the same classes on the same host, and test_compat.py's tricky data."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import django.contrib.sitemaps
from django.contrib.sites.models import Site
from factories import ArticleFactory
from testapp.models import Article

UTC = dt.timezone.utc
SITE = "https://www.example.com"
CONTRIB_TEMPLATES = Path(django.contrib.sitemaps.__file__).parent / "templates"


def at(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, day, 12, tzinfo=UTC)


def serve_side_by_side(settings: Any) -> None:
    """contrib's templates, without django.contrib.sitemaps in INSTALLED_APPS, and the
    current Site on the base URL's host: contrib builds its locations on the Site,
    the drop-in on SITEMAPKIT_BASE_URL, so both write https://www.example.com."""
    settings.TEMPLATES = [
        {"BACKEND": "django.template.backends.django.DjangoTemplates", "DIRS": [CONTRIB_TEMPLATES]}
    ]
    Site.objects.filter(pk=1).update(domain="www.example.com")
    Site.objects.clear_cache()


def tricky_articles() -> list[Article]:
    """Seven published articles (pages of three) with tricky values, one with a
    priority outside 0.0 to 1.0, and a draft."""
    made = [
        ArticleFactory.create(slug="a&b<c>'d\"e", updated_at=at(1), priority=0.8),
        ArticleFactory.create(slug="café-ü", updated_at=None, priority=None),
        ArticleFactory.create(slug="too-high", updated_at=at(3), priority=1.5),
    ]
    made += [ArticleFactory.create(updated_at=at(4 + n), priority=0.3) for n in range(4)]
    ArticleFactory.create(slug="draft", published=False)
    return made
