"""How a build writes its files: the command's options, resolved against the settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RemovalLimit:
    """The largest share of a site's URLs a build may remove (``--max-removed``)."""

    percent: float
    #: Where it was set, as the refusal names it: the option, or the setting.
    source: str = "--max-removed"


@dataclass(frozen=True)
class BuildOptions:
    gzip: bool = True
    gzip_links: bool = False
    validate: bool = False
    #: Render every shard, whatever the database says of it (``--full``).
    full: bool = False
    #: Send what the publish changed to IndexNow, when SITEMAPKIT_INDEXNOW_KEY is set.
    indexnow: bool = True
    #: Compress each page's gzip sibling on a second thread (``--jobs`` 2 or more).
    gzip_in_thread: bool = False
    #: Find the URLs the build adds, changes and removes, for its report (``--report``).
    report: bool = False
    #: Refuse to publish a set that removes more of the site's URLs (``guard.py``).
    max_removed: RemovalLimit | None = None
