"""The robots.txt cases (the group ``robots``, bench/robots_specs.py): page 1 of the
``--rows`` table with ``SITEMAPKIT_ROBOTS = "exclude"``, each URL judged against a
robots.txt of 40,000 rules, in turns with the same page without robots.txt.

The rules are as short as lines can be, so that 40,000 fit in the 500 KiB a
robots.txt is read to: plain (``Allow: /ab1``, ``Disallow: /ab2``) and wildcard
(``Allow: /*ab3``, ``Disallow: /*ab4$``), many of them matching each location
(``/bench/page-0000001/`` holds ``ben``, ``age``...), none disallowing one: the
page lists the same 50,000 URLs, in the same bytes, as without robots.txt.
"""

from __future__ import annotations

import itertools
import string
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.test import override_settings

from bench.measuring import Case
from bench.serving_cases import OursServe
from bench.sizes import Plan

#: The rules of each kind, in the order the file writes them.
KINDS = (
    (14_000, "Allow:/{}"),
    (8_000, "Disallow:/{}"),
    (12_000, "Allow:/*{}"),
    (6_000, "Disallow:/*{}$"),
)
#: The token a plain Disallow would block every location with.
BLOCKING = "ben"


def tokens() -> Iterator[str]:
    """Three letters or digits: 46,656 of them."""
    alphabet = string.ascii_lowercase + string.digits
    return ("".join(chars) for chars in itertools.product(alphabet, repeat=3))


def robots_lines() -> list[str]:
    """The group's lines: each kind's rules, the plain ones of distinct tokens, and the
    wildcard ones of the same tokens again."""
    lines = ["User-agent: *"]
    plain, wildcard = tokens(), tokens()
    for count, line in KINDS:
        pool = wildcard if "*" in line else plain
        kept = (token for token in pool if not (line == "Disallow:/{}" and token == BLOCKING))
        lines += [line.format(token) for token in itertools.islice(kept, count)]
    return lines


def robots_txt() -> bytes:
    return ("\n".join(robots_lines()) + "\n").encode()


class RobotsServe(OursServe):
    """``ours`` with the robots.txt above read from a file under ``"exclude"``."""

    def setup(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="sitemapkit-bench-robots-")
        path = Path(self.directory.name) / "robots.txt"
        path.write_bytes(robots_txt())
        self.settings = override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_ROBOTS_FILE=path)
        self.settings.enable()
        super().setup()

    def teardown(self) -> None:
        self.settings.disable()
        self.directory.cleanup()


# -- the makers, named by bench/robots_specs.py ----------------------------------------


def robots_page(plan: Plan) -> Case:
    return RobotsServe(1, plan.serve_size)
