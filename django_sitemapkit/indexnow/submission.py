"""A submission in two steps: ``keep()`` adds a build's changes to the record (quick,
no request: a build does it while it holds its lock), and ``send()``
(``notification.py``) posts what the record has pending, within
``SITEMAPKIT_INDEXNOW_DEADLINE`` (after the lock).

Each read and write of the record is done under the record's own lock, read
anew each time: a notification that overlaps another's, or the next build's,
never writes back an older copy over what they added (``records.py``). Two
notifications at once may post the same URLs; neither loses one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from logging import ERROR, WARNING
from typing import TypeVar

from django_sitemapkit.conf import conf
from django_sitemapkit.indexnow.records import Record, locked
from django_sitemapkit.indexnow.state import MAX_PENDING, State
from django_sitemapkit.names import INDEXNOW_KEY
from django_sitemapkit.sites.configured import SitemapSite

logger = logging.getLogger("django_sitemapkit")

T = TypeVar("T")


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


@dataclass(frozen=True)
class Submission:
    """What ``submit()`` did: counts of URLs, and the problems met (also logged)."""

    #: The URL the URLs were posted to (``SITEMAPKIT_INDEXNOW_ENDPOINT``).
    endpoint: str
    #: POST requests made, retries included.
    requests: int = 0
    #: URLs posted, whatever the answer.
    sent: int = 0
    #: URLs the endpoint accepted (200 or 202).
    accepted: int = 0
    #: URLs the record keeps to send on the next build.
    pending: int = 0
    #: URLs given up on: refused as malformed (400, 422), not on the site's host,
    #: past the record's bounds, or removed and pending too long.
    dropped: int = 0
    #: What went wrong, a line each, as logged.
    problems: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line for a command's output."""
        if self.requests:
            line = (
                f"IndexNow: {plural(self.sent, 'URL')} sent to {self.endpoint} in "
                f"{plural(self.requests, 'request')}, {self.accepted:,} accepted."
            )
        elif self.problems:
            line = f"IndexNow: nothing sent. {self.problems[0]}"
        else:
            line = "IndexNow: nothing to send."
        if self.pending:
            line += f" {plural(self.pending, 'URL')} left pending for the next build."
        if self.dropped:
            line += f" {plural(self.dropped, 'URL')} dropped."
        return line


@dataclass
class Notice:
    """One build's changes, for its notification to send: in the record, or in a
    state of its own once the record cannot be read or written."""

    record: Record
    #: The state used once the record failed (it is then left alone).
    apart: State | None = None
    dropped: int = 0
    problems: list[str] = field(default_factory=list)
    refused: bool = False

    def update(self, change: Callable[[State], T], doing: str) -> T:
        """``change`` the record, read and written under its lock, or the state kept
        apart once the record could not be read or written (reported once)."""
        if self.apart is not None:
            return change(self.apart)
        try:
            with locked(self.record):
                state = State.load(self.record)
                result = change(state)
                try:
                    self.record.write(state.dump())
                # Any exception: a storage raises its own classes (a cloud SDK's,
                # say), and the URLs are worth sending all the same.
                except Exception as exc:
                    report(
                        self.problems,
                        f"The IndexNow record {self.record!r} could not be written: {exc}",
                    )
                    self.apart = state
        # Its lock not had in time, or the record not read; any exception, as above.
        except Exception as exc:
            report(
                self.problems,
                f"The IndexNow record {self.record!r} could not be read ({exc}); it is left as "
                f"it is, and {doing}.",
            )
            self.apart = State()
            return change(self.apart)
        return result


def key_problem() -> str | None:
    key = conf.INDEXNOW_KEY
    if key is None:
        return "SITEMAPKIT_INDEXNOW_KEY is not set."
    if not isinstance(key, str) or not INDEXNOW_KEY.fullmatch(key):
        message = f"SITEMAPKIT_INDEXNOW_KEY is {key!r}, which IndexNow refuses (sitemapkit.E044)."
        logger.error("IndexNow: %s", message)
        return message
    return None


def keep(site: SitemapSite, changed: Mapping[str, str], record: Record) -> Notice:
    """Add ``changed`` (URL to state, as ``changes()`` gives) to the URLs the record
    has pending, within its bounds. Makes no request."""
    problem = key_problem()
    if problem is not None:
        return Notice(record, problems=[problem], refused=True)
    notice = Notice(record)

    def add(state: State) -> int:
        state.merge(dict(changed))
        return drop_other_hosts(state, site, notice.problems) + drop_excess(state, notice.problems)

    notice.dropped = notice.update(add, "this build's changes are sent without it")
    return notice


def drop_other_hosts(state: State, site: SitemapSite, problems: list[str]) -> int:
    """Drop the pending URLs that are not on the site's base URL: IndexNow takes the
    URLs of the key's host alone (a 422 for the whole batch otherwise)."""
    prefix = site.base_url + "/"
    strays = [url for url in state.pending if not url.startswith(prefix)]
    if strays:
        state.drop(strays)
        report(
            problems,
            f"{plural(len(strays), 'URL')} not on {site.base_url} dropped, such as "
            f"{strays[0]!r}: IndexNow takes only the URLs of the site's host.",
        )
    return len(strays)


def drop_excess(state: State, problems: list[str]) -> int:
    removed, changed = state.bound()
    if removed + changed:
        report(
            problems,
            f"{plural(removed + changed, 'pending URL')} dropped ({removed:,} removed, "
            f"{changed:,} changed: the removed first, then the oldest changes), to keep "
            f"{MAX_PENDING:,} pending at most; the sitemaps still list every URL for the "
            "engines' crawlers.",
            WARNING,
        )
    return removed + changed


def report(problems: list[str], message: str, level: int = ERROR) -> None:
    logger.log(level, "IndexNow: %s", message)
    problems.append(message)
