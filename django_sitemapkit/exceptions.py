"""Errors raised by django-sitemapkit."""

from __future__ import annotations


class InvalidEntry(ValueError):
    """A row cannot become a valid ``<url>``; skipped and logged, or raised in strict mode."""


class BuildError(Exception):
    """A build that cannot go on; the message is one line for the command to print."""
