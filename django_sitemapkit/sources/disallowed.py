"""The locations a site's robots.txt disallows (``SITEMAPKIT_ROBOTS``): under
``"exclude"`` each is left out as a declared exclusion is (skipped and logged once per
reason per page, never raised in strict mode: nothing is wrong with the row); under
``"warn"`` they are counted, with the first few, for the build's warning and the system
check.

A location counts as disallowed when any crawler of ``SITEMAPKIT_ROBOTS_AGENTS`` may
not fetch it: a URL one search engine will not crawl is reported by that engine as
"blocked by robots.txt", whatever the others do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.robots_rules import Decision
from django_sitemapkit.sites.robots_txt import SiteRobots, site_robots
from django_sitemapkit.sources.skips import Excluded, Tally, skip_row

#: How many of the disallowed URLs a warning names.
FIRST = 5


def robots_guard(origin: Origin) -> Guard | None:
    """The guard of the site on ``origin`` under ``SITEMAPKIT_ROBOTS = "exclude"``, its
    robots.txt read (or ``RobotsUnavailable`` raised) now; else ``None``."""
    if conf.ROBOTS != "exclude":
        return None
    return Guard(site_robots(origin), tuple(conf.ROBOTS_AGENTS), len(origin.url))


def exclusion_fingerprint(origin: Origin) -> str | None:
    """What the documents of the site on ``origin`` depend on under ``"exclude"``: its
    robots.txt and the crawlers it is read for (``None`` otherwise). A built file and
    a page's ETag change with it."""
    if conf.ROBOTS != "exclude":
        return None
    return f"{site_robots(origin).digest} {','.join(conf.ROBOTS_AGENTS)}"


@dataclass(frozen=True)
class Guard:
    """Judges each location of a site against its robots.txt."""

    robots: SiteRobots
    agents: tuple[str, ...]
    #: The length of the origin every location starts with: the rest is what is judged.
    origin_length: int

    def refusal(self, location: str) -> Decision | None:
        return self.robots.refusal(location[self.origin_length :], self.agents)

    def reason(self, location: str) -> str | None:
        """Why ``location`` is left out, in the words of a skipped row's log line."""
        decision = self.refusal(location)
        return None if decision is None else refused(location, decision)

    def locator(self, locate: Callable[[Any], str]) -> Callable[[Any], str]:
        """``locate``, refusing (``Excluded``) a location robots.txt disallows."""
        reason = self.reason

        def allowed(row: Any) -> str:
            location = locate(row)
            why = reason(location)
            if why is not None:
                raise Excluded(why)
            return location

        return allowed

    def allowed(
        self, entries: list[Entry], section: str, key: str, tally: Tally | None
    ) -> list[Entry]:
        """The entries of one row (one per language) robots.txt allows; each other is
        skipped on its own, so that a row's other languages stay listed."""
        kept = []
        for entry in entries:
            why = self.reason(entry.loc)
            if why is None:
                kept.append(entry)
            else:
                skip_row(section, key, why, tally, strict=False, excluded=True)
        return kept


def refused(location: str, decision: Decision) -> str:
    rule = decision.rule
    assert rule is not None, "a disallowing decision names its rule"
    return f"robots.txt disallows {location!r} for {decision.agent} ({rule}, line {rule.line})"


@dataclass
class Listed:
    """The URLs of a section robots.txt disallows: how many, and the first few."""

    count: int = 0
    first: list[str] = field(default_factory=list)

    def note(self, location: str, decision: Decision) -> None:
        self.count += 1
        if len(self.first) < FIRST:
            self.first.append(f"{location} ({decision.agent}: {decision.rule})")

    def number(self) -> str:
        return f"{self.count:,} URL{'' if self.count == 1 else 's'}"

    def examples(self) -> str:
        """The first few, each with the crawler and the rule: "a (Googlebot: Disallow: /x),
        b (...), and 3 more"."""
        more = self.count - len(self.first)
        return ", ".join(self.first) + (f", and {more:,} more" if more else "")
