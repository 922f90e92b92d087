"""Distributed builds in this process: the coordinator, the jobs and the worker,
through the Tasks framework's own immediate backend (each task runs as it is
enqueued) and Django's in-memory storage.

The real engines, with their workers and servers, are in
tests/test_distributed_workers.py; here is what does not need them: that the
set is the local build's, byte for byte, how a failing shard fails the build,
and what the command refuses.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot, without_times
from django.core.files.base import ContentFile
from django.core.files.storage import InMemoryStorage, storages
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import set_urlconf
from factories import bulk_articles
from s3_objects import requests_of
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.build.fingerprints import section_fingerprint, settings_fingerprint
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.planning import ShardJob
from django_sitemapkit.build.routes import urls_fingerprint
from django_sitemapkit.distributed.jobs import ShardTask, to_payload
from django_sitemapkit.distributed.staging import STAGING_DIRECTORY
from django_sitemapkit.distributed.worker import run_shard
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.hosts import default_site
from django_sitemapkit.sources.plan import compile_plan

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]

try:
    import django.tasks  # noqa: F401

    TASKS_PACKAGE = "django.tasks"
except ImportError:  # Django 5.2: the backport
    TASKS_PACKAGE = "django_tasks"
IMMEDIATE = {"default": {"BACKEND": f"{TASKS_PACKAGE}.backends.immediate.ImmediateBackend"}}
DUMMY = {"default": {"BACKEND": f"{TASKS_PACKAGE}.backends.dummy.DummyBackend"}}
UPDATED = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)


class TenPerPage(ArticleSource):
    limit = 10


@pytest.fixture
def storage() -> Iterator[InMemoryStorage]:
    """A storage alias ``"sitemaps"`` (in memory) that the build publishes to."""
    with override_settings(
        STORAGES={
            "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
            "sitemaps": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
        },
        SITEMAPKIT_STORAGE="sitemaps",
        TASKS=IMMEDIATE,
    ):
        found = storages["sitemaps"]
        assert isinstance(found, InMemoryStorage)
        yield found


def stored(storage: InMemoryStorage, directory: str = "") -> dict[str, bytes]:
    """Every file in ``directory`` of the storage, and below it, by its name there."""
    folders, names = storage.listdir(directory)
    found = {}
    for name in names:
        with storage.open(f"{directory}{name}") as file:
            found[f"{directory}{name}"] = file.read()
    for folder in folders:
        found.update(stored(storage, f"{directory}{folder}/"))
    return found


def via_tasks(**options: Any) -> None:
    call_command("build_sitemaps", via="tasks", verbosity=0, **options)


def test_the_set_is_the_local_builds_byte_for_byte(
    sources: Sources, storage: InMemoryStorage, tmp_path: Path
) -> None:
    sources(TenPerPage, PagesSource)
    bulk_articles(35, updated_at=UPDATED)
    via_tasks()
    with override_settings(SITEMAPKIT_STORAGE=None):
        call_command("build_sitemaps", output=str(tmp_path / "local"), verbosity=0)
    local = snapshot(tmp_path / "local", built=False)
    published = without_times(stored(storage))
    assert published == local
    assert sorted(local) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap-articles-3.xml",
        "sitemap-articles-3.xml.gz",
        "sitemap-articles-4.xml",
        "sitemap-articles-4.xml.gz",
        "sitemap-pages-1.xml",
        "sitemap-pages-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemapkit-manifest.json",
    ]
    # What the workers staged is gone once the set is published.
    assert [name for name in stored(storage) if name.startswith(STAGING_DIRECTORY)] == []


def test_the_views_serve_the_set_from_the_storage(
    sources: Sources, storage: InMemoryStorage
) -> None:
    sources(TenPerPage, PagesSource)
    bulk_articles(12, updated_at=UPDATED)
    via_tasks()
    with override_settings(SITEMAPKIT_SERVE="files"):
        page = Client().get("/sitemap-articles-2.xml")
    assert page.status_code == 200
    assert page.getvalue() == stored(storage)["sitemap-articles-2.xml"]


def test_a_rebuild_sends_only_the_shards_that_changed(
    sources: Sources, storage: InMemoryStorage
) -> None:
    sources(TenPerPage, PagesSource)
    rows = sorted(bulk_articles(30, updated_at=UPDATED), key=lambda row: row.pk)
    via_tasks()
    before = stored(storage)
    Article.objects.filter(pk=rows[15].pk).update(updated_at=UPDATED + dt.timedelta(days=1))
    out = call_command_output(via="tasks")
    after = stored(storage)
    changed = sorted(name for name in after if after[name] != before.get(name))
    assert changed == [
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemapkit-manifest.json",
    ]
    assert "articles: 30 URLs in 3 files, 1 of 3 shard(s) rendered" in out
    # The manifest records the stats the worker read with the rows it rendered.
    shards = json.loads(after["sitemapkit-manifest.json"])["shards"]
    assert [shard["stats"]["rows"] for shard in shards if shard["section"] == "articles"] == [
        10,
        10,
        10,
    ]


def call_command_output(**options: Any) -> str:
    from io import StringIO

    stdout = StringIO()
    call_command("build_sitemaps", stdout=stdout, verbosity=1, **options)
    return stdout.getvalue()


def test_a_shard_that_raises_fails_the_build_and_publishes_nothing(
    sources: Sources, storage: InMemoryStorage
) -> None:
    sources(TenPerPage, PagesSource)
    rows = sorted(bulk_articles(30, updated_at=UPDATED), key=lambda row: row.pk)
    via_tasks()
    before = stored(storage)
    # Strict mode raises on a row it would otherwise skip: one with no slug,
    # in the second shard. The third changes too: its worker stages its files,
    # which go with the build.
    Article.objects.filter(pk=rows[25].pk).update(updated_at=UPDATED + dt.timedelta(days=1))
    Article.objects.filter(pk=rows[14].pk).update(slug=None, updated_at=UPDATED + dt.timedelta(2))
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(CommandError) as raised:
        via_tasks()
    message = str(raised.value)
    assert message.startswith(
        f"The shard of section 'articles' from page 2 (rows from key ({rows[10].pk},)) failed on "
        "a worker of Django Tasks (backend 'default'): "
    ), message
    assert message.endswith(
        "Nothing was published: the files in storage 'sitemaps' are as they were."
    ), message
    assert stored(storage) == before


def test_the_worker_refuses_a_job_planned_with_other_code_or_settings(
    sources: Sources, storage: InMemoryStorage
) -> None:
    sources(TenPerPage)
    bulk_articles(3, updated_at=UPDATED)
    here = section_fingerprint(compile_plan(TenPerPage()))
    task = ShardTask(
        build="b1",
        site="default",
        storage="sitemaps",
        staging=".sitemapkit-staging/b1/",
        job=ShardJob("articles", 0, None, None),
        gzip=True,
        validate=False,
        section="0123456789abcdef",
        settings="0" * 16,
        urls=urls_fingerprint(compile_plan(TenPerPage())),
    )
    with pytest.raises(BuildError) as raised:
        run_shard(to_payload(task))
    assert str(raised.value) == (
        f"This worker ({socket.gethostname()}) would render the shard of section 'articles' "
        "from page 1 (rows from the section's start) with other code or settings than the "
        f"coordinator planned with (section fingerprint {here} here, 0123456789abcdef there): "
        "deploy the same code and settings to the coordinator and the workers."
    )
    assert stored(storage) == {}


@pytest.mark.parametrize(
    ("storage_alias", "staging"),
    [
        ("default", ".sitemapkit-staging/b1/"),
        ("sitemaps", "elsewhere/b1/"),
    ],
)
def test_the_worker_refuses_to_stage_where_its_settings_keep_no_files(
    sources: Sources, storage: InMemoryStorage, storage_alias: str, staging: str
) -> None:
    sources(TenPerPage)
    bulk_articles(3, updated_at=UPDATED)
    task = ShardTask(
        build="b1",
        site="default",
        storage=storage_alias,
        staging=staging,
        job=ShardJob("articles", 0, None, None),
        gzip=True,
        validate=False,
        section=section_fingerprint(compile_plan(TenPerPage())),
        settings=settings_fingerprint(default_site(), BuildOptions(gzip=True)),
        urls=urls_fingerprint(compile_plan(TenPerPage())),
    )
    with pytest.raises(BuildError) as raised:
        run_shard(to_payload(task))
    assert str(raised.value) == (
        f"This worker ({socket.gethostname()}) would stage the shard of section 'articles' "
        f"from page 1 (rows from the section's start) in storage {storage_alias!r} under "
        f"{staging!r}, but its settings keep the site's files in SITEMAPKIT_STORAGE "
        "'sitemaps', staged under '.sitemapkit-staging/': "
        "deploy the same settings to the coordinator and the workers."
    )
    assert stored(storage) == {}


@pytest.mark.parametrize(
    ("options", "settings", "message"),
    [
        (
            {"jobs": 2},
            {},
            "--jobs renders shards in processes of this machine and --via on the workers of "
            "tasks: choose one.",
        ),
        (
            {"output": "/tmp/elsewhere"},
            {},
            "A distributed build (--via) writes through SITEMAPKIT_STORAGE, which workers on "
            "other machines share, and not to a directory of this one (--output): set "
            "SITEMAPKIT_STORAGE to a storage every machine reaches (S3, say) and remove --output.",
        ),
        (
            {},
            {"SITEMAPKIT_OUTPUT_DIR": "/tmp/elsewhere"},
            "A distributed build (--via) writes through SITEMAPKIT_STORAGE, which workers on "
            "other machines share, and not to a directory of this one (SITEMAPKIT_OUTPUT_DIR): "
            "set SITEMAPKIT_STORAGE to a storage every machine reaches (S3, say) and remove "
            "SITEMAPKIT_OUTPUT_DIR.",
        ),
        (
            {},
            {"SITEMAPKIT_STORAGE": None},
            "A distributed build (--via) writes through SITEMAPKIT_STORAGE, which is not set: "
            "set it to the alias of a storage in STORAGES that every machine reaches (S3, say).",
        ),
        (
            {},
            {"SITEMAPKIT_TASK_BACKEND": "elsewhere"},
            "SITEMAPKIT_TASK_BACKEND is 'elsewhere', which is no backend of TASKS "
            "(The connection 'elsewhere' doesn't exist.); set it to one of "
            "the keys of TASKS. Nothing was published: the files in storage 'sitemaps' are as "
            "they were.",
        ),
        (
            # The dummy backend keeps its tasks and never runs them.
            {},
            {"TASKS": DUMMY, "SITEMAPKIT_BUILD_DEADLINE": dt.timedelta(seconds=0.5)},
            "3 of 3 shards were not done after SITEMAPKIT_BUILD_DEADLINE (0:00:00.500000), 3 of "
            "them never taken by a worker, the first the shard of section 'articles' from page 1 "
            "(rows from the section's start): are workers of Django Tasks (backend 'default') "
            "running, on this queue? Start more, or raise the deadline. Nothing was published: "
            "the files in storage 'sitemaps' are as they were.",
        ),
    ],
)
def test_what_a_distributed_build_refuses(
    sources: Sources,
    storage: InMemoryStorage,
    options: dict[str, Any],
    settings: dict[str, Any],
    message: str,
) -> None:
    sources(TenPerPage)
    bulk_articles(25, updated_at=UPDATED)
    with override_settings(**settings), pytest.raises(CommandError) as raised:
        via_tasks(**options)
    assert str(raised.value) == message
    assert stored(storage) == {}


def test_a_dry_run_plans_the_shards_and_sends_none(
    sources: Sources, storage: InMemoryStorage
) -> None:
    sources(TenPerPage)
    bulk_articles(25, updated_at=UPDATED)
    out = call_command_output(via="tasks", dry_run=True)
    assert out == (
        "Dry run: nothing is written. A build of storage 'sitemaps' would:\n"
        "  render every shard: there is no set built with these settings yet.\n"
        "  articles: render 3 of 3 shard(s): new files; new files; new files\n"
        "A shard's files keep their bytes, modification time and ETag when they come out the "
        "same.\n"
    )
    assert stored(storage) == {}


@pytest.fixture
def task_signals() -> Iterator[Any]:
    """The Tasks framework's signals module, its receivers disconnected after the test."""
    try:
        from django.tasks import signals
    except ImportError:  # Django 5.2: the backport
        from django_tasks import signals  # type: ignore[no-redef,unused-ignore]
    connected: list[tuple[Any, Any]] = []

    def connect(signal: Any, receiver: Any) -> None:
        signal.connect(receiver, weak=False)
        connected.append((signal, receiver))

    yield connect, signals
    for signal, receiver in connected:
        signal.disconnect(receiver)


