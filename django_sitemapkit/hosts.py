"""The documented home of ``default_site()``; the choice of a site lives in
``django_sitemapkit.sites.hosts``.
"""

from __future__ import annotations

from django_sitemapkit.sites.hosts import default_site

__all__ = ["default_site"]
