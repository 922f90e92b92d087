"""The django CMS site of the drop-in's ``CMSSitemap`` cases (bench/thirdparty_dropin.py):
a home and its children, ``CMS_PAGES`` in all, made once by the first child's untimed
``setup()`` with django CMS's own ``cms.api.create_page()`` (its pages' rows are
spread over several models; about 7 ms a page on SQLite), in one transaction.

The sites framework's current site (``SITE_ID``) is moved to the host and port of
``SITEMAPKIT_BASE_URL``: contrib's views write that site's domain, the drop-in the
base URL's, so both list the same locations (the parent compares them).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from cms.api import create_page
from cms.models import Page
from django.conf import settings
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.db import DatabaseError, transaction

from bench.sizes import CMS_PAGES
from bench.sources import base_url

TEMPLATE = "bench/cms_page.html"


def seeded(domain: str) -> bool:
    try:
        return (
            Site.objects.filter(pk=settings.SITE_ID, domain=domain).exists()
            and Page.objects.count() == CMS_PAGES
        )
    except DatabaseError:  # no table yet
        return False


def ensure_pages() -> None:
    """The current site on the base URL's host, and the pages, made unless they are there."""
    domain = urlsplit(base_url()).netloc
    if not seeded(domain):
        call_command("migrate", verbosity=0, interactive=False)
        with transaction.atomic():
            Site.objects.update_or_create(
                pk=settings.SITE_ID, defaults={"domain": domain, "name": "benchmark"}
            )
            Page.objects.all().delete()
            language = settings.LANGUAGE_CODE
            home = create_page("Home", TEMPLATE, language)
            for number in range(1, CMS_PAGES):
                create_page(f"Page {number}", TEMPLATE, language, parent=home)
    # Each process keeps the current Site once read: never one read before the move.
    Site.objects.clear_cache()