def test_a_worker_with_another_urlconf_is_refused(
    sources: Sources, storage: InMemoryStorage, task_signals: Any
) -> None:
    # The immediate backend runs each shard in this thread, as enqueued: its
    # URLconf is switched for the task, as another worker's deployment would.
    connect, signals = task_signals
    connect(signals.task_started, lambda **kwargs: set_urlconf("testapp.urls_moved"))
    connect(signals.task_finished, lambda **kwargs: set_urlconf(None))
    sources(TenPerPage)
    bulk_articles(3, updated_at=UPDATED)
    plan = compile_plan(TenPerPage())
    there = urls_fingerprint(plan)
    set_urlconf("testapp.urls_moved")
    try:
        here = urls_fingerprint(plan)
    finally:
        set_urlconf(None)
    with pytest.raises(CommandError) as raised:
        via_tasks()
    assert str(raised.value) == (
        "The shard of section 'articles' from page 1 (rows from the section's start) failed on "
        f"a worker of Django Tasks (backend 'default'): django_sitemapkit.exceptions.BuildError: "
        f"This worker "
        f"({socket.gethostname()}) would render the shard of section 'articles' from page 1 "
        "(rows from the section's start) with other URL patterns (ROOT_URLCONF and what it "
        f"includes) than the coordinator planned with (urls fingerprint {here} here, {there} "
        "there): deploy the same URLconf to the coordinator and the workers. Nothing was "
        "published: the files in storage 'sitemaps' are as they were."
    )
    assert stored(storage) == {}


