"""Which destination each site's files go to."""

from __future__ import annotations

import os

from django_sitemapkit.build.destinations import Destination, StorageDestination
from django_sitemapkit.build.directory import DirectoryDestination
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.views.serving import site_directory, site_prefix


def destination_for(site: SitemapSite, output: str | os.PathLike[str] | None = None) -> Destination:
    """Where ``site``'s files go: the ``--output`` directory, else ``SITEMAPKIT_OUTPUT_DIR``,
    else ``SITEMAPKIT_STORAGE``; for one site of several, the directory (or prefix)
    named after it, the very one its files are served from."""
    if output is not None:
        return DirectoryDestination(site_directory(os.fspath(output), site))
    if conf.OUTPUT_DIR is not None:
        return DirectoryDestination(site_directory(os.fspath(conf.OUTPUT_DIR), site))
    if conf.STORAGE is not None:
        return StorageDestination(conf.STORAGE, site_prefix(site))
    raise BuildError(
        "Nowhere to write: pass --output DIR, or set SITEMAPKIT_OUTPUT_DIR (a directory) "
        "or SITEMAPKIT_STORAGE (an alias of STORAGES)."
    )
