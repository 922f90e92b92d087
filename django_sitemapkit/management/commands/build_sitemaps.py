"""``manage.py build_sitemaps``: write the index and every page to a directory or storage."""

from __future__ import annotations

import argparse
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit.build import BuildInterrupted, build, refuse_unusable_base_url
from django_sitemapkit.build.destinations import Destination, destination_for
from django_sitemapkit.build.publish import planned_names, stale_names
from django_sitemapkit.build.report import BuildOptions, BuildResult, SectionBuild
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import INDEX_FILENAME
from django_sitemapkit.registry import WHERE_SOURCES_ARE, registry
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.plan import compile_plan

# Redraw a progress bar at most this often, in seconds.
REDRAW_EVERY = 0.1


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return number


class Command(BaseCommand):
    help = "Write the sitemap index and every page, gzipped too, to a directory or a storage."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--output",
            metavar="DIR",
            help="Directory to write to (default: SITEMAPKIT_OUTPUT_DIR, else SITEMAPKIT_STORAGE).",
        )
        parser.add_argument(
            "--section",
            action="append",
            metavar="NAME",
            help="Rebuild only this section (repeatable); the index is rewritten to match.",
        )
        parser.add_argument(
            "--no-gzip",
            action="store_false",
            dest="gzip",
            default=None,
            help="Do not write .xml.gz siblings (default: SITEMAPKIT_GZIP).",
        )
        parser.add_argument(
            "--gzip-links",
            action="store_true",
            default=None,
            help="List the .xml.gz names in the index (default: SITEMAPKIT_GZIP_LINKS).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Print what would be written; write nothing."
        )
        parser.add_argument(
            "--validate",
            action="store_true",
            help="Validate every file against the official schemas before publishing.",
        )
        parser.add_argument(
            "--jobs",
            type=positive_int,
            default=1,
            metavar="N",
            help="Build sections in N processes, and with 2 or more compress the .gz files "
            "on a second thread (default: 1).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity: int = options["verbosity"]
        if not registry.all():
            # Not "no section has any rows", exit 0: a cron job would go on
            # reporting success while the sitemap it serves grows stale.
            raise CommandError(
                "No sitemap source is registered: nothing was built, and no file was written "
                f"or removed. {WHERE_SOURCES_ARE}"
            )
        sources = self.selected_sources(options["section"])
        build_options = BuildOptions(
            gzip=conf.GZIP if options["gzip"] is None else options["gzip"],
            gzip_links=conf.GZIP_LINKS if options["gzip_links"] is None else options["gzip_links"],
            validate=options["validate"],
        )
        if build_options.gzip_links and not build_options.gzip:
            raise CommandError(
                "--gzip-links (or SITEMAPKIT_GZIP_LINKS) needs the .xml.gz files; drop --no-gzip."
            )
        try:
            site = refuse_unusable_base_url()
            destination = destination_for(options["output"])
        except BuildError as exc:
            raise CommandError(str(exc)) from exc
        partial = options["section"] is not None
        if options["dry_run"]:
            self.dry_run(destination, sources, build_options, partial)
            return
        progress = ProgressBar(self) if self.verbosity >= 1 and self.stdout.isatty() else None
        try:
            result = build(
                destination,
                sources,
                build_options,
                site,
                partial=partial,
                jobs=options["jobs"],
                progress=None if progress is None else progress.update,
                done=progress.finish if progress is not None else self.section_done,
            )
        except BuildInterrupted as exc:
            raise CommandError(str(exc), returncode=130) from exc
        except BuildError as exc:
            raise CommandError(str(exc)) from exc
        self.report(destination, result)

    def selected_sources(self, names: list[str] | None) -> list[BaseSource]:
        sections = registry.sections()
        if names is None:
            return sections
        known = {type(source).name: source for source in sections}
        unknown = [name for name in names if name not in known]
        if unknown:
            listed = ", ".join(repr(name) for name in known) or "none"
            raise CommandError(
                f"No sitemap section named {unknown[0]!r}; the sections are {listed}."
            )
        return [known[name] for name in dict.fromkeys(names)]

    # -- output -------------------------------------------------------------------

    def info(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stdout.write(message)

    def section_done(self, section: SectionBuild) -> None:
        self.info(
            f"{section.section}: {section.urls:,} URLs in {len(section.files):,} "
            f"file{'s' if len(section.files) != 1 else ''} ({section.seconds:.2f} s)"
        )
        if self.verbosity >= 2:
            for built in section.files:
                self.stdout.write(f"  {built.name}: {built.urls:,} URLs, {built.size:,} bytes")

    def report(self, destination: Destination, result: BuildResult) -> None:
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
                self.stderr.write(self.style.WARNING(note))

    def dry_run(
        self,
        destination: Destination,
        sources: list[BaseSource],
        options: BuildOptions,
        partial: bool,
    ) -> None:
        plans = [compile_plan(source) for source in sources]
        planned = {plan.section: planned_names(plan, options) for plan in plans}
        if not any(planned.values()) and not partial:
            self.info("No sitemap section has any rows: nothing would be written.")
            return
        self.info(f"Dry run: nothing is written. A build would write to {destination.label}:")
        for plan in plans:
            names = planned[plan.section]
            self.info(f"  {plan.section}: {', '.join(names) if names else 'no files'}")
        index = [INDEX_FILENAME, INDEX_FILENAME + ".gz"] if options.gzip else [INDEX_FILENAME]
        self.info(f"  index: {', '.join(index)}")
        keep = [name for names in planned.values() for name in names] + index
        sections = set(planned) if partial else None
        stale = stale_names(destination, keep, sections)
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
    """One redrawn line per section on a terminal: rows done, rows/s and ETA."""

    WIDTH = 24

    def __init__(self, command: Command) -> None:
        self.command = command
        self.section: str | None = None
        self.total = 0
        self.started = 0.0
        self.drawn = 0.0

    def update(self, section: str, rows: int) -> None:
        now = time.monotonic()
        if section != self.section:
            self.section = section
            source = registry.get(section)
            self.total = compile_plan(source).pager.count() if source is not None else 0
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
        self.command.stdout.write(
            f"\r{section}  [{bar}]  {rows:,}/{self.total:,} rows  {rate:,.0f} rows/s  "
            f"ETA {eta:.0f} s",
            ending="",
        )
        self.command.stdout.flush()

    def finish(self, section: SectionBuild) -> None:
        if self.section == section.section:
            # Clear the bar before the final line replaces it.
            self.command.stdout.write("\r\033[K", ending="")
        self.section = None
        self.command.section_done(section)
