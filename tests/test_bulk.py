"""sources/bulk.py: a chunk of raw rows written a column at a time gives exactly the
lines, lastmods, skips and messages of the row-by-row loop, whatever the rows hold;
and only the sections whose every check it can make take it."""

from __future__ import annotations

import datetime as dt
import logging
import re
import tempfile
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from testapp.models import Article
from testapp.sitemaps import ArticleSource

from django_sitemapkit import Field, InvalidEntry, SitemapSource
from django_sitemapkit.encoding.encoder import Lines
from django_sitemapkit.sites.robots_txt import forget
from django_sitemapkit.sources.bulk import UTC_TEXT_COLUMNS, BulkLines, Column
from django_sitemapkit.sources.plan import Plan, compile_plan
from django_sitemapkit.sources.rows import LASTMOD_TEXT, RowShape
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.sources.writer import Writer
from django_sitemapkit.values import Horizon

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
UTC = dt.timezone.utc
NOW = dt.datetime(2026, 1, 1, tzinfo=UTC)
TAIL = "<changefreq>weekly</changefreq><priority>0.6</priority></url>\n"
TEXTS = UTC_TEXT_COLUMNS.get(connection.vendor)


def stored(text: str) -> str:
    """The database's text of the UTC time written as str() of a naive datetime."""
    if connection.vendor == "mysql":
        # DATETIME(6) as it is stored: always six digits.
        return text if "." in text else text + ".000000"
    if connection.vendor != "postgresql":
        return text
    # timestamptz's ISO output: the fraction's trailing zeros dropped, then the offset.
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "+00"


A_TEXT = stored("2024-05-01 10:00:00")


class ByPkSource(SitemapSource):
    name = "by-pk"
    queryset = Article.objects.all()
    url_name = "article-by-pk"
    url_kwargs = {"pk": "pk"}
    lastmod = "updated_at"


class InCategorySource(SitemapSource):
    name = "in-category"
    queryset = Article.objects.all()
    url_name = "article-in-category"
    url_kwargs = {"category": "category__slug", "slug": "slug"}
    changefreq = "daily"


class ByRegexSource(ArticleSource):
    name = "by-regex"
    url_name = "article-by-regex"


class ChangefreqFieldSource(ArticleSource):
    name = "changefreq-field"
    changefreq = Field("changefreq")  # type: ignore[assignment]


class LocatedSource(ArticleSource):
    name = "located"

    def location(self, row: Any) -> str:
        return "/x/"


def plan_of(source: type[SitemapSource]) -> tuple[Plan, dict[str, int]]:
    plan = compile_plan(source())
    assert plan.queryset is not None
    return plan, RowShape(plan.queryset.row_queryset).positions


def writer_of(plan: Plan) -> Writer:
    assert isinstance(plan.writer, Writer), plan.writer
    return plan.writer


def test_the_commonest_sections_take_it() -> None:
    plan, positions = plan_of(ArticleSource)
    assert positions == {"pk": 0, "slug": 1, LASTMOD_TEXT: 2}
    assert writer_of(plan).bulk == BulkLines(
        columns=(Column(1, str, re.compile("[-a-zA-Z0-9_~\n]+"), None),),
        pieces=(f"{SITE}/articles/", "/"),
        lastmod_position=2,
        lastmod_constant=None,
        tail=TAIL,
        lastmod_texts=TEXTS,
        split_texts=connection.vendor in ("sqlite", "mysql"),
    )
    plan, positions = plan_of(ByPkSource)
    assert writer_of(plan).bulk == BulkLines(
        columns=(Column(positions["pk"], int, None, None),),
        pieces=(f"{SITE}/by-id/", "/"),
        lastmod_position=positions[LASTMOD_TEXT],
        lastmod_constant=None,
        tail="</url>\n",
        lastmod_texts=TEXTS,
        split_texts=connection.vendor in ("sqlite", "mysql"),
    )
    plan, positions = plan_of(InCategorySource)
    assert writer_of(plan).bulk == BulkLines(
        columns=(
            Column(positions["category__slug"], str, re.compile("[-a-zA-Z0-9_~\n]+"), None),
            Column(positions["slug"], str, re.compile("[-a-zA-Z0-9_~\n]+"), None),
        ),
        pieces=(f"{SITE}/c/", "/", "/"),
        lastmod_position=None,
        lastmod_constant=None,
        tail="<changefreq>daily</changefreq></url>\n",
    )


