"""What a verification found: per site and section, the URLs listed and requested,
and each problem (one reason of one URL), counted by reason with the first few of
each kept for the summary; and that summary, as people read it.

Memory is bounded by the sections and the kinds of reason, never by the URLs:
a problem past ``max_shown`` of its kind is counted, not kept. Machines read
the same problems, every one of them, from ``--json`` (``json_report.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django_sitemapkit.verification.reasons import KINDS, Reason, printable


@dataclass
class SectionTally:
    """One section of one site: what was listed, requested, and found."""

    site: str
    section: str
    listed: int = 0
    requested: int = 0
    seconds: float = 0.0
    #: The e-mail messages its views sent (held, never delivered).
    mails: int = 0
    #: Whether this is the tally of the site's sitemap documents, not of a section.
    documents: bool = False
    #: The problems of each kind, and the first few of each (URL and detail).
    found: Counter[str] = field(default_factory=Counter)
    shown: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @property
    def problems(self) -> int:
        return sum(self.found.values())


class Tallies:
    """Every section's tally, in the order verified."""

    def __init__(self, max_shown: int, several_sites: bool) -> None:
        self.max_shown = max_shown
        self.several_sites = several_sites
        self.sections: dict[tuple[str, str], SectionTally] = {}

    def section(self, site: str, section: str, documents: bool = False) -> SectionTally:
        key = (site, section)
        if key not in self.sections:
            self.sections[key] = SectionTally(site, section, documents=documents)
        return self.sections[key]

    def add(self, site: str, section: str, url: str, found: Reason) -> None:
        tally = self.section(site, section)
        tally.found[found.code] += 1
        shown = tally.shown.setdefault(found.code, [])
        if len(shown) < self.max_shown:
            # A URL of a built file is what the file says: printed as a detail is.
            shown.append((printable(url), found.detail))

    @property
    def problems(self) -> int:
        return sum(tally.problems for tally in self.sections.values())

    @property
    def requested(self) -> int:
        """The listed URLs requested (the documents are not among them)."""
        return sum(tally.requested for tally in self.sections.values() if not tally.documents)

    @property
    def listed(self) -> int:
        return sum(tally.listed for tally in self.sections.values() if not tally.documents)

    @property
    def mails(self) -> int:
        return sum(tally.mails for tally in self.sections.values())

    def summary(self) -> list[str]:
        """The closing lines: each section's problems by reason, with their first URLs."""
        lines = []
        for tally in self.sections.values():
            where = f"{tally.site}: {tally.section}" if self.several_sites else tally.section
            for code in KINDS:
                count = tally.found[code]
                if not count:
                    continue
                lines.append(f"{where}, {KINDS[code]}: {count:,} URL{plural(count)}")
                shown = tally.shown[code]
                lines += [f"  {url}  {detail}" for url, detail in shown]
                if count > len(shown):
                    lines.append(f"  ... and {count - len(shown):,} more")
        return lines


def plural(count: int) -> str:
    return "" if count == 1 else "s"
