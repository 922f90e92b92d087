"""A reason: its code, its line for people, and a detail that is safe to print."""

from __future__ import annotations

from django_sitemapkit.verification.reasons import KINDS, NOINDEX, Reason, printable, reason


def test_a_reason_carries_the_line_of_its_kind() -> None:
    assert reason(NOINDEX, "X-Robots-Tag: noindex") == Reason(
        "noindex", "marked noindex", "X-Robots-Tag: noindex"
    )
    assert list(KINDS)[:3] == ["not-found", "gone", "unauthorized"]


def test_control_characters_are_written_as_escapes() -> None:
    # A page's meta content may hold &#27; (ESC): a terminal would obey it.
    assert printable("noindex\x1b[2J\r\n\x00 done") == "noindex\\x1b[2J\\r\\n\\x00 done"
    assert reason(NOINDEX, "a\tb").detail == "a\\tb"
    assert printable("caf\u00e9 \u00a0ok") == "caf\u00e9 \\xa0ok"