@pytest.mark.parametrize(
    "source",
    [ByRegexSource, ChangefreqFieldSource, LocatedSource],
    ids=["re_path, no template", "a changefreq per row", "location() per row"],
)
def test_a_section_with_a_check_per_row_does_not(source: type[SitemapSource]) -> None:
    plan = compile_plan(source())
    assert isinstance(plan.writer, Writer)
    assert plan.writer.bulk is None


def test_a_canonical_compared_per_row_turns_it_off() -> None:
    class Compared(ArticleSource):
        # <str:slug> is percent-encoded by reverse(): canonical.py compares each row.
        name = "compared"
        canonical = "canonical_url"

    assert writer_of(compile_plan(Compared())).bulk is None


def test_robots_txt_s_rules_keep_it(tmp_path: Path) -> None:
    """Under "exclude" each chunk is judged in bulk, by the path after /articles/."""
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /articles/b/\n")
    with override_settings(SITEMAPKIT_ROBOTS="exclude", SITEMAPKIT_ROBOTS_FILE=robots):
        forget()
        plan, _ = plan_of(ArticleSource)
        bulk = writer_of(plan).bulk
        assert bulk is not None
        assert bulk.robots is not None
        assert bulk.robots.tails == ("/",)
        refused: list[tuple[Any, str]] = []
        found = bulk(
            [(1, "a", A_TEXT), (2, "b", A_TEXT)],
            Horizon(NOW),
            lambda row, why: refused.append((row, why)),
        )
    forget()
    assert listed(found) == (
        [f"<url><loc>{SITE}/articles/a/</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod>" + TAIL],
        ["2024-05-01T10:00:00+00:00"],
    )
    assert refused == [
        (
            (2, "b", A_TEXT),
            f"robots.txt disallows '{SITE}/articles/b/' for Googlebot (Disallow: /articles/b/, "
            "line 2)",
        )
    ]


# -- the same outcome as the row-by-row loop, whatever the rows hold ---------------------

SAFE_SLUG = st.text("abcXYZ019-_~", min_size=1, max_size=12)
SLUG = st.one_of(
    SAFE_SLUG,
    SAFE_SLUG,
    st.text(max_size=12),
    st.sampled_from([".", "..", "a.b", "a&b", "a/b", "é", "~", "x" * 2100, "", " ", "a\nb", "\n"]),
    st.none(),
    st.integers(-5, 5),
)
NAIVE = st.datetimes(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31)).map(str)
CANONICAL = NAIVE.map(stored)
LASTMOD = st.one_of(
    CANONICAL,
    CANONICAL,
    # The other database's text: SQLite's on PostgreSQL, PostgreSQL's on SQLite.
    NAIVE.map(lambda text: text + "+00"),
    NAIVE,
    st.sampled_from(
        [
            "2024-02-29 10:00:00",
            "2023-02-29 10:00:00",
            "2024-05-01T10:00:00",
            "2024-05-01 10:00:00.5",
            "2024-05-01 24:00:00",
            "0000-01-01 00:00:00",
            "2024-05-01",
            "2026-01-01 00:04:59",
            "2026-01-01 00:05:01",
            "9999-12-31 23:59:59.999999",
            "2024-05-01 10:00:00+02",
            "2024-05-01 10:00:00.5+00",
            "0044-03-15 12:00:00+00 BC",
            "12000-01-01 00:00:00+00",
            "infinity",
            "yesterday",
        ]
    ),
    st.text(max_size=30),
    st.none(),
)


