"""The build cases: ``manage.py build_sitemaps`` over the ``--build-rows`` table into a
new directory, and the ORM floor cut into the same files; what each left there."""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path

from django.core.management import call_command

from bench.floors import iso_lastmod, orm_rows, urlset_chunks
from bench.measuring import URL_TAG, Case, Outcome
from bench.sizes import PAGE_MAX, Plan
from bench.sources import register_bench_source, warm_process


@dataclass
class BuiltFiles:
    files: int = 0
    xml_bytes: int = 0
    gzip_bytes: int = 0
    urls: int = 0


def built_files(directory: Path, count_urls: bool) -> BuiltFiles:
    """What a build left in ``directory``: files, .xml and .xml.gz bytes, and URLs."""
    found = BuiltFiles()
    for path in sorted(directory.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue  # the build's lock file
        found.files += 1
        if path.name.endswith(".gz"):
            found.gzip_bytes += path.stat().st_size
            continue
        found.xml_bytes += path.stat().st_size
        if count_urls:
            found.urls += path.read_bytes().count(URL_TAG)
    return found


class BuildCase:
    """``manage.py build_sitemaps`` into a new empty directory, removed afterwards."""

    def __init__(self, gzip: bool, jobs: int) -> None:
        self.gzip = gzip
        self.jobs = jobs

    def setup(self) -> None:
        register_bench_source(PAGE_MAX)
        warm_process()

    def write(self, directory: Path) -> None:
        call_command(
            "build_sitemaps", output=str(directory), gzip=self.gzip, jobs=self.jobs, verbosity=0
        )

    def run(self, check: bool) -> Outcome:
        directory = Path(tempfile.mkdtemp(prefix="sitemapkit-bench-"))
        try:
            started = time.perf_counter()
            self.write(directory)
            seconds = time.perf_counter() - started
            found = built_files(directory, check)
        finally:
            remove(directory)
        return Outcome(
            seconds=seconds,
            bytes=found.xml_bytes,
            urls=found.urls if check else None,
            files=found.files,
            gzip_bytes=found.gzip_bytes,
        )


class BuildFloor(BuildCase):
    """The ORM floor over every row, cut into 50,000-URL files; no gzip, no index."""

    def __init__(self) -> None:
        super().__init__(gzip=False, jobs=1)

    def write(self, directory: Path) -> None:
        rows = orm_rows(0, None)
        number = 0
        while (first := next(rows, None)) is not None:
            number += 1
            page = chain([first], islice(rows, PAGE_MAX - 1))
            with open(directory / f"sitemap-bench-{number}.xml", "wb") as file:
                for chunk in urlset_chunks(page, iso_lastmod):
                    file.write(chunk)


def build(plan: Plan, gzip: bool, jobs: int) -> Case:
    return BuildCase(gzip=gzip, jobs=jobs)


def build_floor(plan: Plan) -> Case:
    return BuildFloor()


def remove(directory: Path) -> None:
    """A build's output: the link to its directory of builds (build/directory.py), which
    ``rmtree()`` refuses, and that directory beside it."""
    shutil.rmtree(directory.parent / f".{directory.name}.builds", ignore_errors=True)
    if directory.is_symlink():
        directory.unlink()
    else:
        shutil.rmtree(directory, ignore_errors=True)
