"""The entries of the group ``robots`` in bench/table.py's table: page 1 of the
``--rows`` table under ``SITEMAPKIT_ROBOTS = "exclude"`` with a robots.txt of
40,000 rules (bench/robots_cases.py), in turns (bench/turns.py) with the page
without robots.txt: a site's rules (``site-robots``, which leave 100 URLs out) and
adversarial ones (``robots-many``); and with the page under a robots.txt of two
rules: what the setting costs, and what the number of rules does. Every case but
``site-robots`` lists the same bytes."""

from __future__ import annotations

from bench.sizes import Plan
from bench.specs import TURNS, CaseSpec, Prepared, serving_page

#: The group ``--cases robots``.
ROBOTS_GROUP = "robots"
MAKER = "bench.robots_cases:robots_page"
MANY = 'the same page under SITEMAPKIT_ROBOTS = "exclude", a robots.txt of 40,000 rules'
SITE = (
    'the same page under SITEMAPKIT_ROBOTS = "exclude", a site\'s robots.txt of 40,000 rules '
    "(1,000 pages hidden, 100 of them on this page; wildcards; other prefixes)"
)


#: The URLs of page 1 that site-robots's robots.txt hides (bench/robots_cases.py).
HIDDEN = 100


def site_page(plan: Plan, prepared: Prepared) -> int:
    """The URLs site-robots lists."""
    return serving_page(plan, prepared) - HIDDEN


def robots_cases() -> tuple[CaseSpec, ...]:
    """Each pair's first case is the one the report divides by."""
    turns = {"run": TURNS, "groups": (ROBOTS_GROUP,), "serves_page": True}
    return (
        CaseSpec(
            "robots-none",
            "ours, without robots.txt, in turns with robots-many",
            "bench.serving_cases:ours",
            serving_page,
            **turns,
        ),
        CaseSpec("robots-many", MANY, MAKER, serving_page, args=(True,), **turns),
        CaseSpec(
            "rules-few",
            'ours under SITEMAPKIT_ROBOTS = "exclude", a robots.txt of 2 rules, in turns with '
            "rules-many",
            MAKER,
            serving_page,
            args=(False,),
            **turns,
        ),
        CaseSpec("rules-many", MANY, MAKER, serving_page, args=(True,), **turns),
        CaseSpec(
            "site-none",
            "ours, without robots.txt, in turns with site-robots",
            "bench.serving_cases:ours",
            serving_page,
            **turns,
        ),
        # 100 fewer URLs than site-none (0.2 % of its bytes) to write, each skipped and
        # logged: neither its bytes nor its locations are those of the page.
        CaseSpec(
            "site-robots",
            SITE,
            "bench.robots_cases:site_page",
            site_page,
            **{**turns, "serves_page": False, "same_bytes": False},
        ),
    )
