"""What an IndexNow record holds, and its bounds.

A URL's state is what a change of it is told by: its ``<lastmod>``, ``""`` for
none, or ``"removed"``. The record says which state of each URL is still to be
sent (pending) and which the endpoint accepted, so that no state is sent twice.
Both parts are bounded, so that an endpoint that refuses for weeks costs a
build no more than one that accepts: at most ``MAX_PENDING`` URLs pending (the
removed ones dropped first, then the oldest changes), a removed URL pending
through at most ``REMOVED_ROUNDS`` notifications, at most ``MAX_ACCEPTED``
accepted, and a record of at most ``MAX_RECORD_BYTES``.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass, field
from itertools import islice

from django_sitemapkit.indexnow.compare import REMOVED
from django_sitemapkit.indexnow.records import MAX_RECORD_BYTES, Record, UnfitRecord

logger = logging.getLogger("django_sitemapkit")

#: How many accepted URLs a record remembers, the most recently accepted: about
#: 100 MB of JSON at most. A URL forgotten only loses the guard against sending
#: the same state twice; its next change is sent as any other.
MAX_ACCEPTED = 1_000_000
#: How many URLs a record keeps pending: the posts of one notification (10 of
#: 10,000). A URL dropped is still in the sitemaps, whose crawl finds it.
MAX_PENDING = 100_000
#: How many notifications a removed URL stays pending through: a crawler that
#: fetches it finds it gone (404 or 410) whether or not it was told.
REMOVED_ROUNDS = 3
FORMAT = 1


@dataclass
class State:
    """A record's contents: URL to state, pending and accepted, in the order of their
    last change (a dict keeps it, and JSON keeps the dict's)."""

    pending: dict[str, str] = field(default_factory=dict)
    accepted: dict[str, str] = field(default_factory=dict)
    #: How many notifications each removed URL pending has been pending through.
    rounds: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, record: Record) -> State:
        """The record's state; an empty one if there is none, or if it cannot be read
        (logged: what was pending is lost, what was accepted may be sent again)."""
        try:
            content = record.read()
            if content is None:
                return cls()
            if len(content) > MAX_RECORD_BYTES:
                raise UnfitRecord(f"it is more than {MAX_RECORD_BYTES:,} bytes")
        except UnfitRecord as exc:
            problem: Exception = exc
        else:
            try:
                return cls.parse(content)
            # ValueError: not JSON, or no record of this format.
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                problem = exc
        logger.error("The IndexNow record %r cannot be read (%s); it starts anew.", record, problem)
        return cls()

    @classmethod
    def parse(cls, content: bytes) -> State:
        data = json.loads(content)
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {FORMAT}")
        pending, accepted, rounds = data["pending"], data["accepted"], data.get("rounds", {})
        if not all(is_states(part) for part in (pending, accepted)):
            raise ValueError("pending or accepted is not an object of strings")
        if not is_counts(rounds):
            raise ValueError("rounds is not an object of whole numbers")
        return cls(pending, accepted, rounds)

    def dump(self) -> bytes:
        content = self.encode()
        while len(content) > MAX_RECORD_BYTES:
            self.shed(1 - MAX_RECORD_BYTES / len(content))
            content = self.encode()
        return content

    def encode(self) -> bytes:
        data: dict[str, object] = {
            "format": FORMAT,
            "pending": self.pending,
            "accepted": self.accepted,
        }
        if self.rounds:
            data["rounds"] = self.rounds
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    def shed(self, share: float) -> None:
        """Drop at least ``share`` of the entries, the oldest accepted first: a record of
        long URLs would outgrow ``MAX_RECORD_BYTES`` before the counts' bounds."""
        if self.accepted:
            count = math.ceil(len(self.accepted) * share)
            self.accepted = dict(islice(self.accepted.items(), count, None))
            return
        count = math.ceil(len(self.pending) * share)
        removed, changed = self.bound(len(self.pending) - count)
        logger.error(
            "IndexNow: pending URLs dropped, as the record would be more than %s bytes: "
            "%s removed, %s changed.",
            f"{MAX_RECORD_BYTES:,}",
            f"{removed:,}",
            f"{changed:,}",
        )

    def merge(self, changed: dict[str, str]) -> None:
        """Make ``changed`` pending, but for a state already accepted, or already pending
        (which keeps its place and its count of notifications)."""
        for url, state in changed.items():
            if self.pending.get(url) == state:
                continue
            self.pending.pop(url, None)
            self.rounds.pop(url, None)
            if self.accepted.get(url) != state:
                self.pending[url] = state

    def bound(self, most: int | None = None) -> tuple[int, int]:
        """Keep at most ``most`` URLs pending (``MAX_PENDING``), dropping the removed
        ones first, then the oldest changes; the numbers of removed and of changed URLs
        dropped."""
        excess = len(self.pending) - (MAX_PENDING if most is None else most)
        if excess <= 0:
            return 0, 0
        removed = [url for url, state in self.pending.items() if state == REMOVED][:excess]
        changed = [url for url in self.pending if self.pending[url] != REMOVED]
        dropped = removed + changed[: excess - len(removed)]
        self.drop(dropped)
        return len(removed), len(dropped) - len(removed)

    def age(self) -> list[str]:
        """Count one more notification for each removed URL pending, and drop those
        pending through ``REMOVED_ROUNDS`` already: the URLs dropped."""
        stale = []
        for url, state in self.pending.items():
            if state == REMOVED:
                self.rounds[url] = self.rounds.get(url, 0) + 1
                if self.rounds[url] > REMOVED_ROUNDS:
                    stale.append(url)
        self.drop(stale)
        # Only the removed URLs pending are counted (a record written by hand may
        # count others).
        self.rounds = {url: n for url, n in self.rounds.items() if url in self.pending}
        return stale

    def settle(self, batch: list[tuple[str, str]], *, accepted: bool) -> None:
        """The states of ``batch`` answered: accepted, or refused for good. A URL whose
        state changed since it was sent stays pending with its new state."""
        for url, state in batch:
            if self.pending.get(url) == state:
                self.drop([url])
            if accepted:
                # Moved to the end: the most recently accepted are the ones kept.
                self.accepted.pop(url, None)
                self.accepted[url] = state
        excess = len(self.accepted) - MAX_ACCEPTED
        if excess > 0:
            self.accepted = dict(islice(self.accepted.items(), excess, None))

    def drop(self, urls: list[str]) -> None:
        for url in urls:
            del self.pending[url]
            self.rounds.pop(url, None)


def is_states(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(url, str) and isinstance(state, str) for url, state in value.items()
    )


def is_counts(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(url, str) and type(count) is int and count >= 0 for url, count in value.items()
    )
