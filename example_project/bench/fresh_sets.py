"""The fresh-on-commit cases' data, in their child processes: the first set of files
of the build table, built once per database, size and package commit and cloned
for each run; the changed rows each run makes and undoes; the change records
cleared between runs.

A built set is a directory of builds and a symbolic link to the current one
(django_sitemapkit/build/directory.py), whose files a later build never writes
in place: it writes new files and renames them, and links the unchanged ones. So
a clone is the same tree of hard links, and costs no copy of its gigabytes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import django_sitemapkit
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone
from django_sitemapkit import changed
from django_sitemapkit.changes import records

from bench.machine import git
from bench.models import Page
from bench.seeding import updated_at_for
from bench.sizes import PAGE_MAX, Plan
from bench.sources import register_bench_source, warm_process

#: Where the first sets are kept between runs (outside the repository: gigabytes).
SETS = Path(tempfile.gettempdir()) / "sitemapkit-fresh-sets"
#: The output directory's name in its parent (a link, beside its builds).
OUTPUT = "sitemaps"
#: Written beside a set once its build has finished.
COMPLETE = "complete"
#: Records read back per round when clearing them.
CLEARED_AT_ONCE = 10_000


def set_parent(rows: int) -> Path:
    """The first set of ``rows`` rows of this database, for the measured package's commit
    (a set from other code would make the first refresh a full build)."""
    name = connection.settings_dict["NAME"]
    key = f"{connection.vendor}-{Path(str(name)).name}-{rows}-{package_code()}"
    return SETS / re.sub(r"[^A-Za-z0-9_.-]+", "_", key)


def package_code() -> str:
    """The last commit that changed the package's files (a commit of the benchmark alone
    keeps the set), and whether they differ from it now."""
    root = Path(django_sitemapkit.__file__).resolve().parent
    try:
        commit = git(root, "log", "-1", "--format=%h", "--", ".")
        changed = git(root, "status", "--porcelain", "--", ".")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}-changed" if changed else commit


def first_set(plan: Plan) -> dict[str, Any]:
    """The first set of the build table: built now (``build_sitemaps``, gzip, into an
    empty directory) unless this database, size and commit already have one."""
    parent = set_parent(plan.build_rows)
    if (parent / COMPLETE).exists():
        return {"path": str(parent / OUTPUT), "action": "reused", "seconds": 0.0}
    shutil.rmtree(parent, ignore_errors=True)
    (parent / OUTPUT).mkdir(parents=True)
    register_bench_source(PAGE_MAX)
    warm_process()
    clear_records()
    started = time.perf_counter()
    call_command("build_sitemaps", output=str(parent / OUTPUT), gzip=True, jobs=2, verbosity=0)
    seconds = time.perf_counter() - started
    (parent / COMPLETE).write_text(f"{plan.build_rows} rows, built in {seconds:.1f} s\n")
    return {"path": str(parent / OUTPUT), "action": "built", "seconds": seconds}


def clone(output: Path) -> Path:
    """A new directory holding the set of ``output`` (a link to its current build): the
    builds' files hard-linked, the link made again; its output directory."""
    source = output.parent
    target = Path(tempfile.mkdtemp(prefix="sitemapkit-fresh-"))
    for entry in os.scandir(source):
        if entry.name in (OUTPUT, COMPLETE):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.copytree(
                entry.path,
                target / entry.name,
                symlinks=True,
                copy_function=os.link,
                # A lock file shared by two clones would be one lock.
                ignore=shutil.ignore_patterns("*lock*"),
            )
    os.symlink(os.readlink(output), target / OUTPUT)
    return target / OUTPUT


def remove_clone(output: Path) -> None:
    shutil.rmtree(output.parent, ignore_errors=True)


def check_series(keys: list[int]) -> None:
    """Fail unless the rows of ``keys`` are as the series has them: a run killed before
    it undid its changes would make the next one measure other changes."""
    found = dict(Page.objects.filter(pk__in=keys).values_list("pk", "updated_at"))
    wrong = [key for key in keys if found.get(key) != updated_at_for(key)]
    if wrong:
        raise RuntimeError(
            f"bench_page row {wrong[0]} is not as the series has it (a run stopped before "
            "undoing its changes?): rerun with --reseed."
        )


def change_rows(keys: list[int]) -> None:
    """Set the ``updated_at`` of the rows of ``keys`` to now, and record them with
    ``changed()``, in one transaction, as a bulk edit of a project would."""
    now = timezone.now()
    with transaction.atomic():
        Page.objects.filter(pk__in=keys).update(updated_at=now)
        changed(Page.objects.filter(pk__in=keys))


def restore_rows(keys: list[int]) -> None:
    """The rows of ``keys`` as the series has them again, and no record pending."""
    with transaction.atomic():
        Page.objects.bulk_update(
            [Page(id=key, updated_at=updated_at_for(key)) for key in keys],
            ["updated_at"],
            batch_size=2_000,
        )
    clear_records()


def clear_records() -> int:
    """Mark every pending record applied (what a refresh does once it has published), so
    that the next run starts with none; the count of records ever written still grows,
    as the index's version needs."""
    cleared = 0
    while (found := records.pending(CLEARED_AT_ONCE)).ids:
        records.applied(found.ids)
        cleared += len(found.ids)
    return cleared


#: The child that builds (or finds) the first set before the refresh and served runs.
FIRST_SET = "fresh-first-set"
TASKS = {FIRST_SET: first_set}
