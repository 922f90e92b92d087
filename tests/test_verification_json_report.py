"""``--json``: written as found, moved into place whole, or not at all."""

from __future__ import annotations

import json
from pathlib import Path

from django_sitemapkit.verification.json_report import JsonReport
from django_sitemapkit.verification.reasons import KINDS, NOINDEX, reason
from django_sitemapkit.verification.report import Tallies


def test_a_finished_report_replaces_the_last_one_whole(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text("the last report")
    report = JsonReport(str(path), "built", 5)
    tallies = Tallies(10, several_sites=False)
    tallies.section("default", "posts").listed = 9
    tallies.section("default", "posts").requested = 5
    found = reason(NOINDEX, "X-Robots-Tag: noindex")
    tallies.add("default", "posts", "https://a.example/caf\u00e9/", found)
    report.add("default", "posts", "https://a.example/caf\u00e9/", found)
    # Until it is finished, the last report is what a reader finds.
    assert path.read_text() == "the last report"
    report.finish(tallies, unchecked=2)
    text = path.read_text(encoding="utf-8")
    assert "caf\u00e9" in text
    assert json.loads(text) == {
        "format": 1,
        "source": "built",
        "sample": 5,
        "problems": [
            {
                "site": "default",
                "section": "posts",
                "url": "https://a.example/caf\u00e9/",
                "reason": "noindex",
                "detail": "X-Robots-Tag: noindex",
            }
        ],
        "sections": [
            {
                "site": "default",
                "section": "posts",
                "listed": 9,
                "requested": 5,
                "problems": {"noindex": 1},
            }
        ],
        "documents": [],
        "reasons": KINDS,
        "unchecked_alternates": 2,
        "requested": 5,
        "emails": 0,
        "problems_found": 1,
    }
    assert [child.name for child in tmp_path.iterdir()] == ["report.json"]


def test_an_abandoned_report_leaves_nothing(tmp_path: Path) -> None:
    report = JsonReport(str(tmp_path / "report.json"), "database", None)
    report.abandon()
    assert list(tmp_path.iterdir()) == []
