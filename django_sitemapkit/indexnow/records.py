"""Where IndexNow submission keeps what it has to send and what was accepted: a
record of two mappings of URL to state, stored as JSON in a file or a Django
storage, between one build and the next.

A URL's state is what a change of it is told by: its ``<lastmod>``, ``""`` for
none, or ``"removed"``. The record says which state of each URL is still to be
sent (pending) and which the endpoint accepted, so that no state is sent twice.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Protocol

from django.core.files.base import ContentFile
from django.core.files.storage import Storage

logger = logging.getLogger("django_sitemapkit")

#: The record's name beside the build's output, for a project's only site.
RECORD_NAME = "sitemapkit-indexnow.json"
#: How many accepted URLs a record remembers, the most recently accepted: about
#: 100 MB of JSON at most. A URL forgotten only loses the guard against sending
#: the same state twice; its next change is sent as any other.
MAX_ACCEPTED = 1_000_000
FORMAT = 1


class Record(Protocol):
    """Where a record's bytes are kept."""

    def read(self) -> bytes | None:
        """The bytes last written, or ``None`` if none were."""

    def write(self, content: bytes) -> None:
        """Replace the bytes with ``content``, whole or not at all."""


class FileRecord:
    """A record in a local file, replaced atomically."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"FileRecord({str(self.path)!r})"

    def read(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None

    def write(self, content: bytes) -> None:
        # A temporary file in the same directory, renamed over the record
        # (os.replace is atomic within a file system): a crash leaves the old
        # record or the new one, never half of one.
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(content)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class StorageRecord:
    """A record in a Django storage."""

    def __init__(self, storage: Storage, name: str) -> None:
        self.storage = storage
        self.name = name

    def __repr__(self) -> str:
        return f"StorageRecord({self.storage!r}, {self.name!r})"

    def read(self) -> bytes | None:
        if not self.storage.exists(self.name):
            return None
        with self.storage.open(self.name, "rb") as file:
            content: bytes = file.read()
        return content

    def write(self, content: bytes) -> None:
        # A storage gives a new name to a file saved over an existing one
        # (Storage.get_available_name), so the old one goes first. No storage
        # promises an atomic replace: a crash in between loses the record,
        # which costs a resend of the accepted URLs' next changes only.
        if self.storage.exists(self.name):
            self.storage.delete(self.name)
        saved = self.storage.save(self.name, ContentFile(content))
        if saved != self.name:
            self.storage.delete(saved)
            raise OSError(
                f"{self.storage!r} saved the IndexNow record as {saved!r}, not {self.name!r}."
            )


@dataclass
class State:
    """A record's contents: URL to state, pending and accepted, in the order of their
    last change (a dict keeps it, and JSON keeps the dict's)."""

    pending: dict[str, str] = field(default_factory=dict)
    accepted: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, record: Record) -> State:
        """The record's state; an empty one if there is none, or if it cannot be read
        (logged: what was pending is lost, what was accepted may be sent again)."""
        content = record.read()
        if content is None:
            return cls()
        try:
            data = json.loads(content)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, not {FORMAT}")
            pending, accepted = data["pending"], data["accepted"]
            if not all(is_states(part) for part in (pending, accepted)):
                raise ValueError("pending or accepted is not an object of strings")
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            logger.error("The IndexNow record %r cannot be read (%s); it starts anew.", record, exc)
            return cls()
        return cls(pending, accepted)

    def dump(self) -> bytes:
        data = {"format": FORMAT, "pending": self.pending, "accepted": self.accepted}
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()

    def merge(self, changed: dict[str, str]) -> None:
        """Make ``changed`` pending, but for a state already accepted."""
        for url, state in changed.items():
            self.pending.pop(url, None)
            if self.accepted.get(url) != state:
                self.pending[url] = state

    def accept(self, urls: list[str]) -> None:
        for url in urls:
            state = self.pending.pop(url)
            # Moved to the end: the most recently accepted are the ones kept.
            self.accepted.pop(url, None)
            self.accepted[url] = state
        excess = len(self.accepted) - MAX_ACCEPTED
        if excess > 0:
            self.accepted = dict(islice(self.accepted.items(), excess, None))

    def drop(self, urls: list[str]) -> None:
        for url in urls:
            del self.pending[url]


def is_states(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(url, str) and isinstance(state, str) for url, state in value.items()
    )
