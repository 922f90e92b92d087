"""A shard job and its result as plain JSON, and what a worker refuses to read."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

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
from django_sitemapkit.distributed.signing import Kind, signed
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
    urls="cccccccccccccccc",
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
    payload = {**to_payload(TASK), "format": 1}
    with pytest.raises(BuildError) as raised:
        from_payload(payload)
    assert str(raised.value) == (
        "This worker reads shard jobs of format 2, and was sent one of format 1: run the same "
        "version of django-sitemapkit on the coordinator and the workers."
    )


def signed_again(payload: dict[str, Any], kind: Kind) -> dict[str, Any]:
    """``payload`` signed as it now is: what a coordinator or a worker would send."""
    return signed({key: value for key, value in payload.items() if key != "signature"}, kind)


def test_a_job_missing_a_field_is_refused() -> None:
    payload = to_payload(TASK)
    del payload["storage"]
    with pytest.raises(BuildError) as raised:
        from_payload(signed_again(payload, "job"))
    assert str(raised.value) == "A shard job that cannot be read (KeyError: 'storage')."


@pytest.mark.parametrize(
    "change",
    [
        {"low": None},
        {"site": "shop"},
        {"number": 0},
        {"names": ["sitemap-articles-1.xml"]},
        {"signature": "0" * 43},
    ],
    ids=["range", "site", "number", "names", "signature"],
)
def test_a_job_no_coordinator_signed_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(BuildError) as raised:
        from_payload({**to_payload(TASK), **change})
    assert str(raised.value) == (
        "This worker refuses a shard job that no coordinator of this project signed: its "
        "signature does not match SECRET_KEY. Was it sent by something else than "
        "build_sitemaps, or by a coordinator with another SECRET_KEY? Deploy the same settings "
        "to the coordinator and the workers."
    )


def test_a_job_signed_with_another_secret_key_is_refused() -> None:
    with override_settings(SECRET_KEY="another " * 8):
        payload = to_payload(TASK)
    with pytest.raises(BuildError, match="signature does not match SECRET_KEY"):
        from_payload(payload)
    with override_settings(SECRET_KEY="another " * 8, SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]):
        assert from_payload(to_payload(TASK)) == TASK


RENDERED = RenderedShard(
    TASK.job,
    files=[
        ManifestFile(
            ".shard-4-1.xml", 50, "2024-05-01T12:30:00+00:00", 8160, 371, "ab" * 32, "cd" * 32
        )
    ],
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


def file_at(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda payload: payload["files"][0].__setitem__(key, value)


def at(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda payload: payload.__setitem__(key, value)


EVIL = "</lastmod></sitemap><sitemap><loc>https://evil.example/x</loc><lastmod>2024-05-01"
WHOLE = "a whole number from 0 to 9,223,372,036,854,775,807"
LASTMOD = "a lastmod as a build writes it (YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00)"
FORGED: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("newest-markup", file_at("newest", EVIL), f"files[0].newest is {EVIL!r:.79}…, not {LASTMOD}"),
    ("newest-garbage", file_at("newest", "\x00"), f"files[0].newest is '\\x00', not {LASTMOD}"),
    (
        "newest-naive",
        file_at("newest", "2024-05-01T12:30:00+02:00"),
        f"files[0].newest is '2024-05-01T12:30:00+02:00', not {LASTMOD}",
    ),
    (
        "another-name",
        file_at("name", "sitemap.xml"),
        "files[0].name is 'sitemap.xml', not '.shard-4-1.xml'",
    ),
    (
        "a-path",
        file_at("name", "../../sitemap-articles-1.xml"),
        "files[0].name is '../../sitemap-articles-1.xml', not '.shard-4-1.xml'",
    ),
    (
        "urls-a-string",
        file_at("urls", "50"),
        "files[0].urls is '50', not a whole number from 1 to 50,000",
    ),
    (
        "urls-too-many",
        file_at("urls", 50_001),
        "files[0].urls is 50001, not a whole number from 1 to 50,000",
    ),
    (
        "size-negative",
        file_at("size", -1),
        "files[0].size is -1, not a whole number from 1 to 52,428,800",
    ),
    (
        "sha256-short",
        file_at("sha256", "ab"),
        "files[0].sha256 is 'ab', not a SHA-256 in hexadecimal",
    ),
    (
        "no-gzip-sibling",
        lambda payload: payload["files"][0].update(gzip_size=None, gzip_sha256=None),
        "files[0].gzip_size is None, not the size of a gzip sibling",
    ),
    (
        "a-key-more",
        file_at("mode", 0o777),
        "files[0] has the keys ['gzip_sha256', 'gzip_size', 'mode', 'name', 'newest', "
        "'sha256', 'size', 'urls'], not ['gzip_sha256', 'gzip_size', 'name', 'newest', "
        "'sha256', 'size', 'urls']",
    ),
    ("rows-a-float", at("rows", 51.0), f"rows is 51.0, not {WHOLE}"),
    ("skipped-negative", at("skipped", -1), f"skipped is -1, not {WHOLE}"),
    ("seconds-nan", at("seconds", math.nan), "seconds is nan, not a number of seconds"),
    (
        "stats-of-another-arity",
        at("stats", {"rows": 51, "lastmod": None}),
        "stats has the keys ['lastmod', 'rows'], not ['key_sum', 'lastmod', 'rows']",
    ),
    (
        "stats-lastmod-garbage",
        at("stats", {"rows": 51, "lastmod": {"datetime": "soon"}, "key_sum": 9}),
        "stats.lastmod is {'datetime': 'soon'}, not a key value as a build writes it",
    ),
    (
        "worker-host-a-number",
        lambda payload: payload["worker"].__setitem__("host", 7),
        "worker.host is 7, not a host name",
    ),
]


@pytest.mark.parametrize(
    ("forge", "reason"), [case[1:] for case in FORGED], ids=[c[0] for c in FORGED]
)
def test_a_result_is_refused_unless_a_worker_could_have_written_it(
    forge: Callable[[dict[str, Any]], None], reason: str
) -> None:
    payload = json.loads(json.dumps(result_payload(TASK, RENDERED, WORKER, None)))
    forge(payload)
    with pytest.raises(BuildError) as raised:
        from_result(TASK, signed_again(payload, "result"))
    assert str(raised.value) == (
        f"The result of the shard of section 'articles' from page 3 (rows from key {LOW!r}) is "
        f"refused: {reason}. Workers write no such result: is something else writing to the "
        "result backend?"
    )


def test_a_result_no_worker_signed_is_refused() -> None:
    payload = json.loads(json.dumps(result_payload(TASK, RENDERED, WORKER, None)))
    payload["files"][0]["newest"] = EVIL
    with pytest.raises(BuildError) as raised:
        from_result(TASK, payload)
    assert str(raised.value) == (
        f"The result of the shard of section 'articles' from page 3 (rows from key {LOW!r}) is "
        "refused: its signature does not match SECRET_KEY. Workers sign their results: is "
        "something else writing to the result backend, or do the workers run with another "
        "SECRET_KEY?"
    )


def test_a_result_names_the_files_as_the_job_placed_or_staged_them() -> None:
    task = ShardTask(**{**TASK.__dict__, "names": ("sitemap-articles-9.xml",)})
    placed = RenderedShard(
        TASK.job, [ManifestFile(**{**RENDERED.files[0].__dict__, "name": "sitemap-articles-9.xml"})]
    )
    for rendered in (placed, RENDERED):
        payload = json.loads(json.dumps(result_payload(task, rendered, WORKER, None)))
        assert from_result(task, payload).rendered == rendered
    with pytest.raises(BuildError, match=r"files\[0\]\.name is 'sitemap-articles-9\.xml', not "):
        from_result(TASK, result_payload(TASK, placed, WORKER, None))


def test_a_job_whose_key_is_not_one_a_build_writes_is_refused() -> None:
    payload = {**to_payload(TASK), "low": [{"decimal": "NaN"}]}
    with pytest.raises(BuildError) as raised:
        from_payload(signed_again(payload, "job"))
    assert str(raised.value) == (
        "A shard job that cannot be read (Invalid: low[0] is {'decimal': 'NaN'}, not a key "
        "value as a build writes it)."
    )
