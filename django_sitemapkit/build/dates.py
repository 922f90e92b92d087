"""The dates a build publishes: each file's ``<lastmod>`` in the index, and the warning
for a section whose dates look touched in bulk.

sitemaps.org defines a ``<sitemap>``'s ``<lastmod>`` as "the time that the
corresponding Sitemap file was modified". A crawler that fetches again only
the files dated after its last visit must see a later date whenever a file's
bytes change, and the same date while they do not. So a file of the new set is
dated (``file_lastmod()``):

- with no date, if none of its URLs has one;
- with its newest row's ``lastmod`` if that is later than the date the
  published file of its name had, or if there was none (a new file, a set's
  first build);
- else with the date it had, if its bytes are those the manifest records;
- else, its bytes changed without a newer row (a row deleted, or moved to
  another file, a new location), with the time the set is put together, after
  its shards are rendered (at least a second after the date it had).

So a date is never earlier than the newest row in the file, and never moves
backwards while the manifest is read; a previous date later than may be
written now (a manifest of a clock that ran ahead) is not kept.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace

from django_sitemapkit.build.manifest import ManifestFile
from django_sitemapkit.build.planning import BuildPlan
from django_sitemapkit.build.report import RenderedShard
from django_sitemapkit.encoding.encoder import Lines
from django_sitemapkit.sources.lastmods import day_counts
from django_sitemapkit.sources.plan import Plan
from django_sitemapkit.sources.text_lastmods import SlicedLastmods
from django_sitemapkit.values import Horizon, format_lastmod, parse_lastmod, utc_instant

logger = logging.getLogger("django_sitemapkit")
#: A section whose dated rows share one day (in UTC) more than this often, of at least
#: ``TOUCHED_ROWS`` rows, looks touched in bulk. A smaller section is cheap to fetch
#: whole, and more often imported in one go.
TOUCHED_SHARE, TOUCHED_ROWS = 0.5, 1_000


def file_lastmod(
    newest: str | None, previous: ManifestFile | None, same: bool, now: dt.datetime
) -> str | None:
    """The date of a file whose newest row ``lastmod`` is ``newest``; ``previous`` is the
    published file of its name, ``same`` whether it had these very bytes."""
    if newest is None:
        return None
    before = None if previous is None else previous.lastmod
    if before is None or Horizon(now).passed(before):
        return newest
    if later(newest, before):
        return newest
    return before if same else changed(now, before)


def later(one: str, other: str) -> bool:
    return utc_instant(parse_lastmod(one)) > utc_instant(parse_lastmod(other))


def changed(now: dt.datetime, before: str) -> str:
    """The build's time, or a second after ``before`` if this clock has not reached it."""
    return format_lastmod(max(now, utc_instant(parse_lastmod(before)) + dt.timedelta(seconds=1)))


def dated(
    file: ManifestFile, previous: ManifestFile | None, same: bool, now: dt.datetime
) -> ManifestFile:
    return replace(file, lastmod=file_lastmod(file.newest, previous, same, now))


def counts_days(plan: Plan) -> bool:
    """Whether rendering ``plan``'s section counts the days of its lastmods: a dated
    queryset section of one ``<url>`` a row (with languages, a row has several)."""
    pager = plan.queryset
    return pager is not None and pager.lastmod_path is not None and len(plan.languages) == 1


def counted_days(runs: Iterable[Lines], days: Counter[str]) -> Iterator[Lines]:
    """``runs`` as they are, the day of each ``<lastmod>`` counted into ``days`` on the
    way: its first ten characters, the date, in UTC for a datetime (``format_lastmod()``),
    as ``day_counts()`` groups the rows. So a build that renders the whole section
    needs no query over its rows for the warning: at 10,000,000 rows that query took
    two fifths of a build on SQLite, whose day of a datetime is a Python function per
    row (docs/performance.md, "Faster builds")."""
    for run in runs:
        lastmods = run[1]
        if isinstance(lastmods, SlicedLastmods):
            days.update(lastmods.days())
        else:
            days.update([lastmod[:10] for lastmod in lastmods if lastmod is not None])
        yield run


def rendered_days(
    build: BuildPlan, section: str, rendered: dict[int, RenderedShard]
) -> list[tuple[object, int]] | None:
    """The days counted while the section was rendered, if this build rendered all of
    it here; else ``None`` (shards kept, or rendered by workers, which count nothing)."""
    days: Counter[str] = Counter()
    for shard in build.planned[section]:
        found = None if shard.job is None else rendered.get(shard.job.number)
        if found is None or found.days is None:
            return None
        days.update(found.days)
    return list(days.items())


def warn_touched(build: BuildPlan, rendered: dict[int, RenderedShard]) -> None:
    """Log each section the build renders whose dates look touched in bulk: the days
    counted while it was rendered (``counted_days()``), or, where this build rendered
    only part of it, one grouped query a section of ``TOUCHED_ROWS`` rows or more, over
    the rows' days. Not in a refresh (``--changed``): that query reads every row of
    the section, and a refresh reads only the rows of its records' shards; the builds
    between them warn."""
    if build.refreshed:
        return
    sections = {job.section for _, job in build.work}
    for plan in build.plans:
        pager = plan.queryset
        if plan.section not in sections or pager is None or pager.lastmod_path is None:
            continue
        if sum(shard.rows or 0 for shard in build.planned[plan.section]) < TOUCHED_ROWS:
            continue
        days = rendered_days(build, plan.section, rendered)
        if days is None:
            # The shape of the query that compares shards (a GROUP BY on the section's
            # rows): a database that answered that one answers this.
            days = list(day_counts(pager))
        warn_of(plan.section, days)


def warn_of(section: str, days: list[tuple[object, int]]) -> None:
    """The warning, if one day holds more than ``TOUCHED_SHARE`` of the dated rows."""
    dated_rows = sum(rows for _, rows in days)
    day, rows = max(days, key=lambda found: (found[1], str(found[0])), default=(None, 0))
    if dated_rows >= TOUCHED_ROWS and rows > dated_rows * TOUCHED_SHARE:
        logger.warning(
            "Section %r: %s of its %s dated rows (%d %%) have their lastmod on %s (UTC). "
            "If that day was a change made to every row (a migration, a script, an "
            "import that saved them again) rather than edits of their pages, the dates "
            "say nothing, and search engines learn to distrust them: set lastmod only "
            "when a page's content changes.",
            section,
            f"{rows:,}",
            f"{dated_rows:,}",
            100 * rows // dated_rows,
            day,
        )
