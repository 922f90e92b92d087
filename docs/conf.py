"""Sphinx configuration of django-sitemapkit's documentation.

Build it with ``python -m tox -e docs`` (warnings are errors there), or
directly: ``sphinx-build -W -n -b html docs docs/_build/html``.
"""

from __future__ import annotations

import inspect
import sys
import tomllib
from pathlib import Path
from typing import Any

import django
from django.conf import settings
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent

project = "django-sitemapkit"
author = "django-sitemapkit contributors"
copyright = "django-sitemapkit contributors"

extensions = ["myst_parser", "sphinx.ext.autodoc"]

# The pages are Markdown (MyST). SECURITY.md, CONTRIBUTING.md and CHANGELOG.md
# stay at the repository root and are included by security.md,
# architecture.md and changelog.md, so each has one source.
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# "page.md#a-heading" links between pages, for headings down to ###.
myst_heading_anchors = 3

# The project's links have one home, pyproject.toml's [project.urls]; the site
# reads them from there (the header's buttons, the footer, the index page).
with (ROOT / "pyproject.toml").open("rb") as pyproject:
    URLS: dict[str, str] = tomllib.load(pyproject)["project"]["urls"]

# A page links them as [text](source:) and [text](issues:) (a path may follow
# the colon); the schemes of ordinary links stay as MyST has them.
myst_url_schemes = {
    "http": None,
    "https": None,
    "mailto": None,
    "ftp": None,
    "source": URLS["Source"] + "{{path}}",
    "issues": URLS["Issues"] + "{{path}}",
}

html_theme = "furo"
html_title = "django-sitemapkit"
html_show_sourcelink = False
html_theme_options = {
    # Furo's buttons at the top of each page: the page's source on the forge.
    "source_repository": URLS["Source"] + "/",
    "source_branch": "main",
    "source_directory": "docs/",
    "footer_icons": [
        {"name": "Source code", "url": URLS["Source"], "html": "Source code", "class": ""},
        {"name": "Issue tracker", "url": URLS["Issues"], "html": "Issues", "class": ""},
    ],
}

# The API reference (api.md) is autodoc's, which imports the package: Django is
# configured first, with the least a project needs to import every public module.
# The optional Wagtail extra is not installed here; autodoc reads
# django_sitemapkit.wagtail against a stand-in for it.
settings.configure(
    INSTALLED_APPS=["django.contrib.contenttypes", "django_sitemapkit"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    SITEMAPKIT_BASE_URL="https://www.example.com",
    USE_TZ=True,
)
django.setup()

autodoc_mock_imports = ["wagtail"]
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True

# -n: every cross reference must resolve. There is no network at build time
# (here or in CI), so no intersphinx: the standard library's and Django's
# names in signatures are written as text, and so are the few internal types
# a public signature names (the base of both source classes, the class
# register() returns, a site's parsed origin), which are not the API.
nitpick_ignore_regex = [
    ("py:class", r"(collections\.abc|contextlib|datetime|decimal|os|typing)\.\w+"),
    ("py:class", r"django\.[\w.]+"),
    ("py:class", "Site"),
]
nitpick_ignore = [
    ("py:class", "django_sitemapkit.sources.declaration.BaseSource"),
    ("py:class", "django_sitemapkit.registry.SourceClass"),
    ("py:class", "django_sitemapkit.compat.plan.ContribSource"),
    ("py:class", "Origin"),
]


def require_docstring(app: Sphinx, domain: str, objtype: str, content: nodes.Element) -> None:
    """Every object the reference describes says what it is: one whose description
    holds nothing but its members' is a warning, an error under -W."""
    if domain != "py":
        return
    # Its members' descriptions, their index entries and autodoc's "Bases:" line
    # (:show-inheritance:) are not its own.
    own = [
        child
        for child in content.children
        if not isinstance(child, addnodes.desc | addnodes.index)
        and not child.astext().startswith("Bases: ")
    ]
    if not own:
        signature = content.parent[0]
        name = signature.get("fullname") or signature.astext()
        module = signature.get("module")
        logger.warning(
            "%s %s has no docstring",
            objtype,
            f"{module}.{name}" if module else name,
            location=content.parent,
        )


def home_comment(
    app: Sphinx, what: str, name: str, obj: object, options: Any, lines: list[str]
) -> None:
    """A value a package re-exports (``django_sitemapkit.registry``, IndexNow's
    constants) is described by the ``#:`` comment where it is assigned, in one of
    the package's modules; autodoc looks only in the package, and would describe
    it with its type's docstring (``str``'s, ``int``'s)."""
    if what != "data":
        return
    package, _, attribute = name.rpartition(".")
    homes = [
        module
        for module_name, module in sorted(sys.modules.items())
        if module_name.startswith(f"{package}.") and getattr(module, attribute, None) is obj
    ]
    for module in homes:
        comment = ModuleAnalyzer.for_module(module.__name__).find_attr_docs().get(("", attribute))
        if comment:
            lines[:] = list(comment)
            return
    if "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__ or ""):
        lines[:] = []  # no description of its own: require_docstring says so


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", home_comment)
    app.connect("object-description-transform", require_docstring)
    return {"parallel_read_safe": True}
