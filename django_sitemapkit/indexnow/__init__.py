"""IndexNow (https://www.indexnow.org/documentation): telling the search engines that
take it which URLs of a site were added, changed or removed.

``changes()`` finds them in the old and new versions of the documents a build
rewrote; ``submit()`` sends them, keeping in a :class:`Record` what is still to
send and what was accepted, so that a failed submission is tried again by the
next build and nothing accepted is sent twice. A build does the same in two
steps: its changes are kept in the record while it holds the build lock
(``submission.py``), and sent once it has let go of it (``notification.py``).
The requests are in ``sender.py`` and ``endpoint.py``, the record in
``records.py`` and ``state.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from django_sitemapkit.indexnow.compare import REMOVED, changes
from django_sitemapkit.indexnow.notification import MAX_URLS_PER_REQUEST, key_location, send
from django_sitemapkit.indexnow.records import RECORD_NAME, FileRecord, Record, StorageRecord
from django_sitemapkit.indexnow.state import MAX_ACCEPTED, MAX_PENDING
from django_sitemapkit.indexnow.submission import Submission, keep
from django_sitemapkit.sites.configured import SitemapSite

__all__ = [
    "MAX_ACCEPTED",
    "MAX_PENDING",
    "MAX_URLS_PER_REQUEST",
    "RECORD_NAME",
    "REMOVED",
    "FileRecord",
    "Record",
    "StorageRecord",
    "Submission",
    "changes",
    "key_location",
    "submit",
]


def submit(
    site: SitemapSite,
    changed: Mapping[str, str],
    record: Record,
    *,
    sleep: Callable[[float], object] = time.sleep,
) -> Submission:
    """Send ``changed`` (URL to state, as ``changes()`` gives) and the URLs the record
    still has pending to ``SITEMAPKIT_INDEXNOW_ENDPOINT``, within
    ``SITEMAPKIT_INDEXNOW_DEADLINE``.

    The record is written before anything is sent, and after each batch is
    answered. A URL whose state was accepted already is not sent again. Raises
    nothing for what the network or the endpoint does.
    """
    return send(site, keep(site, changed, record), sleep=sleep)
