"""reading.py: a change record that cannot be read (written by raw SQL, another release,
a fault) is set aside, never raised: the refresh renders whole the sections it could
have touched and applies it, and the index served from the database reads them whole,
in a process that kept its sections before the record was written too."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from commands import outcome
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone
from factories import bulk_articles
from sitemap_xml import fetch
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource
from versioned_index import whole

from django_sitemapkit.changes import reading, records
from django_sitemapkit.models import Change

pytestmark = pytest.mark.django_db(transaction=True)
EARLIER = dt.datetime(2024, 5, 1, tzinfo=dt.timezone.utc)
#: Nested arrays, as long a text as a record's value may be: ``json.loads`` recurses
#: past Python's limit on them (3,000 are past it before Python 3.13).
DEEP = "[" * 10_000


class TenPerPage(ArticleSource):
    limit = 10


class ByTitle(ArticleSource):
    name = "by-title"
    ordering = ("title",)
    limit = 10


@pytest.fixture
def project(sources: Callable[..., None], out: Path) -> Iterator[None]:
    """Thirty articles in three shards of each section, built once, the changes recorded
    from now on and the index served from the database."""
    sources(TenPerPage, ByTitle, PagesSource)
    bulk_articles(30, updated_at=EARLIER)
    reading._told.clear()
    with override_settings(SITEMAPKIT_OUTPUT_DIR=str(out), SITEMAPKIT_CHANGES="record"):
        assert outcome("build_sitemaps")[2] == 0
        yield


def written(model: Any, row: Any, before: Any = None) -> int:
    """A record as raw SQL writes it, unchecked; its id."""
    table = Change._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO {table} ("model", "row", "before", "at") VALUES (%s, %s, %s, %s)'.replace(
                '"', "`" if connection.vendor == "mysql" else '"'
            ),
            [model, row, before, timezone.now()],
        )
    return int(Change.objects.order_by("-id").values_list("id", flat=True)[0])


def told(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("Change record")]


def files(directory: Path) -> dict[str, bytes]:
    """The section files of a set (the index's dates depend on its history)."""
    return {p.name: p.read_bytes() for p in sorted(directory.glob("sitemap-*.xml"))}


WHOLE = "the sections that read the model are rendered again whole."
POISONS: dict[str, tuple[Callable[[int], tuple[Any, Any, Any]], str]] = {
    "row": (lambda pk: ("testapp.article", DEEP, None), "a value nested 10,000 deep, past 8"),
    "before": (
        lambda pk: ("testapp.article", str(pk), DEEP),
        "a value nested 10,000 deep, past 8",
    ),
    "model": (lambda pk: (b"\x00\xff\xfe", None, None), "a value of type bytes"),
}


@pytest.mark.parametrize("poison", list(POISONS))
def test_a_record_that_cannot_be_read_renders_its_sections_whole_and_is_applied(
    project: None, out: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, poison: str
) -> None:
    if poison == "model" and connection.vendor != "sqlite":
        pytest.skip("only SQLite stores bytes in a text column")
    client = Client()
    # A process that kept the index's sections before the record was written.
    assert fetch(client, "/sitemap.xml")[0] == 200
    article = Article.objects.order_by("pk")[15]
    article.slug = "renamed"
    article.save()
    make, wrong = POISONS[poison]
    id_ = written(*make(article.pk))
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    assert body == whole(client)
    stdout, stderr, code = outcome("build_sitemaps", changed=True)
    assert (stderr, code) == ("", 0)
    # Every shard of the sections of articles rendered, the static pages' none.
    assert [
        line.split(" (")[0] for line in stdout.splitlines() if "shard(s) rendered (" in line
    ] == [
        "articles: 30 URLs in 3 files, 3 of 3 shard(s) rendered",
        "by-title: 30 URLs in 3 files, 3 of 3 shard(s) rendered",
        "pages: 2 URLs in 1 file, 0 of 1 shard(s) rendered",
    ]
    assert records.pending(10).ids == []
    assert stdout.splitlines()[-1] == "Applied 2 change record(s)."
    if poison == "model":
        message = (
            f"Change record {id_} names no model ({wrong}): every section that reads a model "
            "is rendered again whole."
        )
    else:
        message = f"Change record {id_} of 'testapp.article' cannot be read ({wrong}): {WHOLE}"
    # Read by the index and by the refresh, told once.
    assert told(caplog) == [message]
    assert outcome("build_sitemaps", output=str(tmp_path / "full"))[2] == 0
    assert files(out) == files(tmp_path / "full")
    assert "/articles/renamed/" in (out / "sitemap-articles-2.xml").read_text()
    assert fetch(client, "/sitemap.xml")[0] == 200


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("[" * 9 + "]" * 9, "a value nested 9 deep, past 8"),
        ('"' + "x" * 10_001 + '"', "a value of 10,003 characters, past 10,000"),
        ("[1", "Expecting ',' delimiter: line 1 column 3 (char 2)"),
    ],
)
def test_a_row_is_measured_before_it_is_decoded(text: str, wrong: str) -> None:
    with pytest.raises(ValueError, match=re.escape(wrong)) as raised:
        reading.decoded(text)
    assert str(raised.value) == wrong


def test_brackets_in_strings_are_not_nesting() -> None:
    text = '["' + "[" * 100 + '\\"' + "{" * 100 + '"]'
    assert reading.decoded(text) == ["[" * 100 + '"' + "{" * 100]
