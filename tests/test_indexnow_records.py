"""The IndexNow record (indexnow/records.py): what is pending and what was accepted,
in a file or a storage, and what submit() does when it cannot be read or written."""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage
from django.test import override_settings
from indexnow_endpoint import Endpoint

from django_sitemapkit.build.destinations import StorageDestination
from django_sitemapkit.indexnow import FileRecord, StorageRecord, Submission, submit
from django_sitemapkit.indexnow import records as indexnow_records
from django_sitemapkit.indexnow.records import RecordBusy
from django_sitemapkit.indexnow.state import State
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


def test_a_record_of_another_format_starts_anew(caplog: pytest.LogCaptureFixture) -> None:
    record = MemoryRecord(b'{"format": 2, "pending": {}, "accepted": {}}')
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert State.load(record) == State()
    assert caplog.messages == [
        "The IndexNow record <in memory> cannot be read (format 2, not 1); it starts anew."
    ]


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


@pytest.mark.parametrize(
    ("plant", "why"),
    [
        (lambda path: path.write_bytes(b" " * 1_001), "it is more than 1,000 bytes"),
        # A FIFO would block the read for ever, and a link lead anywhere.
        (os.mkfifo, "it is not a regular file"),
        (lambda path: path.symlink_to(path.parent / "elsewhere.json"), "it is a symbolic link"),
    ],
    ids=["too-large", "fifo", "link"],
)
def test_a_record_that_is_no_record_is_set_aside(
    endpoint: Endpoint,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    plant: Callable[[Path], object],
    why: str,
) -> None:
    monkeypatch.setattr(indexnow_records, "MAX_RECORD_BYTES", 1_000)
    (tmp_path / "elsewhere.json").write_bytes(b"not the record's")
    record = FileRecord(tmp_path / "sitemapkit-indexnow.json")
    plant(record.path)
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert submit(SITE, {URL: ""}, record).accepted == 1
    assert caplog.messages == [
        f"The IndexNow record {record!r} cannot be read ({why}); it starts anew."
    ]
    # Replaced by a record of the app's; what a link pointed to is untouched.
    assert record.path.is_file()
    assert not record.path.is_symlink()
    assert json.loads(record.path.read_bytes())["accepted"] == {URL: ""}
    assert (tmp_path / "elsewhere.json").read_bytes() == b"not the record's"


def test_a_record_whose_lock_stays_held_is_left_as_it_is(
    endpoint: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexnow_records, "LOCK_WAIT", 0.2)
    record = FileRecord(tmp_path / "sitemapkit-indexnow.json")
    before = State(pending={"https://www.example.com/old/": ""}).dump()
    record.write(before)
    # Another process, stopped while it holds the record's lock.
    with open(tmp_path / ".sitemapkit-indexnow.json.lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        submission = submit(SITE, {URL: ""}, record)
    assert submission == Submission(
        endpoint.url,
        requests=1,
        sent=1,
        accepted=1,
        problems=(
            f"The IndexNow record {record!r} could not be read (another process has held the "
            f"lock of {record!r} for 0.2 seconds); it is left as it is, and this build's "
            "changes are sent without it.",
        ),
    )
    assert record.read() == before


@pytest.mark.django_db(transaction=True)
def test_a_storage_record_is_locked_for_every_machine_that_shares_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lock build_sitemaps gives it: PostgreSQL's advisory lock, or a file's
    # on SQLite (build/locks.py).
    monkeypatch.setattr(indexnow_records, "LOCK_WAIT", 0.2)
    options = {"location": str(tmp_path)}
    stores = {
        "sitemaps": {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": options}
    }
    with override_settings(STORAGES=stores):
        record, other = (StorageDestination("sitemaps", f"{p}/").record() for p in ("www", "shop"))
        assert isinstance(record, StorageRecord)
        assert isinstance(other, StorageRecord)
        with record.lock():
            with pytest.raises(RecordBusy) as raised, record.lock():
                pass
            assert str(raised.value) == (
                f"another process has held the lock of {record!r} for 0.2 seconds"
            )
            # Another site's record, and the build lock of the same site, are free.
            with other.lock(), StorageDestination("sitemaps", "www/").lock():
                pass
        with record.lock():
            pass


def test_a_storage_record_of_a_projects_own_needs_no_lock(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    record = StorageRecord(FileSystemStorage(location=tmp_path), "indexnow/record.json")
    assert submit(SITE, {URL: ""}, record).accepted == 1
    assert json.loads(record.read() or b"")["accepted"] == {URL: ""}
