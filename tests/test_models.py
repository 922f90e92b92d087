"""The app's tables (django_sitemapkit/models.py): its migrations describe them."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_migrations_describe_the_models() -> None:
    out = io.StringIO()
    # --check exits 1 (SystemExit) when a model has changes no migration holds.
    call_command("makemigrations", "django_sitemapkit", check=True, dry_run=True, stdout=out)
    assert out.getvalue() == "No changes detected in app 'django_sitemapkit'\n"
