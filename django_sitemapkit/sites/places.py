"""Where a site's built files live: the one rule for the build that writes them, the
workers that stage them and the views that serve them.

A directory (``--output``, else ``SITEMAPKIT_OUTPUT_DIR``) comes before a storage
(``SITEMAPKIT_STORAGE``), should both be set (``sitemapkit.E021`` says so). A
project's only site has the directory or the storage's root to itself; each of
several sites has the subdirectory (or prefix) named after it, which
``names.SITE_NAME`` keeps to one path segment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.configured import SitemapSite


@dataclass(frozen=True)
class Place:
    """A site's files: in the local ``directory``, or under ``prefix`` in ``storage``
    (an alias of ``STORAGES``); ``setting`` names where the place came from, for
    messages."""

    setting: str
    directory: str | None = None
    storage: str | None = None
    prefix: str = ""


def files_place(site: SitemapSite, output: str | os.PathLike[str] | None = None) -> Place | None:
    """Where ``site``'s files are, or ``None`` when no setting says (``output`` is the
    build's ``--output``)."""
    if output is not None:
        return Place("--output", directory=site_directory(os.fspath(output), site))
    if conf.OUTPUT_DIR is not None:
        directory = site_directory(os.fspath(conf.OUTPUT_DIR), site)
        return Place("SITEMAPKIT_OUTPUT_DIR", directory=directory)
    if conf.STORAGE is not None:
        return Place("SITEMAPKIT_STORAGE", storage=conf.STORAGE, prefix=site_prefix(site))
    return None


def site_directory(root: str, site: SitemapSite) -> str:
    return os.path.join(root, site.name) if site.several else root


def site_prefix(site: SitemapSite) -> str:
    """What a storage's names for ``site`` start with."""
    return f"{site.name}/" if site.several else ""
