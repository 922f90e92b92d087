"""``--json FILE``: every problem, written as it is found, for machines.

One JSON document (its schema, version ``FORMAT``, is in ``docs/verify.md``),
written to a temporary file beside ``FILE`` and moved onto it when complete
(``os.replace()``, atomic on POSIX): a reader never sees half a report, and a
run that fails leaves the last complete one. The problems are written one
per line as they are found, so a run over a million URLs holds none of them.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from django_sitemapkit.verification.reasons import KINDS, Reason
from django_sitemapkit.verification.report import Tallies

#: The version of the schema; a change a reader could trip on makes it 2.
FORMAT = 1


class JsonReport:
    """The report being written to ``path``."""

    def __init__(self, path: str, source: str, sample: int | None) -> None:
        self.path = os.path.abspath(path)
        descriptor, self.partial = tempfile.mkstemp(
            prefix=".verify-", suffix=".json", dir=os.path.dirname(self.path)
        )
        self.file = os.fdopen(descriptor, "w", encoding="utf-8")
        self.first = True
        opening = {"format": FORMAT, "source": source, "sample": sample}
        self.file.write(dumped(opening)[:-1] + ',\n"problems": [')

    def add(self, site: str, section: str, url: str, found: Reason) -> None:
        row = {
            "site": site,
            "section": section,
            "url": url,
            "reason": found.code,
            "detail": found.detail,
        }
        self.file.write(("\n" if self.first else ",\n") + dumped(row))
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
        ]
        closing = {
            "sections": sections,
            "reasons": KINDS,
            "unchecked_alternates": unchecked,
            "requested": tallies.requested,
            "problems_found": tallies.problems,
        }
        self.file.write("\n],\n" + dumped(closing)[1:] + "\n")
        self.file.close()
        os.replace(self.partial, self.path)

    def abandon(self) -> None:
        """Remove the unfinished file; ``path`` keeps what it held."""
        self.file.close()
        os.unlink(self.partial)


def dumped(value: dict[str, Any]) -> str:
    # ensure_ascii=False: URLs and details as written; json.dumps escapes what
    # JSON must (RFC 8259 section 7), the file is UTF-8.
    return json.dumps(value, ensure_ascii=False)
