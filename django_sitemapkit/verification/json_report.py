"""``--json FILE``: every problem, written as it is found, for machines.

One JSON document (its schema, version ``FORMAT``, is in ``docs/verify.md``),
written beside ``FILE`` and put in its place whole when the run ends
(``build/replacing.py``, as ``build_sitemaps --report`` is): a reader never
sees half a report, and a run that fails leaves the last one. The problems are written one
per line as they are found, so a run over a million URLs holds none of them.
"""

from __future__ import annotations

import json
from typing import Any

from django_sitemapkit.build.replacing import ReplacingFile
from django_sitemapkit.verification.reasons import KINDS, Reason
from django_sitemapkit.verification.report import Tallies

#: The version of the schema; a change a reader could trip on makes it 2.
FORMAT = 1


class JsonReport:
    """The report being written to ``path``."""

    def __init__(self, path: str, source: str, sample: int | None) -> None:
        self.file = ReplacingFile(path, "utf-8")
        self.first = True
        opening = {"format": FORMAT, "source": source, "sample": sample}
        self.file.out.write(dumped(opening)[:-1] + ',\n"problems": [')

    def add(self, site: str, section: str, url: str, found: Reason) -> None:
        row = {
            "site": site,
            "section": section,
            "url": url,
            "reason": found.code,
            "detail": found.detail,
        }
        self.file.out.write(("\n" if self.first else ",\n") + dumped(row))
        self.first = False

    def finish(self, tallies: Tallies, unchecked: int) -> None:
        sections = [
            {
                "site": tally.site,
                "section": tally.section,
                "listed": tally.listed,
                "requested": tally.requested,
                "problems": {code: tally.found[code] for code in KINDS if tally.found[code]},
            }
            for tally in tallies.sections.values()
            if not tally.documents
        ]
        documents = [
            {
                "site": tally.site,
                "requested": tally.requested,
                "problems": {code: tally.found[code] for code in KINDS if tally.found[code]},
            }
            for tally in tallies.sections.values()
            if tally.documents
        ]
        closing = {
            "sections": sections,
            "documents": documents,
            "reasons": KINDS,
            "unchecked_alternates": unchecked,
            "requested": tallies.requested,
            "emails": tallies.mails,
            "problems_found": tallies.problems,
        }
        self.file.out.write("\n],\n" + dumped(closing)[1:] + "\n")
        self.file.replace()

    def abandon(self) -> None:
        """Remove the unfinished file; ``path`` keeps what it held."""
        self.file.discard()


def dumped(value: dict[str, Any]) -> str:
    # ensure_ascii=False: URLs and details as written; json.dumps escapes what
    # JSON must (RFC 8259 section 7), the file is UTF-8.
    return json.dumps(value, ensure_ascii=False)