def test_a_job_forged_on_the_broker_is_refused_by_the_worker(
    sources: Sources, storage: InMemoryStorage
) -> None:
    # A job of this build, its number changed: it would stage another range's
    # rows under that shard's names.
    sources(TenPerPage)
    bulk_articles(25, updated_at=UPDATED)
    plan = compile_plan(TenPerPage())
    task = ShardTask(
        build="b1",
        site="default",
        storage="sitemaps",
        staging=".sitemapkit-staging/b1/",
        job=ShardJob("articles", 1, None, None),
        gzip=True,
        validate=False,
        section=section_fingerprint(plan),
        settings=settings_fingerprint(default_site(), BuildOptions(gzip=True)),
        urls=urls_fingerprint(plan),
    )
    storage.save(".sitemapkit-staging/b1/build.json", ContentFile(b"{}"))
    with pytest.raises(BuildError) as raised:
        run_shard({**to_payload(task), "number": 0})
    assert str(raised.value).startswith(
        "This worker refuses a shard job that no coordinator of this project signed"
    )
    assert list(stored(storage)) == [".sitemapkit-staging/b1/build.json"]


def test_a_file_changed_after_its_worker_reported_it_fails_the_build(
    sources: Sources, storage: InMemoryStorage, task_signals: Any
) -> None:
    # Once the second shard is staged, something else writes under its name.
    connect, signals = task_signals

    def overwrite(task_result: Any, **kwargs: Any) -> None:
        payload = task_result.args[0]
        if payload["number"] == 1:
            name = payload["staging"] + ".shard-1-1.xml.gz"
            storage.delete(name)
            storage.save(name, ContentFile(b"other"))

    connect(signals.task_finished, overwrite)
    sources(TenPerPage)
    bulk_articles(25, updated_at=UPDATED)
    with pytest.raises(CommandError) as raised:
        via_tasks()
    assert re.fullmatch(
        r"storage 'sitemaps' holds \.sitemapkit-staging/\S+/\.shard-1-1\.xml\.gz of the shard of "
        r"section 'articles' from page 2 \(rows from key \(\d+,\)\) with other bytes than its "
        r"worker reported: 5 bytes, not \d+\. Something else wrote there since \(a worker of "
        r"an earlier build, or anything else that can write to the storage\); build again\. "
        r"Nothing was published: the files in storage 'sitemaps' are as they were\.",
        str(raised.value),
    ), str(raised.value)
    assert stored(storage) == {}


