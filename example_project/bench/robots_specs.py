"""The entries of the group ``robots`` in bench/table.py's table: page 1 of the
``--rows`` table without robots.txt and with ``SITEMAPKIT_ROBOTS = "exclude"`` over
40,000 rules (bench/robots_cases.py), in turns (bench/turns.py), the same bytes
required of both."""

from __future__ import annotations

from bench.specs import TURNS, CaseSpec, serving_page

#: The group ``--cases robots``.
ROBOTS_GROUP = "robots"


def robots_cases() -> tuple[CaseSpec, ...]:
    """The page without robots.txt first: the report divides by it."""
    turns = {"run": TURNS, "groups": (ROBOTS_GROUP,), "serves_page": True}
    return (
        CaseSpec(
            "robots-none",
            "ours, without robots.txt, in turns with robots-rules",
            "bench.serving_cases:ours",
            serving_page,
            **turns,
        ),
        CaseSpec(
            "robots-rules",
            'the same page under SITEMAPKIT_ROBOTS = "exclude", a robots.txt of 40,000 rules',
            "bench.robots_cases:robots_page",
            serving_page,
            **turns,
        ),
    )
