"""The sitemap's own documents, as a crawler reads them: the site's index, then each page
it lists, requested through the project's URLconf on the site's host and scheme
(``requester.py``), as the listed URLs are.

Each must answer 200 and list at least one URL: a search engine reports a
sitemap that fails, and one that lists nothing gives it nothing. An index the
URLconf does not name (``django_sitemapkit.urls`` not included) is not
requested. A page is read whole (the protocol's 50 MiB at most, a gzipped one
unpacked as it is read), by the same streaming readers as ``--built``.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, cast

from django.urls import NoReverseMatch

from django_sitemapkit.conf import MAX_BYTES
from django_sitemapkit.encoding.reading import read_index, read_urlset
from django_sitemapkit.locations.policy import index_path
from django_sitemapkit.names import section_of
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.containment import take_mail
from django_sitemapkit.verification.reasons import (
    EXITED,
    SITEMAP_EMPTY,
    SITEMAP_STATUS,
    SITEMAP_UNREADABLE,
    TIMEOUT,
    Reason,
    reason,
)
from django_sitemapkit.verification.requester import Answer, Requester

#: How the documents are named in the report, where a section's name would be: no
#: section is named with a ".".
DOCUMENTS = "sitemap.xml"
GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class Documents:
    """What the requests of a site's documents found."""

    #: ``None`` when the URLconf names no index.
    index: str | None
    requested: int = 0
    problems: list[tuple[str, Reason]] = field(default_factory=list)
    #: The e-mail messages their views sent (held, never delivered).
    mails: int = 0

    def request(self, requester: Requester, url: str, read: Callable[[bytes], int]) -> None:
        """Request the document at ``url``; ``read`` counts the URLs of its body
        (``ValueError`` for one that is not the document)."""
        answer = requester.document(url)
        self.requested += 1
        self.mails += take_mail()
        problem = document_problem(answer, read)
        if problem is not None:
            self.problems.append((url, problem))


def document_problem(answer: Answer, read: Callable[[bytes], int]) -> Reason | None:
    """Why a document fails a crawler, if it does."""
    if answer.timed_out:
        return reason(TIMEOUT, answer.error or "")
    if answer.exited:
        return reason(EXITED, answer.error or "")
    if answer.status == 200 and answer.body is None:
        return reason(SITEMAP_UNREADABLE, answer.error or "")
    if answer.status != 200 or answer.body is None:
        detail = str(answer.status)
        if "Location" in answer.headers:
            detail += f" to {answer.headers['Location']}"
        if answer.error is not None:
            detail += f", {answer.error}"
        return reason(SITEMAP_STATUS, detail)
    try:
        count = read(answer.body)
    except (ValueError, OSError, EOFError) as exc:
        return reason(SITEMAP_UNREADABLE, str(exc))
    return None if count else reason(SITEMAP_EMPTY, "200, no <loc>")


def unpacked(body: bytes) -> bytes | IO[bytes]:
    """The body as sent, or a stream of its unpacked bytes if it is gzipped."""
    if body.startswith(GZIP_MAGIC):
        # A GzipFile reads as IO[bytes] does; typeshed does not say so.
        return cast(IO[bytes], gzip.GzipFile(fileobj=io.BytesIO(body)))
    return body


def counted(reader: Callable[..., list[Any]], url: str) -> Callable[[bytes], int]:
    """How many entries ``reader`` finds in a body of the document at ``url``."""
    name = url.rsplit("/", 1)[-1]
    return lambda body: len(reader(unpacked(body), name, most_bytes=MAX_BYTES))


def request_documents(
    site: SitemapSite, requester: Requester, sections: list[str] | None
) -> Documents:
    """Request ``site``'s index and each page it lists (only those of ``sections``,
    when named), and say what fails."""
    try:
        index = site.base_url + index_path()
    except NoReverseMatch:
        return Documents(None)
    found = Documents(index)
    locs: list[str] = []

    def listed(document: bytes | IO[bytes], name: str, most_bytes: int) -> list[str]:
        locs.extend(read_index(document, name, most_bytes=most_bytes))
        return locs

    found.request(requester, index, counted(listed, index))
    for loc in locs:
        section = section_of(loc)
        if sections is None or section is None or section in sections:
            found.request(requester, loc, counted(read_urlset, loc))
    return found
