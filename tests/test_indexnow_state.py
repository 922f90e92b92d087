"""What an IndexNow record holds (indexnow/state.py), and its bounds: pending and
accepted URLs, removed URLs pending for a few notifications, a record's size."""

from __future__ import annotations

import json
import logging

import pytest

from django_sitemapkit.indexnow import REMOVED
from django_sitemapkit.indexnow import state as indexnow_state
from django_sitemapkit.indexnow.state import State

A, B = "https://www.example.com/a/", "https://www.example.com/b/"


def test_a_state_already_accepted_is_not_pending_again() -> None:
    state = State()
    state.merge({A: "2024-01-01"})
    state.settle([(A, "2024-01-01")], accepted=True)
    state.merge({A: "2024-01-01", B: ""})
    assert state == State(pending={B: ""}, accepted={A: "2024-01-01"})


def test_the_accepted_urls_kept_are_the_most_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexnow_state, "MAX_ACCEPTED", 3)
    state = State(accepted={"a": "1", "b": "1", "c": "1"})
    state.merge({"a": "2", "d": "1"})
    state.settle([("a", "2"), ("d", "1")], accepted=True)
    assert list(state.accepted.items()) == [("c", "1"), ("a", "2"), ("d", "1")]


def test_a_url_changed_since_it_was_sent_stays_pending_with_its_new_state() -> None:
    state = State(pending={A: "2024-01-02", B: ""})
    # What was sent: A's earlier state, then B; another build changed A since.
    state.settle([(A, "2024-01-01"), (B, "")], accepted=True)
    assert state == State(pending={A: "2024-01-02"}, accepted={A: "2024-01-01", B: ""})
    state.settle([(A, "2024-01-01")], accepted=False)
    assert state.pending == {A: "2024-01-02"}


def test_past_the_cap_the_removed_go_first_then_the_oldest_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(indexnow_state, "MAX_PENDING", 3)
    state = State(pending={"old": "1", "gone": REMOVED, "mid": "1"}, rounds={"gone": 2})
    state.merge({"new": "1"})
    assert state.bound() == (1, 0)
    assert state == State(pending={"old": "1", "mid": "1", "new": "1"})
    state.merge({"newer": "1", "gone too": REMOVED, "newest": "1"})
    assert state.bound() == (1, 2)
    assert list(state.pending) == ["new", "newer", "newest"]


def test_a_removed_url_is_counted_once_per_notification_and_dropped_after_three() -> None:
    state = State(pending={A: REMOVED, B: "2024-01-01"})
    assert [state.age() for _ in range(3)] == [[], [], []]
    assert state.rounds == {A: 3}
    # A new change of the URL starts its count again; the same one does not.
    state.merge({A: REMOVED})
    assert state.age() == [A]
    assert state == State(pending={B: "2024-01-01"})
    state.merge({A: REMOVED})
    state.age()
    state.merge({A: "2024-02-01"})
    assert state == State(pending={B: "2024-01-01", A: "2024-02-01"})


def test_a_record_too_large_sheds_the_oldest_accepted(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    accepted = {f"https://www.example.com/{n:04d}/": "2024-01-01" for n in range(100)}
    state = State(pending={A: ""}, accepted=accepted)
    most = len(state.dump()) - 100
    monkeypatch.setattr(indexnow_state, "MAX_RECORD_BYTES", most)
    content = state.dump()
    assert len(content) <= most
    kept = json.loads(content)["accepted"]
    assert list(kept) == list(accepted)[len(accepted) - len(kept) :]
    assert json.loads(content)["pending"] == {A: ""}
    # With nothing accepted left to shed, the pending URLs go as past the cap.
    most = len(State(pending={B: ""}).dump())
    monkeypatch.setattr(indexnow_state, "MAX_RECORD_BYTES", most)
    state = State(pending={A: REMOVED, B: ""})
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert json.loads(state.dump()) == {"format": 1, "pending": {B: ""}, "accepted": {}}
    assert caplog.messages == [
        f"IndexNow: pending URLs dropped, as the record would be more than {most} bytes: "
        "1 removed, 0 changed."
    ]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (
            b'{"format": 1, "pending": {}, "accepted": {"a": 1}}',
            "pending or accepted is not an object of strings",
        ),
        (
            b'{"format": 1, "pending": {}, "accepted": {}, "rounds": {"a": true}}',
            "rounds is not an object of whole numbers",
        ),
        (
            b'{"format": 1, "pending": {}, "accepted": {}, "rounds": {"a": -1}}',
            "rounds is not an object of whole numbers",
        ),
        (b"[]", "'list' object has no attribute 'get'"),
        (b"{}" + b" " * 1_000, "it is more than 1,000 bytes"),
    ],
)
def test_a_record_not_of_this_app_starts_anew(
    content: bytes, why: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(indexnow_state, "MAX_RECORD_BYTES", 1_000)
    record = Kept(content)
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert State.load(record) == State()
    assert caplog.messages == [
        f"The IndexNow record <kept> cannot be read ({why}); it starts anew."
    ]


class Kept:
    """A record of a project's own: bytes in memory, no lock."""

    def __init__(self, content: bytes) -> None:
        self.content = content

    def __repr__(self) -> str:
        return "<kept>"

    def read(self) -> bytes:
        return self.content

    def write(self, content: bytes) -> None:
        self.content = content
