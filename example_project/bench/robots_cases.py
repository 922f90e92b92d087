"""The robots.txt cases (the group ``robots``, bench/robots_specs.py): page 1 of the
``--rows`` table with ``SITEMAPKIT_ROBOTS = "exclude"``, each URL judged against a
robots.txt of 40,000 rules, in turns with the same page without robots.txt, and
with a robots.txt of two rules.

40,000 rules fit in the 500 KiB a robots.txt is read to only if a line averages
13 bytes. ``SITE`` is a site's: editors' ``Disallow: /bench/page-0049901/`` for
1,000 pages (the last 100 of page 1, so that its 49,900 other URLs are written:
0.2 % fewer bytes than without robots.txt), 42 wildcard rules (``/*?utm_source=``,
``/*.pdf$``, ``/*/print/``) and 38,958 short ones on other prefixes (``Disallow:
/a1c``, ``Allow: /zz9``). ``MANY`` is adversarial: rules as short as lines can be,
plain (``Allow: /ab1``, ``Disallow: /ab2``), wildcard (``Allow: /ab*c``,
``Disallow: /ab*c$``) and a few after ``/`` (``Disallow: /*?ab=``), many of them
matching each location (``/bench/page-0000001/`` starts with ``/ben``, ``/be``),
none disallowing one: the page lists the same 50,000 URLs, in the same bytes.
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


#: Query parameters and endings sites keep crawlers from.
PARAMETERS = ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "gclid")
PARAMETERS += ("fbclid", "sessionid", "sort", "order", "replytocom", "share", "print", "ref")
WILDCARDS = (
    *(f"Disallow: /*{mark}{name}=" for name in PARAMETERS for mark in "?&"),
    *(f"Disallow: /*.{ending}$" for ending in ("pdf", "doc", "xls", "zip", "json", "xml")),
    *("Disallow: /*/print/", "Disallow: /*/feed/", "Disallow: /*/amp$", "Allow: /*.css$"),
    *("Allow: /*.js$", "Allow: /*.png$", "Allow: /*.jpg$", "Disallow: /*/embed$"),
)


def site_txt() -> bytes:
    """``SITE``: 40,000 rules of a site's robots.txt (see the module's docstring)."""
    pages = [f"Disallow:/bench/page-{number:07d}/" for number in range(49_901, 50_901)]
    others = (token for token in tokens(3) if not token.startswith("b"))
    plain = [f"Disallow:/{token}" for token in itertools.islice(others, 17_000)]
    plain += [f"Allow:/{token}" for token in itertools.islice(others, 21_958)]
    lines = ["User-agent: *", *pages, *WILDCARDS, *plain]
    return ("\n".join(lines) + "\n").encode()


class RobotsServe(OursServe):
    """``ours`` with a robots.txt read from a file under ``"exclude"``."""

    def __init__(self, page_size: int, text: bytes) -> None:
        super().__init__(1, page_size)
        self.text = text

    def setup(self) -> None:
        self.directory = tempfile.TemporaryDirectory(prefix="sitemapkit-bench-robots-")
        path = Path(self.directory.name) / "robots.txt"
        path.write_bytes(self.text)
        self.settings = override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_ROBOTS_FILE=path)
        self.settings.enable()
        super().setup()

    def teardown(self) -> None:
        self.settings.disable()
        self.directory.cleanup()


# -- the makers, named by bench/robots_specs.py ----------------------------------------


def robots_page(plan: Plan, many: bool) -> Case:
    return RobotsServe(plan.serve_size, robots_txt(MANY if many else FEW))


def site_page(plan: Plan) -> Case:
    return RobotsServe(plan.serve_size, site_txt())