@pytest.fixture
def bucket(s3_bucket: dict[str, Any]) -> Iterator[Any]:
    """The S3 bucket of moto's server as ``SITEMAPKIT_STORAGE``: where a worker writes a
    new file under its name at once."""
    with override_settings(
        STORAGES={"sitemaps": s3_bucket}, SITEMAPKIT_STORAGE="sitemaps", TASKS=IMMEDIATE
    ):
        yield storages["sitemaps"]


def bucket_names(storage: Any) -> list[str]:
    return sorted(key.key for key in storage.bucket.objects.all())


@pytest.mark.slow
def test_new_files_written_in_place_go_with_a_build_that_fails(
    sources: Sources, bucket: Any
) -> None:
    # The third shard raises in strict mode: the first two have written their
    # new files under their names by then, which no index names.
    sources(TenPerPage)
    rows = sorted(bulk_articles(25, updated_at=UPDATED), key=lambda row: row.pk)
    Article.objects.filter(pk=rows[22].pk).update(slug=None)
    with override_settings(SITEMAPKIT_STRICT=True), pytest.raises(CommandError):
        via_tasks()
    assert bucket_names(bucket) == []
    # What a killed coordinator would have left: a new page no index names.
    Article.objects.filter(pk=rows[22].pk).update(slug="back")
    via_tasks()
    published = bucket_names(bucket)
    bucket.save("sitemap-articles-7.xml", ContentFile(b"left by a build that was killed"))
    Article.objects.filter(pk=rows[24].pk).update(updated_at=UPDATED + dt.timedelta(days=1))
    via_tasks()
    assert bucket_names(bucket) == published


