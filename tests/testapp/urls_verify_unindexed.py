"""``urls_verify.py`` without ``django_sitemapkit.urls``: a project that serves its sitemap
otherwise (``tests/test_verification_documents.py``)."""

from __future__ import annotations

from django.urls import URLResolver

from testapp.urls_verify import urlpatterns as verify_patterns

urlpatterns = [pattern for pattern in verify_patterns if not isinstance(pattern, URLResolver)]
