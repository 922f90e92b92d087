"""Publishing a staged build: pages, then the index, then what the new index no longer
names, so that at no moment does a published index name a file that is not there."""

from __future__ import annotations

from collections.abc import Iterable

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.report import BuildOptions, BuildResult, BuiltFile, SectionBuild
from django_sitemapkit.names import GZIP_SUFFIX, is_index, page_filename, section_of
from django_sitemapkit.sources.plan import Plan


def staged_files(builds: list[SectionBuild], index: BuiltFile) -> list[BuiltFile]:
    return [f for build in builds for f in build.files] + [index]


def publish(
    destination: Destination,
    builds: list[SectionBuild],
    index: BuiltFile,
    partial: bool,
    result: BuildResult,
) -> None:
    written: set[str] = set()
    for built in staged_files(builds, index):
        for name in built.names():
            written.add(name)
            (result.replaced if destination.publish(name) else result.unchanged).append(name)
    rebuilt = {build.section for build in builds} if partial else None
    for name in stale_names(destination, written, rebuilt):
        destination.remove(name)
        result.removed.append(name)


def planned_names(plan: Plan, options: BuildOptions) -> list[str]:
    """The files a build would write for a section if no page reaches the byte limit."""
    names = []
    pages = -(-plan.pager.count() // plan.page_size)
    for page in range(1, pages + 1):
        name = page_filename(plan.section, page)
        names += [name, name + GZIP_SUFFIX] if options.gzip else [name]
    return names


def stale_names(
    destination: Destination, keep: Iterable[str], sections: set[str] | None
) -> list[str]:
    """The sitemap files not in ``keep``: of ``sections`` only (and the index), or all."""
    keep = set(keep)
    return [
        name
        for name in destination.names()
        if name not in keep and (sections is None or section_of(name) in sections or is_index(name))
    ]