@pytest.mark.slow
def test_a_first_build_into_s3_writes_each_page_once_and_reads_none_back(
    sources: Sources, bucket: Any, s3_server: Any, tmp_path: Path
) -> None:
    # No index names a new page yet: its worker writes it under its name at
    # once, never over an object; the coordinator checks it from the SHA-256
    # S3 keeps for it, without reading it; nothing is copied.
    sources(TenPerPage, PagesSource)
    bulk_articles(25, updated_at=UPDATED)
    with requests_of(bucket) as sent:
        via_tasks()
    pages = [
        f"sitemap-{name}.xml{suffix}"
        for name in ("articles-1", "articles-2", "articles-3", "pages-1")
        for suffix in ("", ".gz")
    ]
    puts = {request.key: request.headers for request in sent if request.method == "PUT"}
    assert {
        key: (puts[key]["If-None-Match"], "x-amz-checksum-sha256" in puts[key]) for key in pages
    } == dict.fromkeys(pages, ("*", True))
    assert [
        request.key for request in sent if request.method == "GET" and request.key in pages
    ] == []
    assert [request for request in sent if "x-amz-copy-source" in request.headers] == []
    assert sorted(key for key, _ in heads_of(sent) if key in pages) == sorted(pages)
    with override_settings(SITEMAPKIT_STORAGE=None):
        call_command("build_sitemaps", output=str(tmp_path / "local"), verbosity=0)
    published = {key: s3_object(bucket, key) for key in bucket_names(bucket)}
    assert without_times(published) == snapshot(tmp_path / "local", built=False)


def heads_of(sent: list[Any]) -> list[tuple[str, dict[str, str]]]:
    return [(request.key, request.headers) for request in sent if request.method == "HEAD"]


def s3_object(storage: Any, key: str) -> bytes:
    content: bytes = storage.bucket.Object(key).get()["Body"].read()
    return content
