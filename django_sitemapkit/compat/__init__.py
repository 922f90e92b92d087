"""A drop-in for ``django.contrib.sitemaps.views``: the same ``index`` and ``sitemap``
views, over the same dict of contrib ``Sitemap`` classes and instances, with the
documents written by this engine (checked values, one host, the streaming encoder)."""

from __future__ import annotations

from django_sitemapkit.compat.registration import register
from django_sitemapkit.compat.views import index, sitemap

__all__ = ["index", "register", "sitemap"]
