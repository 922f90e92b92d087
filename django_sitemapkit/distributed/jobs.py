"""A shard as a job any worker can run, and its result, both plain JSON.

A job carries everything a worker needs beyond the project's code and
settings: the site, the shard's key range (typed values tagged as the
manifest tags them), where to stage its files or which new names to write in
place, and the fingerprints the coordinator planned with. A worker whose
code or settings would render the section otherwise refuses the job, rather
than publish files that do not match the plan. Both are signed with
``SECRET_KEY`` (``signing.py``), and a result's values are checked against
the manifest's schema (``build/schema.py``): neither the broker nor the
result backend is trusted.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import ShardJob
from django_sitemapkit.build.render import staged_name
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.build.schema import (
    Invalid,
    fields,
    items,
    key,
    manifest_file,
    page_of,
    refuse,
    seconds,
    stats,
    text,
    whole,
)
from django_sitemapkit.conf import MAX_URLS
from django_sitemapkit.distributed.signing import signed, verified
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sources.json_values import encode
from django_sitemapkit.sources.ranges import Key

#: Changed whenever a job or a result changes shape: a worker of another
#: version refuses the job instead of misreading it.
FORMAT = 2
RESULT_FIELDS = (
    *("build", "byte_cuts", "empty_pages", "files", "format", "number", "rows", "seconds"),
    *("skipped", "stats", "worker"),
)
WORKER_FIELDS = ("finished", "host", "peak_rss", "pid", "started")


@dataclass(frozen=True)
class ShardTask:
    """One shard of one build, as sent to a worker."""

    build: str
    site: str
    storage: str
    #: The storage name prefix the shard's files are staged under.
    staging: str
    job: ShardJob
    gzip: bool
    validate: bool
    #: ``section_fingerprint()``, ``settings_fingerprint()`` and ``urls_fingerprint()``
    #: as planned.
    section: str
    settings: str
    urls: str
    #: The name in the set of each of the first files, to write there at once (a name
    #: the storage does not have: no index lists it), or ``None``: stage the file.
    names: tuple[str | None, ...] = ()

    @property
    def options(self) -> BuildOptions:
        return BuildOptions(gzip=self.gzip, validate=self.validate)

    def describe(self) -> str:
        """How messages name the shard: its section, its first page and where its rows
        start."""
        start = "the section's start" if self.job.low is None else f"key {self.job.low!r}"
        return (
            f"the shard of section {self.job.section!r} from page {self.job.page} "
            f"(rows from {start})"
        )


def encode_key(key: Key | None) -> list[Any] | None:
    return None if key is None else [encode(value) for value in key]


def to_payload(task: ShardTask) -> dict[str, Any]:
    job = task.job
    payload = {
        "format": FORMAT,
        "build": task.build,
        "site": task.site,
        "storage": task.storage,
        "staging": task.staging,
        "section": job.section,
        "number": job.number,
        "page": job.page,
        "low": encode_key(job.low),
        "high": encode_key(job.high),
        "gzip": task.gzip,
        "validate": task.validate,
        "fingerprints": {"section": task.section, "settings": task.settings, "urls": task.urls},
        "names": list(task.names),
    }
    return signed(payload, "job")


def from_payload(payload: dict[str, Any]) -> ShardTask:
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise BuildError(
            f"This worker reads shard jobs of format {FORMAT}, and was sent one of format "
            f"{found!r}: run the same version of django-sitemapkit on the coordinator and the "
            "workers."
        )
    unsigned = verified(payload, "job")
    if unsigned is None:
        raise BuildError(
            "This worker refuses a shard job that no coordinator of this project signed: its "
            "signature does not match SECRET_KEY. Was it sent by something else than "
            "build_sitemaps, or by a coordinator with another SECRET_KEY? Deploy the same "
            "settings to the coordinator and the workers."
        )
    return read_job(unsigned)


def read_job(payload: dict[str, Any]) -> ShardTask:
    try:
        job = ShardJob(
            section=payload["section"],
            number=payload["number"],
            low=key(payload["low"], "low"),
            high=key(payload["high"], "high"),
            page=payload["page"],
        )
        prints = payload["fingerprints"]
        return ShardTask(
            build=payload["build"],
            site=payload["site"],
            storage=payload["storage"],
            staging=payload["staging"],
            job=job,
            gzip=payload["gzip"],
            validate=payload["validate"],
            section=prints["section"],
            settings=prints["settings"],
            urls=prints["urls"],
            names=placed_names(payload["names"], job.section),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BuildError(f"A shard job that cannot be read ({type(exc).__name__}: {exc}).") from exc


def placed_names(value: Any, section: str) -> tuple[str | None, ...]:
    """A job's names to write in place: each a page file of its section, or ``None``."""
    named = page_of(section)
    for number, name in enumerate(items(value, "names", MAX_URLS)):
        if name is not None and not (isinstance(name, str) and named(name)):
            expected = f"None or the name of a page file of section {section!r}"
            raise refuse(f"names[{number}]", name, expected)
    return tuple(value)