def outcome(writer: Writer, chunk: list[Any], strict: bool) -> tuple[Any, ...]:
    """What ``writer`` gives for ``chunk``: its lines, or the error, and what it logged."""
    tally = Tally()
    handler = Recorder()
    logger = logging.getLogger("django_sitemapkit")
    logger.addHandler(handler)
    try:
        with override_settings(SITEMAPKIT_STRICT=strict):
            lines, lastmods = replace(writer, strict=strict).lines(chunk, tally)
            found: Any = (lines, list(lastmods))
    except InvalidEntry as exc:
        found = str(exc)
    finally:
        logger.removeHandler(handler)
    return found, handler.messages, tally


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.one_of(
        # Chunks of valid rows (dates in the future too), then of anything.
        st.lists(st.tuples(SAFE_SLUG, CANONICAL), min_size=1, max_size=8),
        st.lists(st.tuples(SLUG, LASTMOD), min_size=1, max_size=8),
    ),
    strict=st.booleans(),
)
@example(
    rows=[("a-b", A_TEXT), ("c", stored("2024-05-01 10:00:00.123456"))],
    strict=False,
)
# Every text of SQLite's one length, then of its other (split out in C, not sliced).
@example(
    rows=[("a", stored("2024-05-01 10:00:00.5")), ("b", stored("2024-05-02 11:00:00.123456"))],
    strict=False,
)
@example(rows=[("a", A_TEXT), ("b", stored("2024-05-02 11:00:01"))], strict=False)
# Each check of the bulk path, failed by one row of a chunk it would otherwise take.
@example(rows=[("a", A_TEXT), ("b", stored("2026-01-01 00:05:01"))], strict=False)
@example(
    rows=[("a", A_TEXT), ("x" * 2100, A_TEXT)],
    strict=False,
)
@example(rows=[("a", A_TEXT), ("..", A_TEXT)], strict=False)
@example(rows=[("a", A_TEXT), ("b", stored("2023-02-29 10:00:00"))], strict=True)
@example(rows=[("a", A_TEXT), ("b", None)], strict=False)
@example(rows=[("a", A_TEXT), ("", A_TEXT), ("b", A_TEXT)], strict=False)
@example(rows=[("a\nb", A_TEXT)], strict=False)
@example(rows=[("a", A_TEXT), ("", A_TEXT)], strict=False)
def test_any_chunk_gives_the_row_by_row_loop_s_outcome(
    rows: list[tuple[Any, Any]], strict: bool
) -> None:
    plan, positions = plan_of(ArticleSource)
    writer = replace(writer_of(plan), horizon=Horizon(NOW))
    chunk = []
    for pk, (slug, lastmod) in enumerate(rows, start=1):
        row: list[Any] = [None] * len(positions)
        row[positions["pk"]], row[positions["slug"]] = pk, slug
        row[positions[LASTMOD_TEXT]] = lastmod
        chunk.append(tuple(row))
    if TEXTS is None:
        pytest.skip(f"{connection.vendor} has no lastmod read as text")
    with plan.context():
        assert outcome(writer, chunk, strict) == outcome(replace(writer, bulk=None), chunk, strict)


# Rules on the articles' paths: plain, straddling "/articles/" and its slugs, "$".
ROBOTS_PATTERN = st.lists(
    st.sampled_from(
        ["/", "articles", "/art", "icles/", "a", "b", "-", "~", "%7E", "%61", "*", "$"]
    ),
    min_size=1,
    max_size=5,
).map(lambda pieces: "/" + "".join(pieces))
ROBOTS_LINES = st.lists(
    st.tuples(st.sampled_from(["*", "Bingbot"]), st.booleans(), ROBOTS_PATTERN), max_size=8
)


