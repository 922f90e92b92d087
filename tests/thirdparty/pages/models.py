"""Page types of the third-party project: a Wagtail page type, and FeinCMS's page
configured as a FeinCMS site configures it (one template, one region)."""

from __future__ import annotations

from feincms.module.page.models import Page as FeinPage
from wagtail.models import Page


class ArticlePage(Page):
    """A plain Wagtail page of the tests."""


# FeinCMS refuses to start until its page model has templates (its admin checks).
FeinPage.register_templates(
    {"title": "Page", "path": "page.html", "regions": (("main", "Main content area"),)}
)

# FeinCMS's dates, so its PageSitemap has a lastmod to compare (test_compat_*.py):
# FeinCMS's page has no migrations, so the test database's tables come from the
# model as it is registered here.
FeinPage.register_extensions("feincms.extensions.changedate")
