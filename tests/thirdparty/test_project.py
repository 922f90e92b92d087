"""The third-party project itself: its packages' own sitemap views answer as those
packages document, the reference the drop-in and the sources are compared with."""

from __future__ import annotations

import pytest
from django.test import Client
from wagtail.models import Page, Site

from thirdparty.pages.models import ArticlePage

pytestmark = pytest.mark.django_db


def test_wagtail_serves_its_own_sitemap() -> None:
    root = Page.objects.get(depth=1)
    start = root.add_child(instance=ArticlePage(title="Start", slug="start"))
    start.add_child(instance=ArticlePage(title="About", slug="about"))
    Site.objects.all().delete()
    Site.objects.create(hostname="www.example.com", port=443, root_page=start, is_default_site=True)

    response = Client().get("/wagtail-sitemap.xml", HTTP_HOST="www.example.com", secure=True)

    assert response.status_code == 200
    assert b"<loc>https://www.example.com/about/</loc>" in response.content
