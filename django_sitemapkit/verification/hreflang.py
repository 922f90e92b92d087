"""Whether the hreflang alternates the sitemap lists are reciprocal: for each URL with
alternates, each alternate's own entry lists the URL back.

The alternates are the sitemap's own ``xhtml:link`` elements, not the pages'
``<link rel="alternate">``: the sitemap is what a search engine reads, and
Google ignores an hreflang set whose pages do not link each other back
("Tell Google about localized versions of your page": "If two pages don't
both point to each other, the tags will be ignored"). A row of an ``i18n``
source lists every language's URL with the same set, so it is reciprocal by
construction; the ``alternates`` hook's data, across rows, sections and
sites, is not.

Memory stays flat however many URLs are read: each listed URL (as a 64-bit
hash) and each link between two URLs go to a temporary SQLite database on
disk (SQLite's own page cache, 2 MiB, is all it holds in memory), and the
links with no link back are found by one query at the end. An alternate
listed nowhere among the URLs read is reported only when every URL of every
site was read: with ``--sample``, ``--section`` or ``--site`` it may be
listed on a page that was not, and is counted as unchecked instead.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from itertools import groupby

from django_sitemapkit.verification.listing import Listed
from django_sitemapkit.verification.markup import SHOWN
from django_sitemapkit.verification.reasons import HREFLANG, Reason, reason

#: Rows written to the temporary database at once.
BATCH = 10_000
SCHEMA = """
CREATE TABLE listed (hash INTEGER PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE links (
    site TEXT, section TEXT, source TEXT, hreflang TEXT, target TEXT,
    source_hash INTEGER, target_hash INTEGER
);
"""
# Each link with no link back, in the order read, and whether its target is listed.
UNRETURNED = """
SELECT site, section, source, hreflang, target, EXISTS (
    SELECT 1 FROM listed WHERE listed.hash = links.target_hash
)
FROM links
WHERE NOT EXISTS (
    SELECT 1 FROM links AS back
    WHERE back.source_hash = links.target_hash AND back.target_hash = links.source_hash
)
ORDER BY rowid
"""


def url_hash(url: str) -> int:
    """A 64-bit key of ``url``, as SQLite's INTEGER holds it."""
    return int.from_bytes(hashlib.blake2b(url.encode(), digest_size=8).digest(), "big", signed=True)


class Reciprocity:
    """The URLs read and their alternates, kept on disk; ``problems()`` at the end."""

    def __init__(self) -> None:
        # "": a private temporary database on disk, deleted when it is closed
        # (SQLite, "Temporary Databases").
        self.database = sqlite3.connect("")
        self.database.executescript(SCHEMA)
        self.listed: list[tuple[int]] = []
        self.links: list[tuple[str, str, str, str, str, int, int]] = []
        #: Links from a URL to another of its alternates, read so far.
        self.links_read = 0
        #: Alternates listed nowhere among the URLs read, when not every URL was.
        self.unchecked = 0

    def add(self, site: str, section: str, url: Listed) -> None:
        source_hash = url_hash(url.loc)
        self.listed.append((source_hash,))
        for hreflang, href in url.alternates:
            if href != url.loc:
                self.links_read += 1
                self.links.append(
                    (site, section, url.loc, hreflang, href, source_hash, url_hash(href))
                )
        if len(self.listed) >= BATCH or len(self.links) >= BATCH:
            self.flush()

    def flush(self) -> None:
        with self.database:
            self.database.executemany("INSERT OR IGNORE INTO listed VALUES (?)", self.listed)
            self.database.executemany("INSERT INTO links VALUES (?, ?, ?, ?, ?, ?, ?)", self.links)
        self.listed.clear()
        self.links.clear()

    def problems(self, every_url_read: bool) -> Iterator[tuple[str, str, str, Reason]]:
        """``(site, section, URL, reason)`` of each URL one of whose alternates does not list
        it back, in the order the URLs were read."""
        self.flush()
        self.database.execute("CREATE INDEX links_pair ON links (source_hash, target_hash)")
        rows = self.database.execute(UNRETURNED)
        for (site, section, source), found in groupby(rows, key=lambda row: row[:3]):
            details = []
            for *_, hreflang, target, is_listed in found:
                if is_listed:
                    details.append(f"{hreflang} {target[:SHOWN]} does not list it back")
                elif every_url_read:
                    details.append(f"{hreflang} {target[:SHOWN]} is not in the sitemap")
                else:
                    self.unchecked += 1
            if details:
                yield site, section, source, reason(HREFLANG, "; ".join(details))

    def close(self) -> None:
        self.database.close()
