"""System checks of ``SITEMAPKIT_ROBOTS``: its settings (E070-E073, W033), and, with
``check --deploy`` only, the site's robots.txt itself (W030-W032), which is asked of
the project and judged against each section's first page of rows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.db import DatabaseError

from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.conf import TABLE, conf
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SITES_FRAMEWORK, SitemapSite
from django_sitemapkit.sites.hosts import DEFAULT_NAME, all_sites
from django_sitemapkit.sites.robots_txt import RobotsUnavailable, SiteRobots, read_robots
from django_sitemapkit.sites.wagtail import WAGTAIL_SITES
from django_sitemapkit.sources.disallowed import Listed
from django_sitemapkit.sources.plan import compile_plan
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally

FILE_FIX = (
    "set SITEMAPKIT_ROBOTS_FILE to the absolute path of the robots.txt your web server "
    "serves (BASE_DIR / 'static' / 'robots.txt', say), or a dict of site names to such paths"
)
FILE_HINT = f"S{FILE_FIX[1:]}; or to None to ask the project for /robots.txt."


def check_robots(**kwargs: Any) -> list[CheckMessage]:
    errors = check_values("ROBOTS", "ROBOTS_AGENTS") + check_robots_file()
    if errors:
        return errors
    return check_script_prefix() + check_unused()


def site_names() -> set[str] | None:
    """The names a dict of ``SITEMAPKIT_ROBOTS_FILE`` may use; ``None`` where they are
    ``Site`` rows, known only to the database."""
    sites = conf.raw("SITES")
    if sites in (SITES_FRAMEWORK, WAGTAIL_SITES):
        return None
    return (
        {name for name in sites if isinstance(name, str)}
        if isinstance(sites, Mapping)
        else {DEFAULT_NAME}
    )


def check_robots_file() -> list[CheckMessage]:
    """E072: not a path nor a dict of site names to paths, a relative path, or a name
    that is no site's."""
    value = conf.raw("ROBOTS_FILE")
    if value is None:
        return []
    paths = value if isinstance(value, Mapping) else {None: value}
    names = site_names()
    problems = []
    for name, path in paths.items():
        where = "SITEMAPKIT_ROBOTS_FILE" if name is None else f"SITEMAPKIT_ROBOTS_FILE[{name!r}]"
        if name is not None and names is not None and name not in names:
            known = ", ".join(repr(known) for known in sorted(names))
            problems.append(f"{where} names no site (the sites are {known})")
        elif not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
            problems.append(f"{where} is {path!r}, not a path")
        elif not os.path.isabs(path):
            problems.append(
                f"{where} is {path!r}, a relative path, read from wherever each process starts"
            )
    return [Error(f"{problem}.", hint=FILE_HINT, id="sitemapkit.E072") for problem in problems]


def asks_the_project() -> bool:
    """Whether some site's robots.txt is asked of the project (not read from a file)."""
    value = conf.ROBOTS_FILE
    if not isinstance(value, Mapping):
        return value is None
    names = site_names()
    return names is None or not names <= set(value)


def check_script_prefix() -> list[CheckMessage]:
    """E073: robots.txt asked of a project that ``FORCE_SCRIPT_NAME`` puts below the
    host's root, where robots.txt is not its own."""
    prefix = settings.FORCE_SCRIPT_NAME
    if conf.ROBOTS is None or (prefix or "/") == "/" or not asks_the_project():
        return []
    return [
        Error(
            f"SITEMAPKIT_ROBOTS asks the project for /robots.txt, but FORCE_SCRIPT_NAME = "
            f"{prefix!r} puts the project below the host's root, where robots.txt is not its "
            "own: every sitemap would fail to read it.",
            hint=FILE_HINT,
            id="sitemapkit.E073",
        )
    ]


def check_unused() -> list[CheckMessage]:
    """W033: a robots.txt setting set while ``SITEMAPKIT_ROBOTS`` is ``None``."""
    if conf.ROBOTS is not None:
        return []
    unused = [
        TABLE[name].setting
        for name in ("ROBOTS_FILE", "ROBOTS_AGENTS")
        if conf.raw(name) != TABLE[name].default
    ]
    return [
        Warning(
            f"{setting} is set, but SITEMAPKIT_ROBOTS is None: no robots.txt is read.",
            hint="Set SITEMAPKIT_ROBOTS = 'warn' or 'exclude', or remove the setting.",
            id="sitemapkit.W033",
        )
        for setting in unused
    ]


def check_robots_txt(**kwargs: Any) -> list[CheckMessage]:
    """W030-W032, run by ``check --deploy`` only: they ask the project for each site's
    robots.txt, and read each section's first page of rows."""
    if conf.ROBOTS is None or check_robots():
        return []
    try:
        sites = all_sites()
    except DatabaseError:
        return []
    findings: list[CheckMessage] = []
    for site in sites:
        try:
            robots = read_robots(site.origin)
        except RobotsUnavailable as exc:
            findings.append(unreadable(site, exc))
            continue
        if not robots.found:
            findings.append(not_found(site, robots))
        elif conf.ROBOTS == "warn":
            findings += listed_disallowed(site, robots)
    return findings


def unreadable(site: SitemapSite, exc: RobotsUnavailable) -> CheckMessage:
    effect = (
        "every sitemap page of the site answers 503, and build_sitemaps fails, until it can"
        if conf.ROBOTS == "exclude"
        else "build_sitemaps cannot say which listed URLs it disallows"
    )
    return Warning(
        f"The robots.txt of {site.base_url} cannot be read: {exc} Under SITEMAPKIT_ROBOTS = "
        f"{conf.ROBOTS!r}, {effect}.",
        hint=f"Make /robots.txt answer 200 (or 404 where there are no rules), or {FILE_FIX}.",
        id="sitemapkit.W031",
    )


def not_found(site: SitemapSite, robots: SiteRobots) -> CheckMessage:
    return Warning(
        f"{robots.source} answered {robots.status}: SITEMAPKIT_ROBOTS takes it that the "
        f"site {site.base_url} has no robots.txt, and every URL is allowed (RFC 9309 "
        "section 2.3.1.3).",
        hint=f"If your web server serves robots.txt, {FILE_FIX}. If the site has none, set "
        "SITEMAPKIT_ROBOTS = None.",
        id="sitemapkit.W032",
    )


def listed_disallowed(site: SitemapSite, robots: SiteRobots) -> list[CheckMessage]:
    """W030: the URLs of each section's first page that robots.txt disallows."""
    findings: list[CheckMessage] = []
    agents, cut = tuple(conf.ROBOTS_AGENTS), len(site.base_url)
    for source in registry.sections(site):
        listed = Listed()
        try:
            plan = compile_plan(source, site)
            tally = Tally()
            chunks = plan.pager.chunks(1, None, tally)
            try:
                for chunk in chunks:
                    with plan.context():
                        entries = plan.writer.entries(chunk, tally)
                    for entry in entries:
                        decision = robots.refusal(entry.loc[cut:], agents)
                        if decision is not None:
                            listed.note(entry.loc, decision)
            finally:
                close_iterator(chunks)
        except DatabaseError:
            continue
        if listed.count:
            findings.append(
                Warning(
                    f"Section {plan.section!r} lists {listed.number()} on its first page that "
                    f"robots.txt disallows ({robots.source}, read for {', '.join(agents)}): "
                    f"{listed.examples()}.",
                    hint="Leave them out of the source (its queryset or urls), allow them in "
                    "robots.txt, or set SITEMAPKIT_ROBOTS = 'exclude' to leave them out of "
                    "the sitemap.",
                    id="sitemapkit.W030",
                )
            )
    return findings
