"""What IndexNow is told: the changed URLs of the documents the encoder writes
(indexnow/compare.py)."""

from __future__ import annotations

import io
import re

import pytest

from django_sitemapkit.encoding.encoder import Encoder, Entry, entry_lines, url_element, urlset
from django_sitemapkit.indexnow import changes
from django_sitemapkit.indexnow.compare import Change, compare

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


def test_compare_gives_each_change_its_kind_and_the_document_that_lists_it() -> None:
    # The rule changes() follows, a URL at a time: a URL listed twice on a side
    # counts once, with its newest lastmod and the first document that lists it.
    first = document(("/kept/", "2024-01-01"), ("/gone/", "2024-01-02"), ("/moved/", None))
    second = document(("/twice/", "2024-01-01"))
    new_first = document(("/kept/", "2024-01-01"), ("/twice/", "2024-03-01"), ("/new/", None))
    new_second = document(("/moved/", None), ("/twice/", "2024-02-01"))
    found = compare(
        [("old-1.xml", first), ("old-2.xml", io.BytesIO(second))],
        [("new-1.xml", new_first), ("new-2.xml", new_second)],
    )
    assert list(found) == [
        Change(f"{BASE}/gone/", "removed", "2024-01-02", "old-1.xml"),
        Change(f"{BASE}/twice/", "changed", "2024-03-01", "new-1.xml"),
        Change(f"{BASE}/new/", "added", None, "new-1.xml"),
    ]
    assert changes([first, second], [new_first, new_second]) == {
        f"{BASE}/gone/": "removed",
        f"{BASE}/new/": "",
        f"{BASE}/twice/": "2024-03-01",
    }
