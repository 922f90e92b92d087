"""A native Wagtail source: ``WagtailSource`` lists a Wagtail site's live, public pages
as rows (the optional extra ``django-sitemapkit[wagtail]``). Importing this package
imports Wagtail; nothing else in django_sitemapkit does."""

from __future__ import annotations

from django_sitemapkit.wagtail.source import WagtailSource

# What a page's change records besides its row (SITEMAPKIT_CHANGES): registered here,
# once the class is defined.
from django_sitemapkit.wagtail import changes  # noqa: F401  # isort: skip

__all__ = ["WagtailSource"]
