"""IndexNow (https://www.indexnow.org/documentation): telling the search engines that
take it which URLs of a site were added, changed or removed.

``changes()`` finds them in the old and new versions of the documents a build
rewrote; ``submit()`` sends them, keeping in a :class:`Record` what is still to
send and what was accepted, so that a failed submission is tried again by the
next build and nothing accepted is sent twice. The request itself is in
``endpoint.py``, the record in ``records.py``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.urls import NoReverseMatch, reverse

from django_sitemapkit.conf import conf
from django_sitemapkit.indexnow.compare import REMOVED, changes
from django_sitemapkit.indexnow.endpoint import ATTEMPTS, Answer, Sender
from django_sitemapkit.indexnow.records import (
    MAX_ACCEPTED,
    RECORD_NAME,
    FileRecord,
    Record,
    State,
    StorageRecord,
)
from django_sitemapkit.locations.policy import URL_NAMESPACE, stable_script_prefix
from django_sitemapkit.names import INDEXNOW_KEY
from django_sitemapkit.sites.configured import SitemapSite

__all__ = [
    "MAX_ACCEPTED",
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

logger = logging.getLogger("django_sitemapkit")

# indexnow.org, "Submitting set of URLs": up to 10,000 URLs per POST.
MAX_URLS_PER_REQUEST = 10_000


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


@dataclass(frozen=True)
class Submission:
    """What ``submit()`` did: counts of URLs, and the problems met (also logged)."""

    endpoint: str
    #: POST requests made, retries included.
    requests: int = 0
    #: URLs posted, whatever the answer.
    sent: int = 0
    accepted: int = 0
    #: URLs the record keeps to send on the next build.
    pending: int = 0
    #: URLs given up on: refused as malformed (400, 422), or not on the site's host.
    dropped: int = 0
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


def key_location(site: SitemapSite, key: str) -> str:
    """The URL of the key file on ``site``: where ``django_sitemapkit.urls`` serves it,
    or at the root of the host if it does not (a web server may)."""
    try:
        with stable_script_prefix():
            path = reverse(f"{URL_NAMESPACE}:indexnow_key", kwargs={"key": key})
    except NoReverseMatch:
        path = f"/{key}.txt"  # sitemapkit.W022
    return site.base_url + path


def submit(
    site: SitemapSite,
    changed: Mapping[str, str],
    record: Record,
    *,
    sleep: Callable[[float], object] = time.sleep,
) -> Submission:
    """Send ``changed`` (URL to state, as ``changes()`` gives) and the URLs the record
    still has pending to ``SITEMAPKIT_INDEXNOW_ENDPOINT``.

    The record is written before anything is sent, and after each batch is
    answered. A URL whose state was accepted already is not sent again. Batches
    of at most 10,000 URLs, in URL order: accepted (2xx), they are remembered
    as such; refused as malformed (400, 422), dropped and logged; on 403 (the
    key file not found yet) the rest stays pending; on 429, a server error or
    no answer, a batch is tried ``ATTEMPTS`` times in all, then it and the rest
    stay pending. Raises nothing for what the network or the endpoint does.
    """
    endpoint, key = conf.INDEXNOW_ENDPOINT, conf.INDEXNOW_KEY
    if key is None:
        return Submission(endpoint, problems=("SITEMAPKIT_INDEXNOW_KEY is not set.",))
    if not isinstance(key, str) or not INDEXNOW_KEY.fullmatch(key):
        message = f"SITEMAPKIT_INDEXNOW_KEY is {key!r}, which IndexNow refuses (sitemapkit.E044)."
        logger.error("IndexNow: %s", message)
        return Submission(endpoint, problems=(message,))
    problems: list[str] = []
    state, writable = load(record, problems)
    state.merge(dict(changed))
    dropped = drop_other_hosts(state, site, problems)
    writable = writable and save(record, state, problems)
    sender = Sender(endpoint, conf.INDEXNOW_TIMEOUT, sleep)
    location = key_location(site, key)
    urls = sorted(state.pending)
    sent = accepted = 0
    for start in range(0, len(urls), MAX_URLS_PER_REQUEST):
        batch = urls[start : start + MAX_URLS_PER_REQUEST]
        payload = {"host": site.origin.host, "key": key, "keyLocation": location, "urlList": batch}
        answer = sender.send(payload)
        sent += len(batch)
        if answer.accepted:
            state.accept(batch)
            accepted += len(batch)
        elif answer.status in (400, 422):
            # 400: not in the protocol's format; 422: URLs not of the host, or a
            # key not of the schema. The same request would be refused again.
            state.drop(batch)
            dropped += len(batch)
            report(
                problems,
                f"{plural(len(batch), 'URL')} refused: {answer.told_by(endpoint)}. They are "
                "dropped: sent again, they would be refused again.",
            )
        else:
            # Nothing wrong with the URLs: they are tried again by the next build.
            report(
                problems, stopped(endpoint, answer, location, len(urls) - start), logging.WARNING
            )
            break
        writable = writable and save(record, state, problems)
    submission = Submission(
        endpoint, sender.requests, sent, accepted, len(state.pending), dropped, tuple(problems)
    )
    logger.info("%s", submission.summary())
    return submission


def stopped(endpoint: str, answer: Answer, location: str, left: int) -> str:
    """Why the batches from this one on are left pending."""
    told, kept = answer.told_by(endpoint), f"{plural(left, 'URL')} left pending for the next build."
    if answer.status == 403:
        return (
            f"{told}. The key file {location} was not found, or does not hold the key: is it "
            f"deployed? {kept}"
        )
    if answer.temporary:
        return f"{told}, {ATTEMPTS} times. {kept}"
    return f"{told}, which is no IndexNow answer: is SITEMAPKIT_INDEXNOW_ENDPOINT right? {kept}"


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


def load(record: Record, problems: list[str]) -> tuple[State, bool]:
    """The record's state, and whether to write it back: not after it could not be
    read, which would replace what it holds with this build's changes alone."""
    try:
        return State.load(record), True
    # Any exception: a storage raises its own classes (a cloud SDK's, say), and
    # the changes are still worth sending without the record.
    except Exception as exc:
        report(
            problems,
            f"The IndexNow record {record!r} could not be read ({exc}); it is left as it is, "
            "and this build's changes are sent without it.",
        )
        return State(), False


def save(record: Record, state: State, problems: list[str]) -> bool:
    """Write the record; ``False`` if it could not be (reported once: no more tries)."""
    try:
        record.write(state.dump())
    # Any exception, as in load(); the URLs are sent all the same.
    except Exception as exc:
        report(problems, f"The IndexNow record {record!r} could not be written: {exc}")
        return False
    return True


def report(problems: list[str], message: str, level: int = logging.ERROR) -> None:
    logger.log(level, "IndexNow: %s", message)
    problems.append(message)
