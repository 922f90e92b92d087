"""Whatever the rows hold, every document is valid and holds exactly the valid entries.

Hypothesis generates rows with arbitrary values in every field that reaches
the output, stored in the database (read by the declarative, raw-row path)
or returned by per-row methods (any Python value: surrogates, controls,
foreign hosts, naive and aware datetimes from year 1 to 9999, NaN...). For
each data set the pages and the index are served by the views and written by
``build_sitemaps``; each document must validate against the official schema,
and be read back, by lxml and by a real consumer (ultimate-sitemap-parser),
to exactly the entries the oracle below calls valid, each without the
``changefreq`` or ``priority`` it calls invalid. Every other row must be
skipped with a warning naming its source and primary key, or raise in strict
mode.

The oracle is written from the protocol, not from the package: locations by
Django's own ``reverse()`` and RFC 3986's dot segments, dates by ``zoneinfo``,
numbers by ``Decimal``.
"""

from __future__ import annotations

import datetime as dt
import html
import logging
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import Client, override_settings
from django.urls import NoReverseMatch, reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sitemap_xml import Url, fetch, parse_index, parse_urlset
from testapp.models import Article
from usp.tree import sitemap_from_str

from django_sitemapkit import Field, InvalidEntry, SitemapSource
from django_sitemapkit.sources.unanswered import forget as forget_unanswered

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
UTC = dt.timezone.utc
PROJECT_ZONE = ZoneInfo("Europe/Paris")  # TIME_ZONE of tests/settings.py
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
Sources = Callable[..., None]
UNKNOWN = object()  # the oracle does not say whether such a location is valid

# Each example makes a few rows and a few requests against a real database:
# no deadline, and a function-scoped fixture (the database) is fine because
# every example runs in a savepoint of its own (see ``fresh_rows``).
PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# -- strategies --------------------------------------------------------------------------

# Text a database column can hold: no lone surrogate (neither driver encodes
# one), and no NUL on PostgreSQL, whose text types refuse it.
STORABLE = st.characters(
    exclude_categories=["Cs"],
    exclude_characters="\x00" if connection.vendor == "postgresql" else "",
)
# What a method may return: any code point, lone surrogates included.
ANY_TEXT = st.text(st.characters(), max_size=40)
# The characters XML 1.0 forbids or discourages, all of which must be escaped
# or refused: C0 and C1 controls, DEL, the non-characters U+FFFE and U+FFFF.
HOSTILE_CHARS = st.sampled_from(
    [chr(c) for c in [*range(1, 32), 0x7F, *range(0x80, 0xA0), 0xFFFE, 0xFFFF]]
    + ["&", "<", ">", '"', "'", "]]>", "%", "%2F", "/", "..", "\u202e", "\U0001f600"]
)


