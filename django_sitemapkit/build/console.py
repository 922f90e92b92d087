"""What ``build_sitemaps`` prints: a line per section (or a progress bar on a terminal),
the closing table, the dry run's list of files, and, with several sites, a header
before each site's part."""

from __future__ import annotations

import time

from django.core.management.base import OutputWrapper
from django.core.management.color import Style

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.publish import planned_names, stale_names
from django_sitemapkit.build.report import BuildOptions, BuildResult, SectionBuild
from django_sitemapkit.build.selection import SiteBuild
from django_sitemapkit.conf import conf
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.plan import compile_plan

# Redraw a progress bar at most this often, in seconds.
REDRAW_EVERY = 0.1


class Console:
    """The command's output at its verbosity; ``several`` when the project has several
    sites, whose output each opens with a header naming the site."""

    def __init__(
        self, stdout: OutputWrapper, stderr: OutputWrapper, style: Style, verbosity: int
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.style = style
        self.verbosity = verbosity

    def info(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stdout.write(message)

    def site_header(self, site: SitemapSite) -> None:
        if site.several:
            self.info(f"Site {site.name!r} on {site.base_url}:")

    def progress_bar(self, site: SitemapSite) -> ProgressBar | None:
        return ProgressBar(self, site) if self.verbosity >= 1 and self.stdout.isatty() else None

    def section_done(self, section: SectionBuild) -> None:
        self.info(
            f"{section.section}: {section.urls:,} URLs in {len(section.files):,} "
            f"file{'s' if len(section.files) != 1 else ''} ({section.seconds:.2f} s)"
        )
        if self.verbosity >= 2:
            for built in section.files:
                self.stdout.write(f"  {built.name}: {built.urls:,} URLs, {built.size:,} bytes")

    def nothing_listed(self) -> None:
        self.info("None of the sections --section names is listed on this site: nothing to do.")

    def report(self, site: SitemapSite, destination: Destination, result: BuildResult) -> None:
        if result.index is None:
            self.info(
                "No sitemap section has any rows: nothing to write. The files in "
                f"{destination.label} are left as they are."
            )
            return
        if self.verbosity < 1:
            return
        self.stdout.write(summary_table(result))
        self.stdout.write(
            f"Published to {destination.label} (pages, .gz siblings and the index): "
            f"{len(result.replaced):,} written, "
            f"{len(result.unchanged):,} unchanged, {len(result.removed):,} removed."
        )
        for section in result.sections:
            note = views_note(section)
            if note:
                # With several sites, stderr has no header to say whose section it is.
                prefix = f"Site {site.name!r}: " if site.several else ""
                self.stderr.write(self.style.WARNING(prefix + note))

    def dry_run(self, destination: Destination, planned: SiteBuild, options: BuildOptions) -> None:
        plans = [compile_plan(source, planned.site) for source in planned.sources]
        names = {plan.section: planned_names(plan, options) for plan in plans}
        if not any(names.values()) and not planned.partial:
            self.info("No sitemap section has any rows: nothing would be written.")
            return
        self.info(f"Dry run: nothing is written. A build would write to {destination.label}:")
        for plan in plans:
            files = names[plan.section]
            self.info(f"  {plan.section}: {', '.join(files) if files else 'no files'}")
        index = [INDEX_FILENAME, INDEX_FILENAME + GZIP_SUFFIX] if options.gzip else [INDEX_FILENAME]
        self.info(f"  index: {', '.join(index)}")
        keep = [name for files in names.values() for name in files] + index
        stale = stale_names(destination, keep, set(names) if planned.partial else None)
        self.info(f"and remove: {', '.join(stale) if stale else 'nothing'}")
        self.info(
            "File numbers assume no page reaches SITEMAPKIT_MAX_BYTES "
            f"({conf.MAX_BYTES:,} bytes); a build cuts such a page in two."
        )


def summary_table(result: BuildResult) -> str:
    header = ("Section", "Rows", "URLs", "Files", "Bytes", "Gzip bytes", "Skipped rows", "Seconds")
    rows = [section_row(section) for section in result.sections]
    total = SectionBuild("Total")
    for section in result.sections:
        total.files += section.files
        total.rows += section.rows
        total.skipped += section.skipped
        total.seconds += section.seconds
    rows.append(section_row(total))
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        )
        for row in [header, *rows]
    ]
    assert result.index is not None
    lines.append(f"Index: {INDEX_FILENAME}, {result.index.urls:,} entries.")
    return "\n".join(lines)


def section_row(section: SectionBuild) -> tuple[str, ...]:
    gzip_size = section.gzip_size
    return (
        section.section,
        f"{section.rows:,}",
        f"{section.urls:,}",
        f"{len(section.files):,}",
        f"{section.size:,}",
        "-" if gzip_size is None else f"{gzip_size:,}",
        f"{section.skipped:,}",
        f"{section.seconds:.2f}",
    )


def views_note(section: SectionBuild) -> str | None:
    """Why this section's files are not page for page what the database views serve."""
    if section.matches_views:
        return None
    reasons = []
    if section.byte_cuts:
        cuts = section.byte_cuts
        files = f"file {cuts[0]}" if len(cuts) == 1 else f"files {', '.join(map(str, cuts))}"
        reasons.append(
            f"{files} ended at SITEMAPKIT_MAX_BYTES ({conf.MAX_BYTES:,} bytes), each going "
            "on in the next file"
        )
    if section.empty_pages:
        reasons.append(
            f"{section.empty_pages:,} page(s) of rows had no valid entry and got no file"
        )
    return (
        f"Section {section.section!r}: {'; '.join(reasons)}, so its file numbers differ from "
        'the pages the database views serve. Serve these files (SITEMAPKIT_SERVE = "files").'
    )


class ProgressBar:
    """One redrawn line per section of ``site`` on a terminal: rows done, rows/s and ETA."""

    WIDTH = 24

    def __init__(self, console: Console, site: SitemapSite) -> None:
        self.console = console
        self.site = site
        self.section: str | None = None
        self.total = 0
        self.started = 0.0
        self.drawn = 0.0

    def update(self, section: str, rows: int) -> None:
        now = time.monotonic()
        if section != self.section:
            self.section = section
            source = registry.get(section, self.site)
            self.total = compile_plan(source, self.site).pager.count() if source is not None else 0
            self.started = now
        if now - self.drawn < REDRAW_EVERY:
            return
        self.drawn = now
        elapsed = max(now - self.started, 1e-9)
        rate = rows / elapsed
        done = min(rows / self.total, 1.0) if self.total else 1.0
        eta = (self.total - rows) / rate if rate and self.total > rows else 0.0
        filled = int(done * self.WIDTH)
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        stdout = self.console.stdout
        stdout.write(
            f"\r{section}  [{bar}]  {rows:,}/{self.total:,} rows  {rate:,.0f} rows/s  "
            f"ETA {eta:.0f} s",
            ending="",
        )
        stdout.flush()

    def finish(self, section: SectionBuild) -> None:
        if self.section == section.section:
            # Clear the bar before the final line replaces it.
            self.console.stdout.write("\r\033[K", ending="")
        self.section = None
        self.console.section_done(section)
