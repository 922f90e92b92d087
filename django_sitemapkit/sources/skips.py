"""Rows that make no entry, counted (for the build's summary) and logged; and rows
listed without an optional value (a ``lastmod`` later than now, ``values.Horizon``;
one that is invalid, ``optional.LeftOut``), logged alike.

A page logs the first row each reason costs in full, and at its end one line
for the others. A sitemap mounted under a prefix, every location outside its
directory, would otherwise log a warning per row on every request. Each of
the others is still logged at DEBUG, for whoever needs the list.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.policy import ForeignLocation
from django_sitemapkit.sources.optional import LeftOut

logger = logging.getLogger("django_sitemapkit")

# What differs between two rows skipped for one reason: the values the reason
# quotes (a location, a slug; from the first quote to the last, as a
# NoReverseMatch nests its quotes) and its numbers (a size, a date's parts).
# An address (a bound method's repr: "at 0x7f...") is one of those numbers.
VALUES = re.compile(r"""['"].*['"]|0x[0-9a-fA-F]+|\d+(?:[.,]\d+)*""", re.DOTALL)


def reason_kind(reason: str) -> str:
    """``reason`` without its values: equal for the rows skipped for one reason."""
    return VALUES.sub("...", reason)


#: How a page's summary line opens for a row skipped, and for a date left out.
SKIPPED, UNDATED = "Skipped", "Left out the lastmod of"


@dataclass
class FirstSkip:
    """The first row a page skipped for one reason, and how many it skipped for it."""

    key: str
    count: int = 1
    done: str = SKIPPED


@dataclass
class Tally:
    """Rows read for a document, rows that gave no entry, and the current page's
    skips by source and reason (summed up in the log by ``end_page()``)."""

    rows: int = 0
    skipped: int = 0
    reasons: dict[tuple[str, str], FirstSkip] = field(default_factory=dict)
    #: Of ``skipped``, the rows left out by choice (a ``canonical`` elsewhere,
    #: robots.txt under ``"exclude"``), which are no loss.
    excluded: int = 0
    #: The origins of the locations the single-host rule refused, with their counts.
    foreign: Counter[str] = field(default_factory=Counter)
    #: Counting only, logging nothing: rows read again to judge them (``losses.py``).
    quiet: bool = False
    #: The first row skipped for a reason other than a choice, as its log line says it.
    first_loss: str | None = None

    def end_page(self, page: int) -> None:
        """Log how many more rows each reason cost on ``page`` after the first (logged
        in full); the next page logs its own first ones."""
        for (section, _), first in self.reasons.items():
            if first.count > 1:
                more = first.count - 1
                logger.warning(
                    "%s %s more %s of source %r on page %s for the same reason as %s (%s in all).",
                    first.done,
                    f"{more:,}",
                    "row" if more == 1 else "rows",
                    section,
                    page,
                    first.key,
                    f"{first.count:,}",
                )
        self.reasons.clear()


class Excluded(InvalidEntry):
    """A row its source's declaration keeps out (a ``canonical`` URL elsewhere): skipped
    and logged like an invalid one, but never raised in strict mode, as nothing is
    wrong with it."""


def keep_made(section: str, key: str, exc: LeftOut, tally: Tally | None, strict: bool) -> Any:
    """Log each value ``exc`` left out of row ``key`` as ``skip_row()`` logs a skipped
    row (raise in strict mode), and return what the row made without them."""
    for name, reason in exc.reasons:
        # "priority 1.5 is outside ...": the value's name is said once, before the key.
        tell(
            section, key, reason.removeprefix(f"{name} "), tally, strict, f"Left out the {name} of"
        )
    return exc.made


def skip_entry(
    section: str, key: str, exc: InvalidEntry, tally: Tally | None, strict: bool
) -> None:
    """``skip_row()`` for the error a row's entry raised."""
    excluded = isinstance(exc, Excluded)
    if tally is not None and isinstance(exc, ForeignLocation):
        tally.foreign[exc.origin] += 1
    skip_row(section, key, str(exc), tally, strict and not excluded, excluded=excluded)


def skip_row(
    section: str,
    key: str,
    reason: str,
    tally: Tally | None,
    strict: bool,
    *,
    excluded: bool = False,
) -> None:
    """Count a row that makes no entry (``excluded``: by choice), and log it: at
    WARNING if it is the first its reason costs on this page, else at DEBUG (raise
    in strict mode). Without a tally, every row is logged at WARNING."""
    if tally is not None and not strict:
        tally.skipped += 1
        tally.excluded += excluded
        if not excluded and tally.first_loss is None:
            tally.first_loss = f"{SKIPPED} {key} of source {section!r}: {reason}."
    tell(section, key, reason, tally, strict, SKIPPED)


def undate_row(section: str, key: str, lastmod: str, tally: Tally | None, strict: bool) -> None:
    """Log a row listed without its ``lastmod``, as ``skip_row()`` logs a skipped one."""
    reason = (
        f"{lastmod} is later than now, and search engines refuse a date in the future (a "
        "clock running ahead, or a naive datetime saved in another time zone than TIME_ZONE?)"
    )
    tell(section, key, reason, tally, strict, UNDATED)


def tell(section: str, key: str, reason: str, tally: Tally | None, strict: bool, done: str) -> None:
    message = f"{done} {key} of source {section!r}: {reason}."
    if strict:
        raise InvalidEntry(message)
    if tally is None:
        logger.warning(message)
        return
    if tally.quiet:
        return
    kind = (section, done + reason_kind(reason))
    first = tally.reasons.get(kind)
    if first is None:
        tally.reasons[kind] = FirstSkip(key, done=done)
        logger.warning(message)
    else:
        first.count += 1
        logger.debug(message)