@dataclass(frozen=True)
class Worker:
    """Where and when a result was rendered, for the report and the benchmark."""

    host: str
    pid: int
    started: float
    finished: float
    #: The largest resident set the worker's process has had, in bytes.
    peak_rss: int


def result_payload(
    task: ShardTask, rendered: RenderedShard, worker: Worker, stats: dict[str, Any] | None
) -> dict[str, Any]:
    payload = {
        "format": FORMAT,
        "build": task.build,
        "number": task.job.number,
        "files": [file.rendered() for file in rendered.files],
        "rows": rendered.rows,
        "skipped": rendered.skipped,
        "seconds": rendered.seconds,
        "byte_cuts": rendered.byte_cuts,
        "empty_pages": rendered.empty_pages,
        "stats": stats,
        "worker": asdict(worker),
    }
    return signed(payload, "result")


@dataclass
class ShardResult:
    rendered: RenderedShard
    worker: Worker
    #: The stats of the rows as the worker read them (``None``: a section without a key).
    stats: dict[str, Any] | None


def from_result(task: ShardTask, payload: Any) -> ShardResult:
    """The result of ``task``, checked to be its own, and each of its values to be one
    a worker writes (``build/schema.py``): the result backend is not trusted."""
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise BuildError(f"The result of {task.describe()} cannot be read: {payload!r:.200}.")
    if (payload.get("build"), payload.get("number")) != (task.build, task.job.number):
        raise BuildError(
            f"The result of {task.describe()} is the result of another job (build "
            f"{payload.get('build')!r}, shard {payload.get('number')!r})."
        )
    unsigned = verified(payload, "result")
    if unsigned is None:
        raise BuildError(
            f"The result of {task.describe()} is refused: its signature does not match "
            "SECRET_KEY. Workers sign their results: is something else writing to the result "
            "backend, or do the workers run with another SECRET_KEY?"
        )
    try:
        return read_result(task, fields(unsigned, "the result", RESULT_FIELDS))
    except Invalid as exc:
        raise BuildError(
            f"The result of {task.describe()} is refused: {exc}. Workers write no such "
            "result: is something else writing to the result backend?"
        ) from exc


def read_result(task: ShardTask, data: dict[str, Any]) -> ShardResult:
    files = []
    for number, file in enumerate(items(data["files"], "files", MAX_URLS), 1):
        staged, where = staged_name(task.job, number), f"files[{number - 1}]"
        # Where the worker put it: its name in the set, if the job gave one, or
        # staged (where the storage had a file of that name already).
        placed = task.names[number - 1] if number <= len(task.names) else None
        expected = repr(staged) if placed is None else f"{placed!r} or {staged!r}"
        found = manifest_file(file, where, {staged, placed}.__contains__, expected)
        if (found.gzip_size is not None) != task.gzip:
            expected = "the size of a gzip sibling" if task.gzip else "None (no gzip sibling)"
            raise refuse(f"{where}.gzip_size", found.gzip_size, expected)
        files.append(found)
    rendered = RenderedShard(
        task.job,
        files=files,
        rows=whole(data["rows"], "rows"),
        skipped=whole(data["skipped"], "skipped"),
        seconds=seconds(data["seconds"], "seconds"),
        byte_cuts=whole(data["byte_cuts"], "byte_cuts", 0, len(files)),
        empty_pages=whole(data["empty_pages"], "empty_pages"),
    )
    worker = fields(data["worker"], "worker", WORKER_FIELDS)
    return ShardResult(
        rendered,
        Worker(
            host=text(worker["host"], "worker.host", "a host name"),
            pid=whole(worker["pid"], "worker.pid"),
            started=seconds(worker["started"], "worker.started"),
            finished=seconds(worker["finished"], "worker.finished"),
            peak_rss=whole(worker["peak_rss"], "worker.peak_rss"),
        ),
        stats(data["stats"], "stats"),
    )
