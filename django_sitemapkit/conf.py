"""Settings, read live from ``django.conf.settings`` so ``override_settings`` works.

``Settings`` is the table of every ``SITEMAPKIT_*`` setting: its type, default,
the values it accepts and the opening words of its documentation. The system
checks of those values (``checks/setting_values.py``) and docs/settings.md
(``tests/test_docs.py``) follow it.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django_sitemapkit.setting_rows import (
    Choice,
    Duration,
    Flag,
    Name,
    Path,
    Percent,
    ProductTokens,
    Seconds,
    Setting,
    Text,
    WholeNumber,
)

# sitemaps.org protocol, "Sitemap file location" and "Sitemap index files":
# a file holds at most 50,000 URLs and at most 50 MiB uncompressed.
MAX_URLS = 50_000
MAX_BYTES = 52_428_800
# The smallest SITEMAPKIT_MAX_BYTES: room for the XML declaration, the root
# element and a few entries.
SMALLEST_MAX_BYTES = 1_024

#: The default of ``SITEMAPKIT_GZIP_LEVEL``: the fastest level whose output was within 1 %
#: of level 9's on the pages measured (docs/performance.md, "Faster builds").
GZIP_LEVEL = 7

#: The default of ``SITEMAPKIT_HTML_PAGE_SIZE``: a page headless Chromium renders in
#: well under a second (docs/performance.md, "The HTML sitemap in a browser").
HTML_PAGE_SIZE = 1_000
#: The default of ``SITEMAPKIT_HTML_CSP``: the default templates load nothing, and
#: their one inline style sheet is allowed by its digest (CSP level 2 "hash-source").
HTML_CSP = "default-src 'none'; style-src {style}; base-uri 'none'; form-action 'none'"

#: Values of ``SITEMAPKIT_SERVE``.
SERVE_CHOICES = ("database", "files", "files-or-database")
#: Values of ``SITEMAPKIT_SITE_SCHEME``.
SITE_SCHEMES = ("https", "http")
#: Values of ``SITEMAPKIT_CHANGES`` besides ``None``.
CHANGES_CHOICES = ("record", "celery", "tasks")
#: Values of ``SITEMAPKIT_ROBOTS`` besides ``None``.
ROBOTS_ACTIONS = ("warn", "exclude")


class Settings:
    """Every ``SITEMAPKIT_*`` setting, in the order docs/settings.md lists them.

    Each is read as ``conf.NAME``, typed as annotated here; ``conf.raw("NAME")``
    gives the value unchecked, for the system checks to judge.
    """

    #: Each setting's default, by name, in the table's order.
    defaults: ClassVar[dict[str, Any]]

    BASE_URL: Setting[str | None] = Setting(
        "str | None",
        None,
        "The scheme, host and optional port every `<loc>` is built on.",
    )
    SITES: Setting[Mapping[str, str] | str | None] = Setting(
        "Mapping[str, str] | str | None",
        None,
        "Several sites (hosts) served from one project, each with sitemaps of its own.",
    )
    SITE_SCHEME: Setting[str] = Setting(
        "str",
        "https",
        "The scheme put before a `Site`'s domain, which records none.",
        Choice(SITE_SCHEMES),
    )
    LIMIT: Setting[int] = Setting(
        "int",
        MAX_URLS,
        "URLs per page, from 1 to 50,000 (the protocol's cap).",
        WholeNumber(1, MAX_URLS),
    )
    STRICT: Setting[bool] = Setting(
        "bool",
        False,
        "`True` raises `django_sitemapkit.InvalidEntry` for an invalid entry instead of "
        "skipping it with a warning.",
        Flag(),
    )
    CHUNK_SIZE: Setting[int] = Setting(
        "int",
        2_000,
        "Rows fetched per database round trip while a page streams.",
    )
    X_ROBOTS_TAG: Setting[str | None] = Setting(
        "str | None",
        # A sitemap is for crawlers to read, not a page to list in results
        # (django.contrib.sitemaps sends it too, since Django ticket #18351).
        "noindex",
        "Sent as the `X-Robots-Tag` header of every sitemap document; `None` sends none.",
    )
    # -- the HTML sitemap for visitors (docs/html-sitemap.md) --
    HTML_PAGE_SIZE: Setting[int] = Setting(
        "int",
        HTML_PAGE_SIZE,
        "Links per page of the HTML sitemap for visitors, from 1 to 50,000, whatever the "
        "XML's page size.",
        WholeNumber(1, MAX_URLS),
    )
    HTML_CSP: Setting[str | None] = Setting(
        "str | None",
        HTML_CSP,
        "The `Content-Security-Policy` of the HTML sitemap's pages, `{style}` standing for "
        "its inline style sheet's hash; `None` sends none of the app's own.",
    )
    # -- robots.txt (docs/robots.md) --
    ROBOTS: Setting[str | None] = Setting(
        "str | None",
        None,
        "What the sitemaps do with the URLs the site's own robots.txt disallows: `None` "
        'reads no robots.txt, `"warn"` says which are listed, `"exclude"` leaves them out.',
        Choice(ROBOTS_ACTIONS, or_none=True),
    )
    ROBOTS_FILE: Setting[str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]] | None] = (
        Setting(
            "str | os.PathLike[str] | Mapping[str, str | os.PathLike[str]] | None",
            None,
            "The robots.txt file to read instead of asking the project for `/robots.txt`: "
            "a path, or a dict of site names to paths.",
            # and absolute, naming sites: checked by hand
        )
    )
    ROBOTS_AGENTS: Setting[Sequence[str]] = Setting(
        "Sequence[str]",
        ("Googlebot", "Bingbot"),
        "The crawlers robots.txt is read for: a URL that any of them may not fetch counts "
        "as disallowed.",
        ProductTokens(),
    )
    # -- end of robots.txt --
    MAX_BYTES: Setting[int] = Setting(
        "int",
        MAX_BYTES,
        "Uncompressed bytes per document, from 1,024 to 52,428,800 (the protocol's 50 MiB).",
        WholeNumber(SMALLEST_MAX_BYTES, MAX_BYTES),
    )
    OUTPUT_DIR: Setting[str | os.PathLike[str] | None] = Setting(
        "str | os.PathLike[str] | None",
        None,
        "The absolute path of the directory `build_sitemaps` writes to.",
        Path(or_none=True),  # and absolute: checked by hand
    )
    STORAGE: Setting[str | None] = Setting(
        "str | None",
        None,
        "An alias of `STORAGES` to write the files through instead of a directory.",
    )
    GZIP: Setting[bool] = Setting(
        "bool",
        True,
        "`build_sitemaps` writes a `.xml.gz` sibling of every file.",
        Flag(),
    )
    GZIP_LEVEL: Setting[int] = Setting(
        "int",
        GZIP_LEVEL,
        "The zlib level of every `.xml.gz`, built or served, from 1 (fastest) to 9 (smallest).",
        WholeNumber(1, 9),
    )
    GZIP_LINKS: Setting[bool] = Setting(
        "bool",
        False,
        "The index lists `sitemap-<section>-<page>.xml.gz` instead of the `.xml` names.",
        Flag(),
    )
    SERVE: Setting[str] = Setting(
        "str",
        "database",
        "Where the views answer from.",
        Choice(SERVE_CHOICES),
    )
    FULL_BUILD_EVERY: Setting[datetime.timedelta | None] = Setting(
        "datetime.timedelta | None",
        datetime.timedelta(days=1),
        "How often `build_sitemaps` renders every shard again, as `--full` does.",
        Duration(allows_zero=True, or_none=True),
    )
    MAX_REMOVED: Setting[int | float | None] = Setting(
        "int | float | None",
        None,
        "The largest share of a site's URLs, in percent, that a build of `build_sitemaps` "
        "may remove; one that would remove more is refused.",
        Percent(or_none=True),
    )
    NEWS_MAX_AGE: Setting[datetime.timedelta] = Setting(
        "datetime.timedelta",
        # Google News: "only include articles that were published in the last two days".
        datetime.timedelta(days=2),
        "How old an article a news section (a source with `news = News(...)`) still lists.",
        Duration(),
    )
    INDEXNOW_KEY: Setting[str | None] = Setting(
        "str | None",
        None,
        "The key that IndexNow submissions carry.",
        Text(or_none=True),  # and a key IndexNow takes: checked by hand
    )
    INDEXNOW_ENDPOINT: Setting[str] = Setting(
        "str",
        "https://api.indexnow.org/indexnow",
        "The URL the changed URLs are posted to.",
    )
    INDEXNOW_TIMEOUT: Setting[int | float] = Setting(
        "int | float",
        10,
        "Seconds an IndexNow request may take in all, from connecting to the answer's body.",
        Seconds(),
    )
    INDEXNOW_DEADLINE: Setting[int | float] = Setting(
        "int | float",
        60,
        "Seconds one build's IndexNow submission may take in all, retries and waits included.",
        Seconds(),
    )
    # -- fresh on commit (docs/changes.md) --
    CHANGES: Setting[str | None] = Setting(
        "str | None",
        None,
        "Record each committed change to the rows the sections read: `None` records none, "
        '`"record"` records them for `build_sitemaps --changed`, `"celery"` and `"tasks"` also '
        "send a refresh task on that engine.",
        Choice(CHANGES_CHOICES, or_none=True),
    )
    CHANGES_DELAY: Setting[datetime.timedelta] = Setting(
        "datetime.timedelta",
        datetime.timedelta(seconds=10),
        "How long a refresh task waits after the first change it applies, so that the "
        "changes of that time are applied together.",
        Duration(allows_zero=True),
    )
    # -- end of fresh on commit --
    DATABASE: Setting[str | None] = Setting(
        "str | None",
        None,
        "The alias in `DATABASES` that every section's rows are read from.",
    )
    QUEUE: Setting[str | None] = Setting(
        "str | None",
        None,
        "The queue that `build_sitemaps --via celery` or `--via tasks` sends its shards to.",
        Name(or_none=True),
    )
    TASK_BACKEND: Setting[str] = Setting(
        "str",
        "default",
        "The key of `TASKS` that `build_sitemaps --via tasks` enqueues its shards on.",
        Name(),
    )
    SHARD_TIMEOUT: Setting[datetime.timedelta] = Setting(
        "datetime.timedelta",
        datetime.timedelta(minutes=10),
        "How long a worker may render one shard of a distributed build.",
        Duration(),
    )
    SHARD_ATTEMPTS: Setting[int] = Setting(
        "int",
        3,
        "How many times in all a distributed build sends a shard whose worker was lost.",
        WholeNumber(1),
    )
    BUILD_DEADLINE: Setting[datetime.timedelta] = Setting(
        "datetime.timedelta",
        datetime.timedelta(hours=6),
        "How long a distributed build waits for its shards in all.",
        Duration(),
    )
    VERIFY_TIMEOUT: Setting[int | float] = Setting(
        "int | float", 5, "Seconds `verify_sitemaps` lets a view run for one URL.", Seconds()
    )

    def raw(self, name: str) -> object:
        """The setting as the project wrote it, for the system checks to judge."""
        return TABLE[name].raw()


#: The rows of ``Settings``, by name, in its order.
TABLE: dict[str, Setting[Any]] = {
    row.name: row for row in vars(Settings).values() if isinstance(row, Setting)
}
Settings.defaults = {name: row.default for name, row in TABLE.items()}

conf = Settings()
