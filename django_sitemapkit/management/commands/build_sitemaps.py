"""``manage.py build_sitemaps``: write the index and every page to a directory or storage."""

from __future__ import annotations

import logging
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit.build import BuildInterrupted, build
from django_sitemapkit.build.arguments import percent, positive_int
from django_sitemapkit.build.changed import applied, changed_records
from django_sitemapkit.build.console import Console, failed_sites, interrupted, left_behind
from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.directory import destination_for
from django_sitemapkit.build.options import BuildOptions, RemovalLimit
from django_sitemapkit.build.refresh import refreshes, setting_limit
from django_sitemapkit.build.report import BuildResult
from django_sitemapkit.build.report_file import Report, now, report_to, reported
from django_sitemapkit.build.selection import SiteBuild, selected_sites, site_builds
from django_sitemapkit.conf import conf
from django_sitemapkit.distributed.coordinator import Dispatch
from django_sitemapkit.distributed.engines import ENGINES, engine_named
from django_sitemapkit.distributed.progress import ShardProgress
from django_sitemapkit.distributed.staging import shared_destination
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.registry import WHERE_SOURCES_ARE, registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import several_sites

logger = logging.getLogger("django_sitemapkit")


class Command(BaseCommand):
    help = "Write the sitemap index and every page, gzipped too, to a directory or a storage."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--site",
            action="append",
            metavar="NAME",
            help="Build only this site of SITEMAPKIT_SITES (repeatable; default: every site).",
        )
        parser.add_argument(
            "--output",
            metavar="DIR",
            help="Directory to write to (default: SITEMAPKIT_OUTPUT_DIR, else SITEMAPKIT_STORAGE); "
            "with several sites, each site's files go in a directory named after it.",
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
            "--full",
            action="store_true",
            help="Render every shard, not only those whose rows changed (files that come "
            "out the same are still kept as they are).",
        )
        parser.add_argument(
            "--no-indexnow",
            action="store_false",
            dest="indexnow",
            help="Do not send the URLs this build changes to IndexNow (when "
            "SITEMAPKIT_INDEXNOW_KEY is set).",
        )
        parser.add_argument(
            "--max-removed",
            type=percent,
            metavar="PERCENT",
            help="Refuse to publish a site's set if it would remove more than PERCENT of its "
            "URLs (default: SITEMAPKIT_MAX_REMOVED, else no limit).",
        )
        parser.add_argument(
            "--report",
            metavar="FILE",
            help="Write the URLs each site's build added, removed and changed, and its files "
            "and times, to FILE as JSON.",
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
        parser.add_argument(
            "--via",
            choices=ENGINES,
            help="Render the shards on the workers of Celery or of Django's Tasks framework, "
            "into SITEMAPKIT_STORAGE (default: in this process, or --jobs processes).",
        )
        parser.add_argument(
            "--changed",
            action="store_true",
            help="Render only the shards the pending change records touch, then delete them.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        console = Console(self.stdout, self.stderr, self.style, options["verbosity"])
        if not registry.all():
            # Not "no section has any rows", exit 0: a cron job would go on
            # reporting success while the sitemap it serves grows stale.
            raise CommandError(
                "No sitemap source is registered: nothing was built, and no file was written "
                f"or removed. {WHERE_SOURCES_ARE}"
            )
        build_options = BuildOptions(
            gzip=conf.GZIP if options["gzip"] is None else options["gzip"],
            gzip_links=conf.GZIP_LINKS if options["gzip_links"] is None else options["gzip_links"],
            validate=options["validate"],
            full=options["full"],
            indexnow=options["indexnow"],
            report=options["report"] is not None,
            max_removed=removal_limit(options["max_removed"]),
        )
        if options["report"] is not None and options["dry_run"]:
            raise CommandError(
                "--report lists the URLs a build changes, which a dry run does not render: "
                "drop --dry-run, or --report."
            )
        if options["via"] is not None and options["jobs"] > 1:
            raise CommandError(
                f"--jobs renders shards in processes of this machine and --via on the workers "
                f"of {options['via']}: choose one."
            )
        if build_options.gzip_links and not build_options.gzip:
            raise CommandError(
                "--gzip-links (or SITEMAPKIT_GZIP_LINKS) needs the .xml.gz files; drop --no-gzip."
            )
        try:
            self.touched = changed_records(console, options) if options["changed"] else None
            if options["changed"] and self.touched is None:
                return
            sites, failures = selected_sites(options["site"])
            planned = site_builds(sites, options["section"])
            # Every destination first: one that cannot be is no one site's failure.
            places = [(each, self.destination(each, options)) for each in planned]
            report = report_to(options["report"])
        except BuildError as exc:
            raise CommandError(str(exc)) from exc
        try:
            with reported(report, lambda path: console.info(f"Wrote the report to {path}.")):
                self.build_sites(console, places, build_options, options, report, failures)
        except BuildError as exc:  # the report's own
            raise CommandError(str(exc)) from exc
        if self.touched is not None and not options["dry_run"]:
            applied(console, self.touched)

    def build_sites(
        self,
        console: Console,
        places: list[tuple[SiteBuild, Destination]],
        build_options: BuildOptions,
        options: dict[str, Any],
        report: Report,
        failures: list[str],
    ) -> None:
        if not several_sites():
            # The project's only site: its error is the command's, as it always was.
            (only, destination), *_ = places
            try:
                self.build_site(console, only, destination, build_options, options, report)
            except BuildInterrupted as exc:
                raise CommandError(str(exc), returncode=130) from exc
            except BuildError as exc:
                raise CommandError(str(exc)) from exc
            return
        done: list[str] = []
        for number, (each, destination) in enumerate(places):
            console.site_header(each.site)
            try:
                self.build_site(console, each, destination, build_options, options, report)
            except BuildInterrupted as exc:
                left = [other.site.name for other, _ in places[number + 1 :]]
                raise CommandError(interrupted(exc, done, left, failures), returncode=130) from exc
            except Exception as exc:
                if not isinstance(exc, BuildError):
                    # Not an error a build foresees: its traceback goes to the log.
                    logger.exception("build_sitemaps failed for site %r.", each.site.name)
                reason = (
                    str(exc)
                    if isinstance(exc, BuildError)
                    else f"{type(exc).__name__}: {exc} (the traceback is in the log)"
                )
                failures.append(f"{each.site.name!r} ({each.site.base_url}): {reason}")
                console.info(f"Failed: see the error at the end. {left_behind(destination, exc)}")
            else:
                done.append(each.site.name)
        if failures:
            raise CommandError(failed_sites(failures, len(done), options["dry_run"]))

    def build_site(
        self,
        console: Console,
        planned: SiteBuild,
        destination: Destination,
        build_options: BuildOptions,
        options: dict[str, Any],
        report: Report,
    ) -> None:
        if not planned.sources:
            console.nothing_listed() if planned.partial else console.no_sections()
            report.add(planned.site, destination, now())
            return
        if self.touched is not None and not refreshes(
            self.touched, planned.site, planned.sources, destination
        ):
            console.untouched()
            report.add(planned.site, destination, now())
            return
        if options["dry_run"]:
            console.dry_run(destination, planned, build_options, self.touched)
            return
        started = now()
        try:
            result = self.build_one(console, planned, destination, build_options, options)
        except BuildInterrupted:
            report.discard()  # an interrupted run reports nothing
            raise
        except Exception as exc:
            report.add(planned.site, destination, started, error=exc)
            raise
        report.add(planned.site, destination, started, result)
        console.report(planned.site, destination, result)

    def build_one(
        self,
        console: Console,
        planned: SiteBuild,
        destination: Destination,
        build_options: BuildOptions,
        options: dict[str, Any],
    ) -> BuildResult:
        via = options["via"]
        # A distributed build prints its own progress (shards, not rows).
        renderer = None if via is None else dispatch(console, via, planned.site, build_options)
        progress = None if via is not None else console.progress_bar(planned.site, self.touched)
        return build(
            destination,
            planned.sources,
            build_options,
            planned.site,
            partial=planned.partial,
            jobs=options["jobs"],
            progress=None if progress is None else progress.update,
            done=console.section_done if progress is None else progress.finish,
            renderer=renderer,
            refresh=self.touched,
        )

    def destination(self, planned: SiteBuild, options: dict[str, Any]) -> Destination:
        if options["via"] is None:
            return destination_for(planned.site, options["output"])
        return shared_destination(planned.site, options["output"])


def removal_limit(option: float | None) -> RemovalLimit | None:
    """``--max-removed``, else ``SITEMAPKIT_MAX_REMOVED`` (judged here too: a command run by
    ``call_command()`` skips the system checks)."""
    if option is not None:
        return RemovalLimit(option)
    try:
        return setting_limit()
    except BuildError as exc:
        raise CommandError(str(exc)) from exc


def dispatch(console: Console, via: str, site: SitemapSite, options: BuildOptions) -> Dispatch:
    engine = engine_named(via)
    terminal = console.stdout.isatty()
    progress = ShardProgress(console.stdout, terminal, engine.label)
    return Dispatch(engine, site, options, progress if console.verbosity >= 1 else None)
