"""Whether a section loses most of its URLs: its first rows read through its plan
as a page reads them, for ``build_sitemaps``' error and ``check --deploy``'s finding.

A row is lost when it makes no entry for a reason of validation (a location off
the base URL's scheme or host, outside the sitemap's directory, one that does
not reverse, a bad value), not when its source leaves it out by choice (a
``canonical`` elsewhere, robots.txt under ``"exclude"``). "Most" is more than
half of the rows read: a section that lists fewer URLs than it drops is a
mistake of configuration (docs/migrating.md's base URL on ``https`` while the
project's URL builder writes ``http``), not a few bad rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.plan import Plan
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally

#: The rows read of a section: enough to tell a rule that refuses every row from
#: a few bad ones, and few enough that a table of millions costs one small query.
SAMPLE_ROWS = 100


@dataclass(frozen=True)
class Loss:
    """What the first rows of a section gave: how many were read, how many made no
    entry for an invalid value, and the origins of the locations the single-host
    rule refused among them, the commonest first."""

    section: str
    read: int
    lost: int
    foreign: tuple[str, ...] = ()
    #: The log line of the first row lost.
    first: str | None = None

    @property
    def most(self) -> bool:
        return self.lost * 2 > self.read

    def describe(self, site: SitemapSite) -> str:
        """The loss and its cause, as a sentence for an error or a check."""
        where = f" on the site {site.name!r}" if site.several else ""
        found = (
            f"Section {self.section!r}{where} skips {self.lost:,} of its first {self.read:,} URLs"
        )
        if not self.foreign:
            return f"{found} as invalid; the first: {self.first}"
        return (
            f"{found}: they are on {', '.join(map(repr, self.foreign))}, and the site's base "
            f"URL is {site.base_url!r} (a sitemap lists URLs of its base URL's scheme and "
            "host only)."
        )

    def fix(self, site: SitemapSite) -> str:
        if not self.foreign:
            return (
                "Fix the cause the first row's reason names (the section's location(), "
                "url_name or values); the log names the reason of each row skipped."
            )
        origin = self.foreign[0]
        scheme = origin.partition("://")[0]
        if site.django_site is not None and origin == f"{scheme}://{site.domain}":
            # The Site gives the host; the scheme is the setting's alone.
            served = f"set SITEMAPKIT_SITE_SCHEME = {scheme!r}"
        else:
            served = f"set {site.base_url_setting} to {origin!r}"
        return (
            "Make location() (or the URL builder it calls) return paths starting with "
            f"'/', which the sitemap writes on {site.base_url!r}; or, if the site is served "
            f"on {origin!r}, {served}."
        )


def first_rows_loss(plan: Plan, rows: int = SAMPLE_ROWS) -> Loss:
    """The loss of the first ``rows`` rows of page 1 of ``plan``'s section."""
    # Quiet: what a build has logged already, or a check says in one finding.
    tally = Tally(quiet=True)
    read = 0
    chunks = plan.pager.chunks(1, None, tally)
    try:
        for chunk in chunks:
            sample = chunk[: rows - read]
            read += len(sample)
            with plan.context():
                plan.writer.entries(sample, tally)
            if read >= rows:
                break
    except InvalidEntry:
        # SITEMAPKIT_STRICT: the first invalid row stops the page, and the build.
        pass
    finally:
        close_iterator(chunks)
    foreign = tuple(origin for origin, _ in tally.foreign.most_common())
    lost = min(read, tally.skipped - tally.excluded)
    return Loss(plan.section, read, lost, foreign, tally.first_loss)
