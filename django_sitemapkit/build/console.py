"""What ``build_sitemaps`` prints: a line per section (or a progress bar on a terminal),
the closing table, the dry run's list of files, and, with several sites, a header
before each site's part and the lines of those that failed."""

from __future__ import annotations

import time

from django.core.management.base import OutputWrapper
from django.core.management.color import Style

from django_sitemapkit.build.destinations import Destination, PublishFailed
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import plan_build
from django_sitemapkit.build.report import BuildResult, SectionBuild
from django_sitemapkit.build.selection import SiteBuild
from django_sitemapkit.build.touched import Touched
from django_sitemapkit.names import INDEX_FILENAME
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import compile_plan

# Redraw a progress bar at most this often, in seconds.
REDRAW_EVERY = 0.1
#: The characters of a progress bar's bar.
BAR_WIDTH = 24


class Output:
    """A command's output at its verbosity, each site's part opening with a header
    naming the site when the project has several: ``build_sitemaps``' and
    ``verify_sitemaps``'."""

    def __init__(self, stdout: OutputWrapper, verbosity: int) -> None:
        self.stdout = stdout
        self.verbosity = verbosity

    def info(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stdout.write(message)

    def site_header(self, site: SitemapSite) -> None:
        if site.several:
            self.info(f"Site {site.name!r} on {site.base_url}:")


class Console(Output):
    """``build_sitemaps``' output."""

    def __init__(
        self, stdout: OutputWrapper, stderr: OutputWrapper, style: Style, verbosity: int
    ) -> None:
        super().__init__(stdout, verbosity)
        self.stderr = stderr
        self.style = style

    def progress_bar(self, site: SitemapSite, touched: Touched | None = None) -> ProgressBar | None:
        """A bar on a terminal; of a refresh (``touched``), counting the rows of the shards
        it renders, which its plan read, rather than the sections'."""
        if self.verbosity < 1 or not self.stdout.isatty():
            return None
        return ProgressBar(self, site, None if touched is None else touched.rows)

    def section_done(self, section: SectionBuild) -> None:
        self.info(
            f"{section.section}: {section.urls:,} URLs in {len(section.files):,} "
            f"file{'s' if len(section.files) != 1 else ''}, {section.rendered:,} of "
            f"{section.shards:,} shard(s) rendered ({section.seconds:.2f} s)"
        )
        if self.verbosity >= 2:
            for built in section.files:
                self.stdout.write(f"  {built.name}: {built.urls:,} URLs, {built.size:,} bytes")

    def untouched(self) -> None:
        self.info("No change record touches its sections: nothing to render.")

    def no_sections(self) -> None:
        # Not "no rows, or none valid" (EmptySet): no source lists this site, which
        # is a choice of the sources' sites, not an empty table.
        self.info(
            "No sitemap section is listed on this site (no registered source's sites "
            "include it): nothing to do."
        )

    def nothing_listed(self) -> None:
        self.info("None of the sections --section names is listed on this site: nothing to do.")

    def report(self, site: SitemapSite, destination: Destination, result: BuildResult) -> None:
        if self.verbosity < 1:
            return
        assert result.manifest is not None
        files = len(result.manifest.names())
        if not result.published:
            shards = sum(section.shards for section in result.sections)
            self.stdout.write(
                f"Nothing changed: {shards:,} shard(s) are as the manifest records them, and "
                f"the {files:,} files in {destination.label} are as they were."
            )
            return
        self.stdout.write(summary_table(result))
        self.stdout.write(
            f"Published to {destination.label} ({files:,} files and the manifest): "
            f"{len(result.replaced):,} written, {len(result.unchanged):,} unchanged, "
            f"{len(result.removed):,} removed."
        )
        if result.indexnow is not None:
            self.stdout.write(result.indexnow.summary())
        elif result.indexnow_skipped is not None:
            self.stdout.write(result.indexnow_skipped)

    def dry_run(
        self,
        destination: Destination,
        planned: SiteBuild,
        options: BuildOptions,
        touched: Touched | None = None,
    ) -> None:
        site, partial = planned.site, planned.partial
        plan = plan_build(destination, planned.sources, options, site, partial, touched)
        run = "refresh" if touched is not None else "build"
        self.info(f"Dry run: nothing is written. A {run} of {destination.label} would:")
        if touched is not None and not plan.refreshed:
            self.info(
                "  compare every shard, as a build does: the set was not built with these "
                "settings and sections."
            )
        if plan.recorded is None:
            self.info("  render every shard: there is no set built with these settings yet.")
        elif plan.full:
            self.info("  render every shard (--full, or SITEMAPKIT_FULL_BUILD_EVERY has passed).")
        # A section read without a key (static pages) has no count: it may
        # have URLs, so only counted sections can say the build would fail.
        rows: int | None = 0
        for section, shards in plan.planned.items():
            rendered = [shard for shard in shards if shard.kept is None]
            for shard in shards:
                rows = None if rows is None or shard.rows is None else rows + shard.rows
            names = [", ".join(shard.names) or "new files" for shard in rendered]
            detail = f": {'; '.join(names)}" if rendered else ""
            self.info(f"  {section}: render {len(rendered):,} of {len(shards):,} shard(s){detail}")
        # No rows first: a site with no section at all has no work either, and
        # its build fails (an index must list a sitemap).
        if rows == 0 and not planned.partial:
            self.info("No sitemap section has any rows: the build would publish nothing and fail.")
        elif not plan.work:
            self.info("Nothing to do: every shard is as the manifest records it.")
        self.info(
            "A shard's files keep their bytes, modification time and ETag when they come "
            "out the same."
        )


def summary_table(result: BuildResult) -> str:
    header = ("Section", "Rows", "URLs", "Files", "Rendered", "Bytes", "Gzip bytes", "Skipped")
    rows = [section_row(section) for section in result.sections]
    total = SectionBuild("Total")
    for section in result.sections:
        total.files += section.files
        total.rows += section.rows
        total.skipped += section.skipped
        total.shards += section.shards
        total.rendered += section.rendered
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
    lines.append(
        f"Index: {INDEX_FILENAME}, {result.index.urls:,} entries. {total.rendered:,} of "
        f"{total.shards:,} shard(s) rendered in {total.seconds:.2f} s."
    )
    return "\n".join(lines)


def section_row(section: SectionBuild) -> tuple[str, ...]:
    gzip_size = section.gzip_size
    return (
        section.section,
        f"{section.rows:,}",
        f"{section.urls:,}",
        f"{len(section.files):,}",
        f"{section.rendered:,}/{section.shards:,}",
        f"{section.size:,}",
        "-" if gzip_size is None else f"{gzip_size:,}",
        f"{section.skipped:,}",
    )


def progress_line(label: str, done: int, total: int, unit: str, elapsed: float) -> str:
    """A progress bar's line, drawn over the last (``\\r``): ``done`` of ``total``
    ``unit`` in ``elapsed`` seconds, their rate and the time left at that rate.
    ``verify_sitemaps`` draws its own with it too."""
    rate = done / max(elapsed, 1e-9)
    share = min(done / total, 1.0) if total else 1.0
    eta = (total - done) / rate if rate and total > done else 0.0
    filled = int(share * BAR_WIDTH)
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    return f"\r{label}  [{bar}]  {done:,}/{total:,} {unit}  {rate:,.0f} {unit}/s  ETA {eta:.0f} s"


class ProgressBar:
    """One redrawn line per section of ``site`` on a terminal: rows done, rows/s and ETA."""

    def __init__(
        self, console: Console, site: SitemapSite, totals: dict[str, int] | None = None
    ) -> None:
        self.console = console
        self.site = site
        #: Each section's rows to read, when known (a refresh's), else counted.
        self.totals = totals
        self.section: str | None = None
        self.total = 0
        self.started = 0.0
        self.drawn = 0.0

    def update(self, section: str, rows: int) -> None:
        now = time.monotonic()
        if section != self.section:
            self.section = section
            self.total = self.count(section)
            self.started = now
        if now - self.drawn < REDRAW_EVERY:
            return
        self.drawn = now
        stdout = self.console.stdout
        stdout.write(
            progress_line(section, rows, self.total, "rows", now - self.started), ending=""
        )
        stdout.flush()

    def count(self, section: str) -> int:
        if self.totals is not None and section in self.totals:
            return self.totals[section]
        source = registry.get(section, self.site)
        return compile_plan(source, self.site).pager.count() if source is not None else 0

    def finish(self, section: SectionBuild) -> None:
        if self.section == section.section:
            # Clear the bar before the final line replaces it.
            self.console.stdout.write("\r\033[K", ending="")
        self.section = None
        self.console.section_done(section)


def left_behind(destination: Destination, exc: Exception) -> str:
    """What a site's failed build left in ``destination``, as it is."""
    if destination.published:
        return "Its new set was published before it failed."
    if isinstance(exc, PublishFailed):
        return "Its publish stopped part-way: some of its files are new."
    return "Its files are as they were."


def failed_sites(failures: list[str], done: int, dry_run: bool) -> str:
    """One line per site that failed (or ``Site`` row that cannot be a site), and why."""
    total = len(failures) + done
    verb = "listed" if dry_run else "built"
    if done:
        others = f"the other one was {verb}" if done == 1 else f"the other {done:,} were {verb}"
        opening = f"The sitemaps of {len(failures):,} of {total:,} sites failed ({others}):"
    else:
        opening = f"The sitemaps of {'the site' if total == 1 else f'all {total:,} sites'} failed:"
    return "\n".join([opening, *(f"- {failure}" for failure in failures)])


def interrupted(exc: Exception, done: list[str], left: list[str], failures: list[str]) -> str:
    """What an interrupted run of several sites had done."""
    parts = [str(exc)]
    if done:
        parts.append(f"Published before: {', '.join(map(repr, done))}.")
    if left:
        parts.append(f"Not built: {', '.join(map(repr, left))}.")
    parts += [f"Failed before: {failure}" for failure in failures]
    return " ".join(parts)
