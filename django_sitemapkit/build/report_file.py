"""``build_sitemaps --report FILE``: what a run changed, as JSON (the schema, whose
``version`` is ``VERSION``, is in docs/build.md).

It is written as the run goes, a site at a time as each site's build ends and
a URL at a time from the changes the build found (``changes.py``), to a
temporary file beside ``FILE``: the report's text is never held, and a change
of a million URLs costs no more memory than the build holds of them already.
The file is renamed to ``FILE`` when the run ends (one ``rename()``, atomic
under POSIX: a reader sees the last report whole or this one whole), after
every site's publish or refusal; a run interrupted removes it.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from django_sitemapkit.build.changes import KINDS, SectionChanges
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.guard import RemovalRefused
from django_sitemapkit.build.replacing import ReplacingFile
from django_sitemapkit.build.report import BuildResult
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow.compare import Change
from django_sitemapkit.sites.configured import SitemapSite

logger = logging.getLogger("django_sitemapkit")
#: The schema's version: raised when a key changes meaning or goes (one added
#: does not raise it).
VERSION = 1
# Every value is ASCII: a URL is percent-encoded, a name or a date is ASCII.
text = json.JSONEncoder().encode


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Report:
    """A run's report, where there is none (no ``--report``): it takes nothing down."""

    def add(
        self,
        site: SitemapSite,
        destination: Destination,
        started: dt.datetime,
        result: BuildResult | None = None,
        error: Exception | None = None,
    ) -> None:
        """A site's part: what its build did (``result``), or how it failed (``error``);
        neither for a site this run left alone."""

    def close(self) -> str | None:
        """Put the report in place, whole; where, unless it was discarded."""
        return None

    def discard(self) -> None:
        """Forget the report: the run was interrupted."""


def report_to(path: str | None) -> Report:
    return Report() if path is None else ReportFile(path)


class ReportFile(Report):
    """The report of one run, open for writing until ``close()`` puts it in place."""

    def __init__(self, path: str) -> None:
        if os.path.isdir(path):
            raise BuildError(f"Cannot write the report to {path}: it is a directory.")
        try:
            self.file = ReplacingFile(path, "ascii")
        except OSError as exc:
            raise BuildError(
                f"Cannot write the report to {path}: {exc.strerror or exc}; give --report a "
                "file in a directory that exists and can be written to."
            ) from exc
        self.path = self.file.path
        self.out: IO[str] = self.file.out
        self.started = now()
        self.sites = 0
        self.published = False
        #: The first write that failed (a full disk): the report is then given up.
        self.failure: OSError | None = None
        self.out.write(f'{{"version": {VERSION}, "started": {text(self.started.isoformat())}, ')
        self.out.write('"sites": {')

    def add(
        self,
        site: SitemapSite,
        destination: Destination,
        started: dt.datetime,
        result: BuildResult | None = None,
        error: Exception | None = None,
    ) -> None:
        if self.failure is None:
            try:
                self.write_site(site, destination, started, result, error)
            except OSError as exc:
                self.failure = exc

    def write_site(
        self,
        site: SitemapSite,
        destination: Destination,
        started: dt.datetime,
        result: BuildResult | None,
        error: Exception | None,
    ) -> None:
        changes = error.changes if isinstance(error, RemovalRefused) else None
        if result is not None:
            changes = result.changes
        published = result is not None and result.published
        self.published = self.published or published
        finished = now()
        fields: dict[str, Any] = {
            "base_url": site.base_url,
            "destination": destination.label,
            "outcome": outcome(result, error),
            "published": published,
            "error": None if error is None else str(error),
            "started": started.isoformat(),
            "finished": finished.isoformat(),
            "seconds": round((finished - started).total_seconds(), 3),
            "previous": None if changes is None else changes.previous,
            "compared": changes is not None and changes.compared,
            "counts": None if changes is None else changes.counts(),
            "files": None if result is None else files(result),
        }
        self.out.write(f"{', ' if self.sites else ''}{text(site.name)}: {{")
        self.out.write(", ".join(f"{text(key)}: {text(value)}" for key, value in fields.items()))
        self.out.write(', "sections": {')
        if changes is not None:
            seconds = {built.section: built.seconds for built in result.sections} if result else {}
            for number, (name, section) in enumerate(changes.sections.items()):
                self.out.write(f"{', ' if number else ''}{text(name)}: ")
                self.write_section(section, changes.compared, seconds.get(name))
        self.out.write("}}")
        self.sites += 1

    def write_section(self, section: SectionChanges, compared: bool, seconds: float | None) -> None:
        counts = section.counts(compared)
        self.out.write(f'{{"counts": {text(counts)}, "seconds": {text(rounded(seconds))}')
        for kind in KINDS:
            self.out.write(f", {text(kind)}: [")
            self.out.writelines(items(getattr(section, kind)))
            self.out.write("]")
        self.out.write("}")

    def close(self) -> str | None:
        if self.out.closed:  # discarded
            return None
        finished = now()
        seconds = round((finished - self.started).total_seconds(), 3)
        try:
            if self.failure is not None:
                raise self.failure
            self.out.write(f'}}, "finished": {text(finished.isoformat())}, "seconds": {seconds}, ')
            self.out.write(f'"published": {text(self.published)}}}\n')
            self.file.replace()
        except OSError as exc:
            self.discard()
            raise BuildError(
                f"Cannot write the report to {self.path}: {exc.strerror or exc}. What each "
                "site's build did is as the output above says."
            ) from exc
        return self.path

    def discard(self) -> None:
        self.file.discard()


@contextmanager
def reported(report: Report, written: Callable[[str], None]) -> Iterator[Report]:
    """``report`` put in place when the block ends, however it ends (and ``written`` told
    its path), unless it was discarded: the run was interrupted. A report that cannot
    be written fails the run, if nothing else did (else it is logged)."""
    try:
        yield report
    except KeyboardInterrupt:
        report.discard()
        raise
    except BaseException:
        try:
            finish(report, written)
        except BuildError as exc:
            logger.error("%s", exc)
        raise
    finish(report, written)


def finish(report: Report, written: Callable[[str], None]) -> None:
    path = report.close()
    if path is not None:
        written(path)


def outcome(result: BuildResult | None, error: Exception | None) -> str:
    if isinstance(error, RemovalRefused):
        return "refused"
    if error is not None:
        return "failed"
    return "published" if result is not None and result.published else "unchanged"


def items(changes: Iterable[Change]) -> Iterator[str]:
    """Each change as a JSON object on a line of its own, a comma after all but the last."""
    separator = "\n"
    for change in changes:
        yield f'{separator}{{"url": {text(change.url)}, "lastmod": {text(change.lastmod)}}}'
        separator = ",\n"


def files(result: BuildResult) -> dict[str, list[str]]:
    found = {"written": result.replaced, "kept": result.unchanged, "removed": result.removed}
    return {what: sorted(names) for what, names in found.items()}


def rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)
