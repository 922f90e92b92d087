"""Page types of the third-party project: a Wagtail page type, and FeinCMS's page
configured as a FeinCMS site configures it (one template, one region)."""

from __future__ import annotations

from typing import Any

from feincms.module.page.models import Page as FeinPage
from wagtail.models import Page


class ArticlePage(Page):
    """A plain Wagtail page of the tests."""


class EventPage(Page):
    """A Wagtail page type that lists a second URL of its own in the sitemap, as
    Wagtail's docs show ``get_sitemap_urls()`` overridden: the native source's
    fallback (test_wagtail_fallback.py)."""

    def get_sitemap_urls(self, request: Any = None) -> list[dict[str, Any]]:
        return [
            *super().get_sitemap_urls(request),
            {"location": f"{self.get_full_url(request)}past/", "changefreq": "yearly"},
        ]


# FeinCMS refuses to start until its page model has templates (its admin checks).
FeinPage.register_templates(
    {"title": "Page", "path": "page.html", "regions": (("main", "Main content area"),)}
)

# FeinCMS's dates, so its PageSitemap has a lastmod to compare (test_compat_*.py):
# FeinCMS's page has no migrations, so the test database's tables come from the
# model as it is registered here.
FeinPage.register_extensions("feincms.extensions.changedate")
