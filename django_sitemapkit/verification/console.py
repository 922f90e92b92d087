"""What ``verify_sitemaps`` prints: a line per section (a progress bar before it on a
terminal), the dry run's counts, the problems by section and reason, the closing
line; with several sites, a header before each site's part."""

from __future__ import annotations

import time

from django.core.management.base import OutputWrapper

from django_sitemapkit.build.console import REDRAW_EVERY, Output, progress_line
from django_sitemapkit.verification.report import SectionTally, Tallies, plural


class VerifyConsole(Output):
    """``verify_sitemaps``' output at its verbosity."""

    def __init__(self, stdout: OutputWrapper, verbosity: int) -> None:
        super().__init__(stdout, verbosity)
        self.terminal = verbosity >= 1 and stdout.isatty()
        self.drawn = 0.0
        self.bar = False

    def progress(self, tally: SectionTally, total: int, started: float) -> None:
        """Redraw the section's bar on a terminal, at most every ``REDRAW_EVERY`` s."""
        now = time.monotonic()
        if not self.terminal or now - self.drawn < REDRAW_EVERY:
            return
        self.drawn = now
        line = progress_line(tally.section, tally.requested, total, "URLs", now - started)
        self.stdout.write(line, ending="")
        self.stdout.flush()
        self.bar = True

    def section_done(self, tally: SectionTally) -> None:
        if self.bar:
            # Clear the bar before the section's line replaces it.
            self.stdout.write("\r\033[K", ending="")
            self.bar = False
        self.info(
            f"{tally.section}: {tally.requested:,} of {tally.listed:,} URLs requested, "
            f"{tally.problems:,} problem{plural(tally.problems)} ({tally.seconds:.2f} s)"
        )

    def documents_done(self, tally: SectionTally) -> None:
        pages = tally.requested - 1
        what = "the index" + (f" and {pages:,} page{plural(pages)}" if pages else "")
        self.info(
            f"{tally.section}: {what} requested, {tally.problems:,} "
            f"problem{plural(tally.problems)} ({tally.seconds:.2f} s)"
        )

    def no_index(self, section: str) -> None:
        self.info(
            f"{section}: not requested: no URL pattern is named 'sitemapkit:index' "
            '(include("django_sitemapkit.urls") serves it).'
        )

    def would_request(self, section: str, count: int, listed: int) -> None:
        self.info(f"{section}: would request {count:,} of {listed:,} URLs")

    def nothing_listed(self) -> None:
        self.info("None of the sections --section names is listed on this site: nothing to do.")

    def nothing_to_do(self) -> None:
        self.info("No sitemap section lists a URL: nothing to do.")

    def alternates_done(self, links: int, problems: int, unchecked: int) -> None:
        """The hreflang check's line, after every section's: it reads them all."""
        if not links:
            return
        outside = ""
        if unchecked:
            outside = (
                f"; {unchecked:,} point{'s' if unchecked == 1 else ''} to URLs outside those "
                "read (--sample, --section or --site), not checked"
            )
        self.info(
            f"hreflang: {links:,} alternate{plural(links)} checked, "
            f"{problems:,} problem{plural(problems)}{outside}."
        )

    def closing(self, tallies: Tallies, seconds: float) -> None:
        requested, problems = tallies.requested, tallies.problems
        if problems:
            self.info(f"Found {problems:,} problem{plural(problems)}:")
            for line in tallies.summary():
                self.info(line)
        elif requested:
            self.info("No problem found.")
        if not requested:
            self.info(
                f"No URL was requested of the {tallies.listed:,} listed: nothing was verified."
            )
        mails = tallies.mails
        if mails:
            self.info(
                f"The views sent {mails:,} e-mail message{plural(mails)}: held by Django's "
                "locmem backend, none was delivered."
            )
        per_url = f", {seconds / requested * 1000:.1f} ms a URL" if requested else ""
        self.info(f"{requested:,} URL{plural(requested)} requested in {seconds:.2f} s{per_url}.")
