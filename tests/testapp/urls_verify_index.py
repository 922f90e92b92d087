"""``urls_verify.py`` with its sitemap index answered by a page that is no sitemap, as a
catch-all pattern placed first answers it (``tests/test_verify_sitemaps.py``)."""

from __future__ import annotations

from django.urls import path

from testapp.urls import page
from testapp.urls_verify import urlpatterns as verify_patterns

urlpatterns = [path("sitemap.xml", page), *verify_patterns]