def long_text(alphabet: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Strings around the protocol's 2,048-character limit."""
    return st.builds(lambda c, n: c * n, alphabet, st.integers(1_000, 2_100))


STORED_SLUG = st.one_of(
    st.none(),
    st.text(STORABLE, max_size=30),
    st.lists(HOSTILE_CHARS, max_size=8).map("".join),
    long_text(STORABLE.filter(lambda c: c != "/")),
)
# Every instant from year 1 to 9999, in UTC as the database returns it
# (with USE_TZ, a naive value cannot be saved at all).
STORED_DATETIME = st.one_of(
    st.none(),
    st.datetimes(
        min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
)
STORED_CHANGEFREQ = st.one_of(
    st.none(),
    st.sampled_from(CHANGEFREQS),
    st.sampled_from(["Weekly", " daily", "weekly\n", "sometimes", ""]),
    st.text(STORABLE, max_size=20),
)
STORED_PRIORITY = st.one_of(
    st.none(),
    st.floats(0, 1),
    # MySQL's DOUBLE holds no infinity and no NaN (the driver refuses to send them).
    st.floats(allow_nan=connection.vendor != "mysql", allow_infinity=connection.vendor != "mysql"),
)

SAFE_PATH = st.from_regex(r"/[a-z0-9][a-z0-9/-]{0,30}", fullmatch=True)
# Locations a method could return that name another host, or no host, or
# smuggle one in: every one must be refused (the single-host rule).
FOREIGN_LOCATION = st.sampled_from(
    [
        "//evil.example/x",
        "https://evil.example/",
        "http://www.example.com/",  # another scheme
        "https://www.example.com:8443/",  # another port
        "https://www.example.com@evil.example/",
        "https://user:pw@www.example.com/",
        "https://www.example.com.evil.example/",
        "https:evil.example/x",
        "\\\\evil.example\\x",
        "javascript:alert(1)",
        "relative/path",
        "",
    ]
)
LOCATION = st.one_of(
    st.tuples(st.just("safe"), SAFE_PATH),
    st.tuples(st.just("foreign"), FOREIGN_LOCATION),
    st.tuples(st.just("any"), ANY_TEXT),
    st.tuples(st.just("any"), st.lists(HOSTILE_CHARS, max_size=8).map(lambda p: "/" + "".join(p))),
    st.tuples(st.just("any"), long_text(st.sampled_from("a/é%&\x01"))),
)
ANY_LASTMOD = st.one_of(
    st.none(),
    st.datetimes(),  # naive: read in the project's time zone
    st.datetimes(timezones=st.timezones()),
    st.dates(),
    st.text(max_size=30),
    st.integers(),
    st.floats(),
)
ANY_CHANGEFREQ = st.one_of(st.none(), st.sampled_from(CHANGEFREQS), ANY_TEXT, st.integers())
ANY_PRIORITY = st.one_of(
    st.none(),
    st.floats(0, 1),
    st.floats(),
    st.decimals(),
    st.integers(-2, 2),
    st.booleans(),
    st.text(max_size=5),
)


@dataclass(frozen=True)
class StoredRow:
    slug: str | None
    updated_at: dt.datetime | None
    changefreq: str | None
    priority: float | None


@dataclass(frozen=True)
class MethodRow:
    location: tuple[str, str]  # (kind, text)
    lastmod: Any
    changefreq: Any
    priority: Any


STORED_ROWS = st.lists(
    st.builds(StoredRow, STORED_SLUG, STORED_DATETIME, STORED_CHANGEFREQ, STORED_PRIORITY),
    min_size=1,
    max_size=8,
)
METHOD_ROWS = st.lists(
    st.builds(MethodRow, LOCATION, ANY_LASTMOD, ANY_CHANGEFREQ, ANY_PRIORITY),
    min_size=1,
    max_size=8,
)


# -- the sources under test --------------------------------------------------------------


class Declared(SitemapSource):
    """Every value from a column: rows are read raw from the cursor."""

    name = "declared"
    queryset = Article.objects.filter(title="declared")
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"
    changefreq = Field("changefreq")
    priority = Field("priority")


class Computed(SitemapSource):
    """Every value from a method, which may return anything at all."""

    name = "computed"
    queryset = Article.objects.filter(title="computed")
    generated: ClassVar[dict[int, MethodRow]] = {}

    def location(self, row: Any) -> str:
        text: str = self.generated[row["pk"]].location[1]
        return text

    def lastmod(self, row: Any) -> Any:
        return self.generated[row["pk"]].lastmod

    def changefreq(self, row: Any) -> Any:
        return self.generated[row["pk"]].changefreq

    def priority(self, row: Any) -> Any:
        return self.generated[row["pk"]].priority


# -- the oracle --------------------------------------------------------------------------


class Invalid(Exception):
    pass


@dataclass(frozen=True)
class Expected:
    pk: int
    loc: object  # the exact <loc>, None for a row that must be skipped, or UNKNOWN
    lastmod: dt.date | None
    changefreq: str | None
    priority: Decimal | None
    valid_values: bool  # lastmod is acceptable (changefreq and priority are left out if not)
    undated: bool = False  # listed without its lastmod, one in the future
    left_out: tuple[str, ...] = ()  # the optional values listed without: invalid


def in_future(value: dt.date) -> bool:
    """Later than a sitemap may say: a datetime more than five minutes past the clock, a
    date that no time zone (the first is UTC+14) has reached yet."""
    latest = dt.datetime.now(UTC) + dt.timedelta(minutes=5)
    if isinstance(value, dt.datetime):
        return value > latest
    return value > (latest + dt.timedelta(hours=14)).date()


def expected_lastmod(value: Any) -> dt.date | None:
    """The instant a lastmod stands for, in UTC to the second, or ``Invalid``."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            value = value.replace(tzinfo=PROJECT_ZONE)  # as timezone.make_aware() reads it
        try:
            instant: dt.datetime = value.astimezone(UTC).replace(microsecond=0)
            return instant
        except (OverflowError, ValueError) as exc:
            raise Invalid from exc
    if isinstance(value, dt.date):
        return value
    raise Invalid


def expected_changefreq(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value in CHANGEFREQS:
        return value
    raise Invalid


def expected_priority(value: Any) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise Invalid
    try:
        number = Decimal(value)
        if not Decimal(0) <= number <= Decimal(1):
            raise Invalid
    except InvalidOperation as exc:  # NaN
        raise Invalid from exc
    return number


def expectation(pk: int, loc: object, lastmod: Any, changefreq: Any, priority: Any) -> Expected:
    try:
        date = expected_lastmod(lastmod)
    except Invalid:
        return Expected(pk, loc, None, None, None, False)
    # An invalid changefreq or priority is left out of its entry, which is kept.
    left_out = []
    try:
        frequency = expected_changefreq(changefreq)
    except Invalid:
        frequency = None
        left_out.append("changefreq")
    try:
        weight = expected_priority(priority)
    except Invalid:
        weight = None
        left_out.append("priority")
    if date is not None and in_future(date):
        return Expected(pk, loc, None, frequency, weight, True, True, tuple(left_out))
    return Expected(pk, loc, date, frequency, weight, True, False, tuple(left_out))


def resolved(path: str) -> str:
    """An absolute path as a URL parser requests it: its dot segments resolved
    (RFC 3986 section 5.2.4, segment by segment: "." is dropped, ".." drops
    the segment before it), "%2E" being a "." (section 6.2.2.2)."""
    segments = path.split("/")[1:]
    kept: list[str] = []
    for position, segment in enumerate(segments):
        dots = segment.lower().replace("%2e", ".")
        if dots not in (".", ".."):
            kept.append(segment)
            continue
        if dots == ".." and kept:
            kept.pop()
        if position == len(segments) - 1:
            kept.append("")  # "/a/.." is "/", a directory
    return "/" + "/".join(kept)


def declared_location(slug: str | None) -> str | None:
    if slug is None:
        return None
    try:
        url = SITE + resolved(reverse("article-detail", kwargs={"slug": slug}))
    except NoReverseMatch:
        return None
    # sitemaps.org: a location "must be less than 2,048 characters".
    return url if len(url) < 2048 else None


def computed_location(kind: str, text: str) -> object:
    if kind == "safe":
        return SITE + text
    if kind == "foreign":
        return None
    return UNKNOWN


# -- helpers -----------------------------------------------------------------------------


@contextmanager
def fresh_rows() -> Iterator[None]:
    """One example's rows, rolled back after it, so the next example starts empty; the
    pages the process saw unanswered forgotten, as the next example's rows may have the
    same keys and aggregates (a rolled-back table gives its primary keys again)."""
    forget_unanswered()
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def store_declared(rows: list[StoredRow]) -> list[Expected]:
    created = Article.objects.bulk_create(Article(title="declared", **vars(row)) for row in rows)
    pks = [article.pk for article in created]
    expected = []
    # The oracle reads what the database kept (SQLite stores NaN as NULL, say).
    stored = Article.objects.filter(pk__in=pks).order_by("pk")
    for article in stored:
        loc = declared_location(article.slug)
        expected.append(
            expectation(article.pk, loc, article.updated_at, article.changefreq, article.priority)
        )
    return expected


def store_computed(rows: list[MethodRow]) -> list[Expected]:
    created = Article.objects.bulk_create(
        Article(title="computed", slug=f"c{n}") for n in range(len(rows))
    )
    Computed.generated = {article.pk: row for article, row in zip(created, rows, strict=True)}
    return [
        expectation(
            article.pk, computed_location(*row.location), row.lastmod, row.changefreq, row.priority
        )
        for article, row in zip(created, rows, strict=True)
    ]


W3C_DATETIME = re.compile(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d\+00:00)?")


def lastmod_instant(text: str) -> dt.date:
    assert W3C_DATETIME.fullmatch(text), text
    if "T" in text:
        return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S+00:00").replace(tzinfo=UTC)
    return dt.date.fromisoformat(text)


def check_entry(url: Url, expected: Expected) -> None:
    """``url`` is what ``expected`` says, value by value."""
    assert expected.valid_values, (url, expected)
    if expected.loc is not UNKNOWN:
        assert url.loc == expected.loc
    assert (None if url.lastmod is None else lastmod_instant(url.lastmod)) == expected.lastmod
    assert url.changefreq == expected.changefreq
    if expected.priority is None:
        assert url.priority is None
    else:
        assert url.priority is not None
        # Written to three decimals, rounded.
        assert abs(Decimal(url.priority) - expected.priority) <= Decimal("0.0005")
        assert not url.priority.startswith("-")


def check_single_host(loc: str) -> None:
    parts = urlsplit(loc)
    assert (parts.scheme, parts.netloc) == ("https", "www.example.com"), loc
    assert loc.isascii(), loc
    assert len(loc) < 2048, loc
    assert parts.username is None
    assert parts.password is None


def skipped_pks(records: list[logging.LogRecord], source: str) -> list[int]:
    pattern = re.compile(rf"Skipped pk=(\d+) of source '{source}': .+\.")
    found = []
    for record in records:
        match = pattern.fullmatch(record.getMessage())
        if match and record.name == "django_sitemapkit":
            # The first row a reason costs on a page at WARNING, the others at DEBUG.
            assert record.levelno in (logging.WARNING, logging.DEBUG)
            found.append(int(match[1]))
    return found


def check_document(urls: list[Url], expected: list[Expected], skipped: list[int]) -> None:
    """The entries are exactly the rows not skipped, in order, each as the oracle says."""
    by_pk = {e.pk: e for e in expected}
    assert len(set(skipped)) == len(skipped), skipped
    assert set(skipped) <= set(by_pk)
    kept = [e for e in expected if e.pk not in skipped]
    assert len(urls) == len(kept), (urls, kept, skipped)
    for url, entry in zip(urls, kept, strict=True):
        check_single_host(url.loc)
        check_entry(url, entry)
    for pk in skipped:
        entry = by_pk[pk]
        # A row the oracle calls valid is never skipped.
        assert entry.loc is None or entry.loc is UNKNOWN or not entry.valid_values, entry


def consumer_reads(body: bytes) -> list[tuple[str, str | None]]:
    """(loc, changefreq) as ultimate-sitemap-parser reads the document.

    It keeps the first of entries with the same location, and unescapes HTML
    entities in the text the XML parser has already unescaped (a location
    with ``&amp`` reads as ``&``): compare with ``distinct()``.
    """
    parsed = sitemap_from_str(body.decode("utf-8"))
    return [
        (page.url, None if page.change_frequency is None else page.change_frequency.value)
        for page in parsed.all_pages()
    ]


def distinct(urls: list[Url]) -> list[tuple[str, str | None]]:
    first: dict[str, str | None] = {}
    for url in urls:
        first.setdefault(html.unescape(url.loc), url.changefreq)
    return list(first.items())


def served_urls(client: Client, section: str) -> tuple[bytes, list[Url]]:
    status, body, _ = fetch(client, f"/sitemap-{section}-1.xml")
    if status == 404:
        return body, []
    assert status == 200, body[:300]
    return body, parse_urlset(body)


def check_served(
    client: Client, section: str, expected: list[Expected], caplog: pytest.LogCaptureFixture
) -> list[Url]:
    caplog.clear()
    body, urls = served_urls(client, section)
    check_document(urls, expected, skipped_pks(caplog.records, section))
    if urls:
        assert consumer_reads(body) == distinct(urls)
    return urls


def check_index(client: Client, newest: dict[str, dt.datetime | None]) -> None:
    """The index lists a page for every section given, with the newest lastmod stored
    in it (rows valid or not: the index is made from aggregates, without reading the
    rows). A page whose rows are all invalid, once answered 404, is not given: the
    process leaves it out of the index until its rows change."""
    status, body, _ = fetch(client, "/sitemap.xml")
    if not newest:
        # An index must list a sitemap: with none to list, it is a 404.
        assert status == 404
        return
    assert status == 200
    index = parse_index(body)
    assert index == [
        (f"{SITE}/sitemap-{name}-1.xml", None if value is None else value.isoformat())
        for name, value in newest.items()
    ]
    consumer = sitemap_from_str(body.decode("utf-8"))
    assert [sub.url for sub in consumer.sub_sitemaps] == [loc for loc, _ in index]


def built_urls(directory: Path) -> dict[str, list[Url]]:
    found: dict[str, list[Url]] = {}
    for path in sorted(directory.glob("sitemap-*.xml")):
        section = path.name.split("-")[1]
        body = path.read_bytes()
        urls = parse_urlset(body)
        assert consumer_reads(body) == distinct(urls)
        found.setdefault(section, []).extend(urls)
    if (directory / "sitemap.xml").exists():
        parse_index((directory / "sitemap.xml").read_bytes())
    return found


# -- properties --------------------------------------------------------------------------


@pytest.mark.slow
@PROPERTY
@given(stored=STORED_ROWS, computed=METHOD_ROWS)
@example(  # found by Hypothesis: a method's Decimal('NaN') priority was a 500
    stored=[StoredRow("a", None, None, None)],
    computed=[MethodRow(("safe", "/a"), None, None, Decimal("NaN"))],
)
@example(  # found by Hypothesis: -0.0 was written as "-0.0"
    stored=[StoredRow("a", None, None, -0.0)],
    computed=[MethodRow(("safe", "/a"), None, None, -0.0)],
)
@example(  # dot segments: "/articles/../" is "/", "/articles/./" is "/articles/"
    stored=[StoredRow(slug, None, None, None) for slug in ("..", ".", ".%2e", "...")],
    computed=[MethodRow(("any", "/a/../b/%2E/"), None, None, None)],
)
def test_any_rows_give_valid_documents_of_exactly_the_valid_entries(
    client: Client,
    sources: Sources,
    caplog: pytest.LogCaptureFixture,
    stored: list[StoredRow],
    computed: list[MethodRow],
) -> None:
    sources(Declared, Computed)
    caplog.set_level(logging.DEBUG, logger="django_sitemapkit")
    with fresh_rows():
        expected = {"declared": store_declared(stored), "computed": store_computed(computed)}
        served = {name: check_served(client, name, rows, caplog) for name, rows in expected.items()}
        stored_lastmods = [row.updated_at for row in stored if row.updated_at is not None]
        newest = max(stored_lastmods, default=None)
        listed = {
            # Written to the second, in UTC; a method's lastmod has no aggregate.
            # None too for a date in the future: no page is dated after now.
            "declared": None
            if newest is None or in_future(newest)
            else newest.replace(microsecond=0),
            "computed": None,
        }
        check_index(client, {name: value for name, value in listed.items() if served[name]})
        # A section more than half of whose rows make no URL fails the build
        # (build/losses.py); the first such section, in the order declared, is named.
        losing = [
            name
            for name, rows in expected.items()
            if (len(rows) - len(served[name])) * 2 > len(rows)
        ]
        # The output becomes a link beside its directory of builds: both in here.
        with tempfile.TemporaryDirectory() as parent:
            output = Path(parent) / "out"
            if losing:
                # It writes nothing: no valid row at all is such a loss too.
                with pytest.raises(CommandError) as raised:
                    call_command("build_sitemaps", output=str(output), verbosity=0)
                assert str(raised.value).startswith(f"Section {losing[0]!r} skips ")
                assert not output.exists()
                return
            call_command("build_sitemaps", output=str(output), verbosity=0)
            built = built_urls(output)
    # The build writes the very entries the views serve.
    assert {name: urls for name, urls in served.items() if urls} == built


@PROPERTY
@given(computed=METHOD_ROWS)
def test_strict_mode_raises_at_the_first_invalid_row(
    client: Client, sources: Sources, computed: list[MethodRow]
) -> None:
    sources(Computed)
    with fresh_rows(), override_settings(SITEMAPKIT_STRICT=True):
        expected = store_computed(computed)
        # A row skipped, or listed without its lastmod (in the future) or another
        # value (invalid): strict raises.
        surely_refused = [
            e
            for e in expected
            if e.loc is None
            or (e.loc is not UNKNOWN and (not e.valid_values or e.undated or e.left_out))
        ]
        urls, error = strict_outcome(client)
    if error is None:
        assert not surely_refused
        assert len(urls) == len(expected)
    else:
        match = re.match(
            r"(Skipped|Left out the (lastmod|changefreq|priority) of) pk=(\d+) of source "
            "'computed': ",
            error,
        )
        assert match, error
        # No row before the one named is one the oracle calls refused, and the
        # one named is not one it calls valid.
        assert all(e.pk >= int(match[3]) for e in surely_refused)
        [named] = [e for e in expected if e.pk == int(match[3])]
        if match[1] == "Skipped":
            assert named.loc is None or named.loc is UNKNOWN or not named.valid_values
        elif match[2] == "lastmod":
            assert named.undated
        else:
            assert match[2] in named.left_out


def strict_outcome(client: Client) -> tuple[list[Url], str | None]:
    try:
        return served_urls(client, "computed")[1], None
    except InvalidEntry as exc:
        return [], str(exc)


@PROPERTY
@given(location=ANY_TEXT)
@example(location="a/./b/../c/%2e%2E/d?q=/../#/./")
def test_an_accepted_location_decodes_back_to_what_the_method_returned(
    client: Client, sources: Sources, location: str
) -> None:
    sources(Computed)
    with fresh_rows():
        store_computed([MethodRow(("any", "/" + location), None, None, None)])
        _, urls = served_urls(client, "computed")
    # The path ends at the first "?" or "#"; only its dot segments are resolved.
    given = "/" + location
    end = re.search("[?#]", given)
    cut = len(given) if end is None else end.start()
    for url in urls:
        check_single_host(url.loc)
        # RFC 3987 section 3.1: percent-encoding the UTF-8 bytes loses nothing.
        assert unquote(url.loc.removeprefix(SITE)) == unquote(resolved(given[:cut]) + given[cut:])
