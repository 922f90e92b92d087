"""Sphinx configuration of django-sitemapkit's documentation.

Build it with ``python -m tox -e docs`` (warnings are errors there), or
directly: ``sphinx-build -W -n -b html docs docs/_build/html``.
"""

from __future__ import annotations

project = "django-sitemapkit"
author = "django-sitemapkit contributors"
copyright = "django-sitemapkit contributors"

extensions = ["myst_parser"]

# The pages are Markdown (MyST). SECURITY.md, CONTRIBUTING.md and CHANGELOG.md
# stay at the repository root and are included by security.md,
# architecture.md and changelog.md, so each has one source.
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# "page.md#a-heading" links between pages, for headings down to ###.
myst_heading_anchors = 3

html_theme = "furo"
html_title = "django-sitemapkit"
html_show_sourcelink = False
