"""``manage.py verify_sitemaps``: request every URL the sitemaps list, in this process,
and report each that a search engine would refuse to index."""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from django_sitemapkit.build.arguments import positive_int
from django_sitemapkit.registry import WHERE_SOURCES_ARE, registry
from django_sitemapkit.sites.hosts import several_sites
from django_sitemapkit.verification.console import VerifyConsole
from django_sitemapkit.verification.json_report import JsonReport
from django_sitemapkit.verification.report import Tallies, plural
from django_sitemapkit.verification.run import (
    Planned,
    Verification,
    VerifyError,
    VerifyOptions,
    dry_run,
    planned,
    refused_hosts,
)
from django_sitemapkit.verification.transactions import Unreachable


def whole_number(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return number


def seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not (math.isfinite(number) and number > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, not {value}")
    return number


class Command(BaseCommand):
    help = (
        "Request each URL the sitemaps list through the project's own views, in this "
        "process, and report those a search engine would not index."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--site",
            action="append",
            metavar="NAME",
            help="Verify only this site of SITEMAPKIT_SITES (repeatable; default: every site).",
        )
        parser.add_argument(
            "--section",
            action="append",
            metavar="NAME",
            help="Verify only this section (repeatable; default: every section).",
        )
        parser.add_argument(
            "--built",
            action="store_true",
            help="Read the URLs from the built files (SITEMAPKIT_OUTPUT_DIR or "
            "SITEMAPKIT_STORAGE), not from the database.",
        )
        parser.add_argument(
            "--sample",
            type=positive_int,
            metavar="N",
            help="Request N URLs of each section, spread evenly (default: every URL).",
        )
        parser.add_argument(
            "--jobs",
            type=positive_int,
            default=1,
            metavar="N",
            help="Request in N processes (default: 1).",
        )
        parser.add_argument(
            "--timeout",
            type=seconds,
            metavar="SECONDS",
            help="Report a URL whose view runs longer as 'timeout' and go on (default: "
            "SITEMAPKIT_VERIFY_TIMEOUT, 5).",
        )
        parser.add_argument(
            "--json", metavar="FILE", help="Also write every problem to FILE, as JSON."
        )
        parser.add_argument(
            "--max-problems",
            type=whole_number,
            default=0,
            metavar="N",
            help="Exit with status 1 only if more than N problems are found (default: 0).",
        )
        parser.add_argument(
            "--max-shown",
            type=whole_number,
            default=10,
            metavar="N",
            help="Show at most N URLs of each section and reason (default: 10).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Print how many URLs of each section would be requested; request none.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        console = VerifyConsole(self.stdout, options["verbosity"])
        if not options["built"] and not registry.all():
            raise CommandError(
                f"No sitemap source is registered: nothing to verify. {WHERE_SOURCES_ARE}"
            )
        verify_options = VerifyOptions(
            sites=options["site"],
            sections=options["section"],
            built=options["built"],
            sample=options["sample"],
            jobs=options["jobs"],
            timeout=options["timeout"],
        )
        try:
            sites, left_out = planned(verify_options)
        except VerifyError as exc:
            raise CommandError(str(exc)) from exc
        for problem in left_out:
            self.stderr.write(f"Not verified: {problem}")
        if not any(section.urls for _, sections in sites for section in sections):
            console.nothing_to_do()
            return
        if options["dry_run"]:
            total = dry_run(console, sites, verify_options.sample)
            console.info(f"Dry run: {total:,} URL{plural(total)} would be requested.")
            return
        refused = refused_hosts(sites)
        if refused:
            raise CommandError(" ".join(refused))
        tallies = Tallies(options["max_shown"], several_sites())
        verification = Verification(verify_options, console, tallies, json_report(options))
        self.run(verification, sites)
        failed = failure(tallies, options["max_problems"])
        if failed is not None:
            raise CommandError(failed)

    def run(self, verification: Verification, sites: Planned) -> None:
        """Run ``verification``, finish its report and print its closing lines; a run
        that fails leaves no report."""
        report, tallies = verification.report, verification.tallies
        started = time.monotonic()
        try:
            verification.run(sites)
        except BaseException as exc:
            if report is not None:
                report.abandon()
            if isinstance(exc, Unreachable):
                raise CommandError(str(exc)) from exc
            if isinstance(exc, KeyboardInterrupt):
                # As build_sitemaps says it: 130, the shell's status for SIGINT.
                raise CommandError(
                    f"Interrupted after {tallies.requested:,} URLs verified, "
                    f"{tallies.problems:,} problems found; no report was written.",
                    returncode=130,
                ) from exc
            raise
        unchecked = verification.reciprocity.unchecked
        if report is not None:
            report.finish(tallies, unchecked)
        verification.console.closing(tallies, time.monotonic() - started)


def failure(tallies: Tallies, max_problems: int) -> str | None:
    """Why the run exits with status 1: too many problems, or no URL requested."""
    if tallies.problems > max_problems:
        return (
            f"{tallies.problems:,} problem{plural(tallies.problems)} found, more than "
            f"--max-problems {max_problems:,}."
        )
    if not tallies.requested:
        return (
            f"0 of {tallies.listed:,} listed URLs were requested (their rows made no "
            "valid entry, or their pages could not be read): nothing was verified."
        )
    return None


def json_report(options: dict[str, Any]) -> JsonReport | None:
    """The report ``--json`` asks for, opened before anything is requested."""
    path = options["json"]
    if path is None:
        return None
    source = "built" if options["built"] else "database"
    try:
        return JsonReport(path, source, options["sample"])
    except OSError as exc:
        raise CommandError(
            f"--json {path!r} cannot be written ({exc.strerror}): nothing was requested. "
            "Name a file in a directory that exists and can be written."
        ) from exc
