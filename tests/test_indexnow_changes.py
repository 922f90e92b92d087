"""What IndexNow is told: the changed URLs of the documents the encoder writes
(indexnow_changes.py), and the record of what is pending and accepted
(indexnow_records.py)."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from django.core.files.storage import FileSystemStorage

from django_sitemapkit import indexnow_records
from django_sitemapkit.base_urls import Origin
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.encoder import Encoder, Entry, entry_lines, url_element, urlset
from django_sitemapkit.indexnow import FileRecord, StorageRecord, changes, record_name
from django_sitemapkit.indexnow_records import State

BASE = "https://www.example.com"


def document(*entries: tuple[str, str | None]) -> bytes:
    """A ``<urlset>`` as the encoder writes it."""
    lines = entry_lines((Entry(BASE + path, lastmod) for path, lastmod in entries), url_element)
    return b"".join(Encoder(urlset()).stream([lines]))


OLD = document(
    ("/changed/", "2024-01-01"),
    ("/older/", "2024-01-01T10:00:00+00:00"),
    ("/dated-now/", None),
    ("/same/", "2024-02-01"),
    ("/same-instant/", "2024-02-01"),
    ("/undated/", "2024-02-01"),
    ("/removed/", "2024-03-01"),
)
NEW = document(
    ("/changed/", "2024-01-02"),
    ("/older/", "2024-01-01T09:00:00+00:00"),
    ("/dated-now/", "2024-04-01"),
    ("/same/", "2024-02-01"),
    ("/same-instant/", "2024-02-01T00:00:00+00:00"),
    ("/undated/", None),
    ("/new/", None),
    ("/new-dated/", "2024-04-02T08:30:00+00:00"),
)


def test_changes_of_documents_the_encoder_wrote() -> None:
    assert changes([OLD], [NEW]) == {
        f"{BASE}/changed/": "2024-01-02",
        f"{BASE}/dated-now/": "2024-04-01",
        f"{BASE}/new-dated/": "2024-04-02T08:30:00+00:00",
        f"{BASE}/new/": "",
        f"{BASE}/removed/": "removed",
    }


def test_changes_across_documents_read_as_streams() -> None:
    # A URL that moved from one changed document to another is no change.
    first, second = document(("/a/", "2024-01-01")), document(("/b/", None))
    moved = document(("/a/", "2024-01-01"), ("/b/", None), ("/c/", None))
    assert changes([io.BytesIO(first), second], [io.BytesIO(moved)]) == {f"{BASE}/c/": ""}
    assert changes([], [first]) == {f"{BASE}/a/": "2024-01-01"}
    assert changes([first], []) == {f"{BASE}/a/": "removed"}


def test_a_document_type_declaration_is_refused() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa">]>'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&a;</loc>'
        b"</url></urlset>"
    )
    with pytest.raises(ValueError, match=r"^document 1 has a document type declaration, "):
        changes([], [bomb])


def test_a_document_that_is_no_urlset_is_refused() -> None:
    index = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>'
    stream = io.BytesIO(index)
    stream.name = "sitemap.xml"
    root = "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    message = f"sitemap.xml is not a <urlset> document: its root is {root!r}."
    with pytest.raises(ValueError, match=rf"\A{re.escape(message)}\Z"):
        changes([stream], [])
    message = "document 1 is not well-formed XML: no element found: line 10, column 0."
    with pytest.raises(ValueError, match=rf"\A{re.escape(message)}\Z"):
        changes([], [OLD.removesuffix(b"</urlset>\n")])


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


def test_record_names() -> None:
    origin = Origin.from_url("https://example.de:8443")
    assert record_name(SitemapSite("default", origin)) == "sitemapkit-indexnow.json"
    assert record_name(SitemapSite("de", origin, several=True)) == "sitemapkit-indexnow-de.json"
    assert (
        record_name(SitemapSite("example.de:8443", origin, several=True))
        == "sitemapkit-indexnow-example.de_8443.json"
    )
