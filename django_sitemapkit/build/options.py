"""How a build writes its files: the command's options, resolved against the settings."""

from __future__ import annotations

from dataclasses import dataclass


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