def robots_txt(lines: list[tuple[str, bool, str]]) -> str:
    groups: dict[str, list[str]] = {}
    for agent, allow, pattern in lines:
        groups.setdefault(agent, []).append(f"{'Allow' if allow else 'Disallow'}: {pattern}")
    return "".join(f"User-agent: {a}\n" + "\n".join(r) + "\n\n" for a, r in groups.items())


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=ROBOTS_LINES,
    slugs=st.lists(st.text("ab-~", min_size=1, max_size=4), min_size=1, max_size=8),
    mode=st.sampled_from(["exclude", "warn"]),
)
@example(
    lines=[("*", False, "/articles/a-*$"), ("Bingbot", False, "/*~")],
    slugs=["a-", "b~", "a"],
    mode="exclude",
)
def test_robots_txt_s_rules_in_bulk_give_the_row_by_row_loop_s_outcome(
    lines: list[tuple[str, bool, str]], slugs: list[str], mode: str
) -> None:
    """The bulk path takes the chunk, and leaves out (or, for "warn", lists) the same
    rows with the same messages and counts as the loop whose locator refuses them."""
    with tempfile.TemporaryDirectory() as directory:
        robots = Path(directory) / "robots.txt"
        robots.write_text(robots_txt(lines))
        with override_settings(SITEMAPKIT_ROBOTS=mode, SITEMAPKIT_ROBOTS_FILE=robots):
            forget()
            plan, _ = plan_of(ArticleSource)
            writer = replace(writer_of(plan), horizon=Horizon(NOW))
            chunk = [(pk, slug, A_TEXT) for pk, slug in enumerate(slugs, start=1)]
            assert writer.bulk is not None
            with plan.context():
                assert writer.bulk(chunk, writer.horizon, lambda row, why: None) is not None
                bulk = outcome(writer, chunk, strict=False)
                loop = outcome(replace(writer, bulk=None), chunk, strict=False)
    forget()
    assert bulk == loop


def listed(found: Lines | None) -> tuple[list[str], list[str | None]] | None:
    """Lines and lastmods as lists (bulk.py gives lastmods sliced when read)."""
    return None if found is None else (found[0], list(found[1]))


def test_a_chunk_of_valid_rows_is_written_in_bulk() -> None:
    plan, _ = plan_of(ArticleSource)
    writer = replace(writer_of(plan), horizon=Horizon(NOW))
    assert writer.bulk is not None
    texts = [A_TEXT, stored("2025-12-31 23:59:59.999999")]
    chunk = [(1, "first~1", texts[0]), (2, "b", texts[1])]
    lines = [
        f"<url><loc>{SITE}/articles/first~1/</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod>"
        + TAIL,
        f"<url><loc>{SITE}/articles/b/</loc><lastmod>2025-12-31T23:59:59+00:00</lastmod>" + TAIL,
    ]
    lastmods = ["2024-05-01T10:00:00+00:00", "2025-12-31T23:59:59+00:00"]
    assert listed(writer.bulk(chunk, writer.horizon)) == (lines, lastmods)
    assert listed(writer.lines(chunk)) == replace(writer, bulk=None).lines(chunk)


@pytest.mark.parametrize(
    ("pk", "expected"),
    [(7, f"{SITE}/by-id/7/"), (-7, None), (True, None)],
    ids=["an int", "a negative int: the converter's", "a bool: reverse()'s"],
)
def test_an_int_argument_is_taken_only_as_an_int(pk: Any, expected: str | None) -> None:
    plan, positions = plan_of(ByPkSource)
    writer = writer_of(plan)
    assert writer.bulk is not None
    row: list[Any] = [None] * len(positions)
    row[positions["pk"]], row[positions[LASTMOD_TEXT]] = pk, A_TEXT
    found = listed(writer.bulk([tuple(row)], Horizon(NOW)))
    if expected is None:
        assert found is None
    else:
        line = f"<url><loc>{expected}</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod></url>\n"
        assert found == ([line], ["2024-05-01T10:00:00+00:00"])


def test_a_uuid_argument_is_its_str() -> None:
    column = Column(0, uuid.UUID, None, 36)
    value = uuid.UUID("12345678-9abc-4def-8123-456789abcdef")
    assert column.checked([(value,)]) == [value]
    assert column.checked([(str(value),)]) is None
