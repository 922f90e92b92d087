"""The IndexNow record (indexnow/records.py): what is pending and what was accepted,
in a file or a storage, and what submit() does when it cannot be read or written."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage
from indexnow_endpoint import Endpoint

from django_sitemapkit.indexnow import FileRecord, StorageRecord, Submission, submit
from django_sitemapkit.indexnow import records as indexnow_records
from django_sitemapkit.indexnow.records import State
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite

SITE = SitemapSite("default", Origin.from_url("https://www.example.com"))
URL = "https://www.example.com/a/"


def test_file_record_is_replaced_whole(tmp_path: Path) -> None:
    record = FileRecord(tmp_path / "sitemapkit-indexnow.json")
    assert record.read() is None
    record.write(b"one")
    record.write(b"two")
    assert record.read() == b"two"
    assert [path.name for path in tmp_path.iterdir()] == ["sitemapkit-indexnow.json"]


def test_storage_record_keeps_its_name(tmp_path: Path) -> None:
    record = StorageRecord(FileSystemStorage(location=tmp_path), "indexnow/record.json")
    assert record.read() is None
    record.write(b"one")
    record.write(b"two")
    assert record.read() == b"two"
    assert [path.name for path in (tmp_path / "indexnow").iterdir()] == ["record.json"]


def test_a_state_already_accepted_is_not_pending_again() -> None:
    state = State()
    state.merge({"https://www.example.com/a/": "2024-01-01"})
    state.accept(["https://www.example.com/a/"])
    state.merge({"https://www.example.com/a/": "2024-01-01", "https://www.example.com/b/": ""})
    assert state == State(
        pending={"https://www.example.com/b/": ""},
        accepted={"https://www.example.com/a/": "2024-01-01"},
    )


def test_the_accepted_urls_kept_are_the_most_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexnow_records, "MAX_ACCEPTED", 3)
    state = State(accepted={"a": "1", "b": "1", "c": "1"})
    state.merge({"a": "2", "d": "1"})
    state.accept(["a", "d"])
    assert list(state.accepted.items()) == [("c", "1"), ("a", "2"), ("d", "1")]


def test_a_record_of_another_format_starts_anew(caplog: pytest.LogCaptureFixture) -> None:
    record = MemoryRecord(b'{"format": 2, "pending": {}, "accepted": {}}')
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert State.load(record) == State()
    assert caplog.messages == [
        "The IndexNow record <in memory> cannot be read (format 2, not 1); it starts anew."
    ]


class MemoryRecord:
    def __init__(self, content: bytes | None) -> None:
        self.content = content

    def __repr__(self) -> str:
        return "<in memory>"

    def read(self) -> bytes | None:
        return self.content

    def write(self, content: bytes) -> None:
        self.content = content


class BrokenRecord(MemoryRecord):
    """A record whose store fails, as a storage whose service is down does."""

    def __init__(self, content: bytes | None, *, read: bool = True, write: bool = True) -> None:
        super().__init__(content)
        self.readable, self.writable = read, write

    def read(self) -> bytes | None:
        if not self.readable:
            raise ConnectionError("the storage is down")
        return super().read()

    def write(self, content: bytes) -> None:
        if not self.writable:
            raise ConnectionError("the storage is down")
        super().write(content)


def test_a_record_that_cannot_be_parsed_starts_anew(
    endpoint: Endpoint, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    record = FileRecord(tmp_path / "sitemapkit-indexnow.json")
    record.path.write_bytes(b'{"format": 1, "pending": [')
    assert submit(SITE, {URL: ""}, record).accepted == 1
    assert caplog.messages[0] == (
        f"The IndexNow record FileRecord({str(record.path)!r}) cannot be read (Expecting "
        "value: line 1 column 27 (char 26)); it starts anew."
    )
    assert json.loads(record.path.read_bytes())["accepted"] == {URL: ""}


def test_a_record_that_cannot_be_read_is_left_as_it_is(endpoint: Endpoint) -> None:
    before = State(pending={"https://www.example.com/old/": ""}).dump()
    record = BrokenRecord(before, read=False)
    assert submit(SITE, {URL: ""}, record) == Submission(
        endpoint.url,
        requests=1,
        sent=1,
        accepted=1,
        problems=(
            "The IndexNow record <in memory> could not be read (the storage is down); it is "
            "left as it is, and this build's changes are sent without it.",
        ),
    )
    assert record.content == before


def test_a_record_that_cannot_be_written_does_not_stop_the_urls(endpoint: Endpoint) -> None:
    record = BrokenRecord(None, write=False)
    changed = {f"https://www.example.com/{n}/": "" for n in range(10_001)}
    assert submit(SITE, changed, record) == Submission(
        endpoint.url,
        requests=2,
        sent=10_001,
        accepted=10_001,
        problems=("The IndexNow record <in memory> could not be written: the storage is down",),
    )
