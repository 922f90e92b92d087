"""A shard job and its result as plain JSON, and what a worker refuses to read."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid

import pytest

from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.build.planning import ShardJob
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.distributed.jobs import (
    ShardTask,
    Worker,
    from_payload,
    from_result,
    result_payload,
    to_payload,
)
from django_sitemapkit.exceptions import BuildError

LOW = (dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone.utc), decimal.Decimal("1.50"), 7)
HIGH = (dt.date(2025, 1, 2), uuid.UUID("12345678-1234-5678-1234-567812345678"), "z")
TASK = ShardTask(
    build="20261124T000000Z-0a1b2c3d",
    site="www",
    storage="sitemaps",
    staging="www/.sitemapkit-staging/20261124T000000Z-0a1b2c3d/",
    job=ShardJob("articles", 4, LOW, HIGH, page=3),
    gzip=True,
    validate=True,
    section="aaaaaaaaaaaaaaaa",
    settings="bbbbbbbbbbbbbbbb",
)


def test_a_job_goes_through_json_with_its_typed_keys() -> None:
    payload = json.loads(json.dumps(to_payload(TASK)))
    assert payload["low"] == [
        {"datetime": "2024-05-01T12:30:00+00:00"},
        {"decimal": "1.50"},
        7,
    ]
    assert from_payload(payload) == TASK


def test_a_job_of_another_format_is_refused() -> None:
    payload = {**to_payload(TASK), "format": 2}
    with pytest.raises(BuildError) as raised:
        from_payload(payload)
    assert str(raised.value) == (
        "This worker reads shard jobs of format 1, and was sent one of format 2: run the same "
        "version of django-sitemapkit on the coordinator and the workers."
    )


def test_a_job_missing_a_field_is_refused() -> None:
    payload = to_payload(TASK)
    del payload["storage"]
    with pytest.raises(BuildError) as raised:
        from_payload(payload)
    assert str(raised.value) == "A shard job that cannot be read (KeyError: 'storage')."


RENDERED = RenderedShard(
    TASK.job,
    files=[ManifestFile(".shard-4-1.xml", 50, "2024-05-01T12:30:00+00:00", 8160, 371, "ab" * 32)],
    rows=51,
    skipped=1,
    seconds=0.25,
)
WORKER = Worker("worker-2", 4242, 100.0, 100.5, 90 * 2**20)


def test_a_result_goes_through_json() -> None:
    stats = {"rows": 51, "lastmod": {"datetime": "2024-05-01T12:30:00+00:00"}, "key_sum": 9}
    payload = json.loads(json.dumps(result_payload(TASK, RENDERED, WORKER, stats)))
    result = from_result(TASK, payload)
    assert (result.rendered, result.worker, result.stats) == (RENDERED, WORKER, stats)


def test_the_result_of_another_job_is_refused() -> None:
    other = ShardTask(**{**TASK.__dict__, "job": ShardJob("articles", 5, None, None)})
    payload = result_payload(other, RENDERED, WORKER, None)
    with pytest.raises(BuildError) as raised:
        from_result(TASK, payload)
    assert str(raised.value) == (
        "The result of the shard of section 'articles' from page 3 (rows from key "
        f"{LOW!r}) is the result of another job (build '20261124T000000Z-0a1b2c3d', shard 5)."
    )
