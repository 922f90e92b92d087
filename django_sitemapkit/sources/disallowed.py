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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.encoder import Entry
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.robots_prefix import Under
from django_sitemapkit.sites.robots_rules import Decision, Rule, compared_path, compared_pieces
from django_sitemapkit.sites.robots_txt import SiteRobots, site_robots
from django_sitemapkit.sources.skips import Excluded, Tally, skip_row

#: How many of the disallowed URLs a warning names.
FIRST = 5
#: Where a row robots.txt disallows goes, with the reason: skipped as the locator's is.
Refuse = Callable[[Any, str], None]


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

    def under(self, pieces: Sequence[str]) -> Prefixed | None:
        """The guard of the locations of ``pieces`` (a URL template's literal pieces, the
        origin first) with plain text between them (``robots_rules.PLAIN``), made ready
        for them; ``None`` where each must be judged whole."""
        tails = compared_pieces([pieces[0][self.origin_length :], *pieces[1:]])
        if tails is None:
            return None
        obeyed = self.robots.rules.obeyed(self.agents)
        groups = [(agent, group.refusing(tails[0])) for agent, group in obeyed]
        return Prefixed(self, groups, tails[1:], tuple(pieces))

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


@dataclass(frozen=True)
class Prefixed:
    """A guard for the locations of one URL template: a chunk of them judged at once,
    each by its remainder, the path after the template's fixed start."""

    guard: Guard
    #: Each group a crawler of the guard's obeys, with the first such crawler.
    groups: list[tuple[str, Under[Rule]]]
    #: The template's later pieces as rules compare them: a remainder is the values
    #: between them (each plain), joined by them.
    tails: tuple[str, ...]
    #: The pieces as given: a refused location is named in them.
    pieces: tuple[str, ...]

    def allowed(
        self, chunk: Sequence[Any], columns: list[list[Any]], refuse: Refuse | None
    ) -> list[list[Any]]:
        """``columns`` (the template's arguments first, then any other) of the rows of
        ``chunk`` robots.txt allows, each other row given to ``refuse`` with the reason:
        the same lists if it allows every one."""
        tails, pieces = self.tails, self.pieces
        if len(tails) == 1:
            (tail,) = tails
            remainders = [f"{v}{tail}" for v in columns[0]]
        else:
            middle, tail = tails
            remainders = [f"{a}{middle}{b}{tail}" for a, b in zip(*columns[:2], strict=True)]

        def locate(number: int) -> str:
            between = zip(columns, pieces[1:], strict=False)
            return pieces[0] + "".join(f"{column[number]}{piece}" for column, piece in between)

        reasons = self.reasons(remainders, locate)
        if not reasons:
            return columns
        assert refuse is not None, "a guarded chunk is given where its refused rows go"
        for number, reason in reasons.items():
            refuse(chunk[number], reason)
        kept = [number for number in range(len(chunk)) if number not in reasons]
        return [[column[number] for number in kept] for column in columns]

    def reasons(self, remainders: list[str], locate: Callable[[int], str]) -> dict[int, str]:
        """Why each of ``remainders`` robots.txt disallows is left out, by its index, as
        ``Guard.reason()`` says it of its location, ``locate(index)``."""
        refusals: dict[int, Decision] = {}
        for agent, under in self.groups:
            always = under.always
            judged = under.candidates(remainders)
            if always is not None and not always.allow:
                judged = set(range(len(remainders)))
            for number in sorted(judged - refusals.keys()):
                rule = under.deciding(remainders[number])
                if rule is not None and not rule.allow:
                    refusals[number] = Decision(False, agent, rule)
        found = {}
        cut = self.guard.origin_length
        for number, decision in sorted(refusals.items()):
            location = locate(number)
            # Every crawler may fetch /robots.txt (compared_path()).
            if compared_path(location[cut:]) is not None:
                found[number] = refused(location, decision)
        return found


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
