"""The robots.txt cases (the group ``robots``, bench/robots_specs.py): page 1 of the
``--rows`` table with ``SITEMAPKIT_ROBOTS = "exclude"``, each URL judged against a
robots.txt of 40,000 rules, in turns with the same page without robots.txt, and
with a robots.txt of two rules.

The rules are as short as lines can be, so that 40,000 fit in the 500 KiB a
robots.txt is read to: plain (``Allow: /ab1``, ``Disallow: /ab2``), wildcard
(``Allow: /ab*c``, ``Disallow: /ab*c$``) and a few after ``/`` (``Disallow:
/*?ab=``), many of them matching each location (``/bench/page-0000001/``
starts with ``/ben``, ``/be``), none disallowing one: every case lists the same
50,000 URLs, in the same bytes.
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

#: Each kind of rule: how many, the line (``{}`` a token, the second one a letter),
#: and the length of the tokens.
Kinds = tuple[tuple[int, str, int], ...]
MANY: Kinds = (
    (16_000, "Allow:/{}", 3),
    (7_980, "Disallow:/{}", 3),
    (10_000, "Allow:/{}*{}", 2),
    (6_000, "Disallow:/{}*{}$", 2),
    (20, "Disallow:/*?{}=", 3),
)
FEW: Kinds = ((1, "Disallow:/admin/{}", 3), (1, "Disallow:/*?{}=", 3))
#: The token a plain Disallow would block every location with.
BLOCKING = "ben"
LETTERS = "abcdefgh"


def tokens(length: int) -> Iterator[str]:
    """``length`` letters or digits, in order."""
    alphabet = string.ascii_lowercase + string.digits
    return ("".join(chars) for chars in itertools.product(alphabet, repeat=length))


def rules_of(line: str, length: int) -> Iterator[str]:
    """The rules of one kind: ``line`` with each token in turn (never, in a plain
    Disallow, the one that blocks), a wildcard one with each of ``LETTERS`` after it."""
    for token in tokens(length):
        if line == "Disallow:/{}" and token == BLOCKING:
            continue
        if line.count("{}") == 2:
            yield from (line.format(token, letter) for letter in LETTERS)
        else:
            yield line.format(token)


def robots_txt(kinds: Kinds) -> bytes:
    lines = ["User-agent: *"]
    for count, line, length in kinds:
        lines += itertools.islice(rules_of(line, length), count)
    return ("\n".join(lines) + "\n").encode()


class RobotsServe(OursServe):
    """``ours`` with a robots.txt read from a file under ``"exclude"``."""

    def __init__(self, page_size: int, kinds: Kinds) -> None:
        super().__init__(1, page_size)
        self.kinds = kinds

    def setup(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="sitemapkit-bench-robots-")
        path = Path(self.directory.name) / "robots.txt"
        path.write_bytes(robots_txt(self.kinds))
        self.settings = override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_ROBOTS_FILE=path)
        self.settings.enable()
        super().setup()

    def teardown(self) -> None:
        self.settings.disable()
        self.directory.cleanup()


# -- the makers, named by bench/robots_specs.py ----------------------------------------


def robots_page(plan: Plan, many: bool) -> Case:
    return RobotsServe(plan.serve_size, MANY if many else FEW)
