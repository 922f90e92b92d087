"""Pre-render every sitemap file, then publish the set so no crawler sees a half of it.

Everything is staged first (``render``, ``index``). Only when every file and
the index are written, and validated if asked, are they published
(``publish``): pages, then the index, then the files the new index no longer
names are removed. A failure before that leaves the previous set exactly as
it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.index import existing_index_entries, index_entries, render_index
from django_sitemapkit.build.publish import publish, staged_files
from django_sitemapkit.build.render import Progress, render_sections
from django_sitemapkit.build.report import BuildOptions, BuildResult, SectionBuild
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import SECTION_NAME
from django_sitemapkit.sources.declaration import BaseSource

__all__ = ["BuildInterrupted", "BuildOptions", "BuildResult", "SectionBuild", "build"]


class BuildInterrupted(BuildError):
    """Ctrl-C (or SIGINT) before anything was published."""


def build(
    destination: Destination,
    sources: list[BaseSource],
    options: BuildOptions,
    site: SitemapSite,
    *,
    partial: bool = False,
    jobs: int = 1,
    progress: Progress | None = None,
    done: Callable[[SectionBuild], None] = lambda build: None,
) -> BuildResult:
    """Build ``sources`` of ``site`` into ``destination``; ``partial`` keeps the other
    sections' files.

    ``jobs`` of 2 or more builds sections in that many processes, and
    compresses each gzip sibling on a thread of its own, so even one large
    section keeps two cores busy.
    """
    options = replace(options, gzip_in_thread=options.gzip_in_thread or jobs > 1)
    refuse_unsafe_names(sources)
    with destination.lock():
        try:
            kept = existing_index_entries(destination) if partial else []
            builds = render_sections(
                sources, site, destination.staging, options, jobs, progress, done
            )
            result = BuildResult(builds)
            entries = index_entries(site, builds, kept, options)
            if not entries:
                destination.discard()
                return result
            result.index = render_index(destination.staging, entries, options)
            if options.validate:
                from django_sitemapkit.build.validation import validate_staged

                validate_staged(destination.staging, staged_files(builds, result.index))
        except BaseException as exc:
            destination.discard()
            error = failed(destination, exc)
            if error is exc:
                raise
            raise error from exc
        try:
            publish(destination, builds, result.index, partial, result)
        finally:
            destination.discard()
        return result


def failed(destination: Destination, exc: BaseException) -> BaseException:
    """The one-line ``BuildError`` a failed build raises; the exception itself if it is
    neither an error nor an interruption."""
    untouched = f"Nothing was published: the files in {destination.label} are as they were."
    if isinstance(exc, KeyboardInterrupt):
        return BuildInterrupted(f"Interrupted. {untouched}")
    if isinstance(exc, BuildError):
        reason = str(exc)
    elif isinstance(exc, OSError):
        text = exc.strerror or str(exc)
        detail = f"{text} ({exc.filename})" if exc.filename else text
        reason = f"Cannot write to {destination.label}: {detail}."
    elif isinstance(exc, Exception):
        reason = f"{type(exc).__name__}: {exc}"
    else:
        return exc
    return BuildError(f"{reason} {untouched}")


def refuse_unsafe_names(sources: list[BaseSource]) -> None:
    """The system checks refuse these names (sitemapkit.E007), but a build may run
    without them (``--skip-checks``, ``call_command()``): a name such as
    ``"x/../../y"`` must never become part of a path."""
    for source in sources:
        cls = type(source)
        if not isinstance(cls.name, str) or not SECTION_NAME.fullmatch(cls.name):
            raise BuildError(
                f"Sitemap source {cls.__module__}.{cls.__qualname__} has the section name "
                f"{cls.name!r}, which cannot appear safely in a file name (sitemapkit.E007); "
                "set name to 1 to 64 ASCII letters, digits, '-' or '_', starting with a letter "
                "or digit."
            )
