"""Errors raised by django-sitemapkit."""

from __future__ import annotations


class InvalidEntry(ValueError):
    """A row cannot become a valid ``<url>``; skipped and logged, or raised in strict mode."""
