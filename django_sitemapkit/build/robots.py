"""``SITEMAPKIT_ROBOTS = "warn"`` in a build: the URLs a shard lists that the site's
robots.txt disallows, found as its files are written and named in one warning at
its end (the section, its pages, the count and the first few). Under ``"exclude"``
the writer leaves them out instead (``sources/disallowed.py``).

Where the shard is rendered, the warning is logged: here, in a ``--jobs``
process, or on a distributed build's worker. Only the shards a build renders are
read: an incremental build warns about those it renders again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from django_sitemapkit.conf import conf
from django_sitemapkit.documents import located
from django_sitemapkit.encoding.encoder import Lines
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_txt import RobotsUnavailable, SiteRobots, site_robots
from django_sitemapkit.sources.disallowed import Listed

logger = logging.getLogger("django_sitemapkit")


@dataclass
class Watch:
    """The disallowed URLs of one shard's documents, as they are written."""

    site: SitemapSite
    robots: SiteRobots
    agents: tuple[str, ...]
    listed: Listed = field(default_factory=Listed)
    #: The pages they are on.
    pages: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, site: SitemapSite | None) -> Watch | None:
        """The watch of a shard of ``site`` under ``"warn"``; ``None`` otherwise, or
        when robots.txt cannot be read (which is logged: the build goes on)."""
        if site is None or conf.ROBOTS != "warn":
            return None
        try:
            robots = site_robots(site.origin)
        except RobotsUnavailable as exc:
            logger.error(
                "SITEMAPKIT_ROBOTS = 'warn': %s The URLs of this build are not checked against it.",
                exc,
            )
            return None
        return cls(site, robots, tuple(conf.ROBOTS_AGENTS))

    def watched(self, runs: Iterator[Lines], page: int) -> Iterator[Lines]:
        """The runs of ``page``, each line's location judged on its way to the file."""
        cut = len(self.site.base_url)
        refusal, agents, listed = self.robots.refusal, self.agents, self.listed
        for lines, lastmods in runs:
            for line in lines:
                location = located(line)
                decision = refusal(location[cut:], agents)
                if decision is not None:
                    listed.note(location, decision)
                    if self.pages[-1:] != [page]:
                        self.pages.append(page)
            yield lines, lastmods

    def warn(self, section: str) -> None:
        if not self.listed.count:
            return
        pages = ", ".join(map(str, self.pages))
        logger.warning(
            "Section %r lists %s that robots.txt disallows (page%s %s): %s. robots.txt is "
            "%s, read for %s; SITEMAPKIT_ROBOTS = 'exclude' leaves them out.",
            section,
            self.listed.number(),
            "" if len(self.pages) == 1 else "s",
            pages,
            self.listed.examples(),
            self.robots.source,
            ", ".join(self.agents),
        )
