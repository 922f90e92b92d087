"""One run of ``verify_sitemaps``: the sites and sections it covers, each site's
sitemap documents requested, each section's listed URLs read a page at a time,
the sampled ones requested, every problem counted and written as it is found,
and the hreflang check at the end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from django_sitemapkit.build.selection import selected_sites, site_builds
from django_sitemapkit.conf import conf
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.console import VerifyConsole
from django_sitemapkit.verification.containment import refused_host
from django_sitemapkit.verification.documents import DOCUMENTS, request_documents
from django_sitemapkit.verification.hreflang import Reciprocity
from django_sitemapkit.verification.json_report import JsonReport
from django_sitemapkit.verification.listing import DatabaseSection, Page, Sample, Section
from django_sitemapkit.verification.published import UnreadableSet, built_sections, built_set
from django_sitemapkit.verification.reasons import UNREADABLE, Reason, reason
from django_sitemapkit.verification.report import Tallies
from django_sitemapkit.verification.requester import Requester, requesting
from django_sitemapkit.verification.workers import BATCH_URLS, Batch, Done, Requests


class VerifyError(Exception):
    """The run cannot start: a site, a section or a built set that is not there."""


@dataclass(frozen=True)
class VerifyOptions:
    sites: list[str] | None = None
    sections: list[str] | None = None
    built: bool = False
    sample: int | None = None
    jobs: int = 1
    #: Seconds a view may run: ``--timeout``, else ``SITEMAPKIT_VERIFY_TIMEOUT``.
    timeout: float | None = None

    @property
    def deadline(self) -> float:
        return conf.VERIFY_TIMEOUT if self.timeout is None else self.timeout


Planned = list[tuple[SitemapSite, list[Section]]]


def planned(options: VerifyOptions) -> tuple[Planned, list[str]]:
    """Each site of the run with its sections, and the ``Site`` rows left out."""
    try:
        sites, problems = selected_sites(options.sites)
        if not options.built:
            builds = site_builds(sites, options.sections)
            found: Planned = [
                (each.site, [DatabaseSection.of(source, each.site) for source in each.sources])
                for each in builds
            ]
            return found, problems
        found = []
        for site in sites:
            found.append((site, list[Section](built_sections(site, *built_set(site)))))
    except (BuildError, UnreadableSet) as exc:
        raise VerifyError(str(exc)) from exc
    return chosen(found, options.sections), problems


def refused_hosts(sites: Planned) -> list[str]:
    """Why each site with URLs to request would be answered 400 on every one of them."""
    found = []
    for site, sections in sites:
        why = refused_host(site) if any(section.urls for section in sections) else None
        if why is not None:
            found.append(why)
    return found


def chosen(found: Planned, names: list[str] | None) -> Planned:
    """The built sections ``--section`` names; one no site's set has is an error."""
    if names is None:
        return found
    known = list(dict.fromkeys(section.section for _, sections in found for section in sections))
    unknown = [name for name in names if name not in known]
    if unknown:
        listed = ", ".join(repr(name) for name in known) or "none"
        raise VerifyError(f"No built section named {unknown[0]!r}; the sections are {listed}.")
    return [
        (site, [each for each in sections if each.section in names]) for site, sections in found
    ]


class Verification:
    """A run's state: what was found so far, and where it is reported."""

    def __init__(
        self,
        options: VerifyOptions,
        console: VerifyConsole,
        tallies: Tallies,
        report: JsonReport | None,
    ) -> None:
        self.options = options
        self.console = console
        self.tallies = tallies
        self.report = report
        self.reciprocity = Reciprocity()

    def found(self, site: str, section: str, url: str, problem: Reason) -> None:
        self.tallies.add(site, section, url, problem)
        if self.report is not None:
            self.report.add(site, section, url, problem)

    def run(self, sites: Planned) -> None:
        try:
            with requesting(request_log=self.console.verbosity >= 2):
                for site, sections in sites:
                    self.site(site, sections)
            # Every URL read only without a choice of sites, sections or a sample.
            options = self.options
            every_url_read = options.sample is None and not (options.sites or options.sections)
            found = 0
            for problem in self.reciprocity.problems(every_url_read):
                self.found(*problem)
                found += 1
            reciprocity = self.reciprocity
            self.console.alternates_done(reciprocity.links_read, found, reciprocity.unchecked)
        finally:
            self.reciprocity.close()

    def site(self, site: SitemapSite, sections: list[Section]) -> None:
        self.console.site_header(site)
        if not sections:
            self.console.nothing_listed()
            return
        self.documents(site)
        requests = Requests(site, self.options.jobs, self.options.deadline)
        try:
            for section in sections:
                self.section(site, section, requests)
        finally:
            requests.close()

    def documents(self, site: SitemapSite) -> None:
        """Request the site's index and the pages it lists, before its URLs."""
        started = time.monotonic()
        found = request_documents(
            site, Requester(site, self.options.deadline), self.options.sections
        )
        if found.index is None:
            self.console.no_index(DOCUMENTS)
            return
        tally = self.tallies.section(site.name, DOCUMENTS, documents=True)
        tally.listed = tally.requested = found.requested
        tally.mails = found.mails
        for url, problem in found.problems:
            self.found(site.name, DOCUMENTS, url, problem)
        tally.seconds = time.monotonic() - started
        self.console.documents_done(tally)

    def section(self, site: SitemapSite, section: Section, requests: Requests) -> None:
        sample = Sample(section.urls, self.options.sample)
        tally = self.tallies.section(site.name, section.section)
        tally.listed = section.urls
        started = time.monotonic()
        batch: list[str] = []
        for page in section.pages(sample.touches):
            batch = self.page(site, section.section, page, sample, batch)
            while len(batch) >= BATCH_URLS:
                self.absorb(site, requests.send(Batch(section.section, batch[:BATCH_URLS])))
                batch = batch[BATCH_URLS:]
                self.console.progress(tally, sample.count, started)
        if batch:
            self.absorb(site, requests.send(Batch(section.section, batch)))
        self.absorb(site, requests.rest())
        tally.seconds = time.monotonic() - started
        self.console.section_done(tally)

    def page(
        self, site: SitemapSite, section: str, page: Page, sample: Sample, batch: list[str]
    ) -> list[str]:
        """``batch`` with the page's sampled URLs; each URL read goes to the hreflang
        check, and a page that could not be read is a problem of its own."""
        if page.failure is not None:
            url, why = page.failure
            self.found(site.name, section, url, reason(UNREADABLE, why))
        for position, listed in enumerate(page.urls, page.first):
            self.reciprocity.add(site.name, section, listed)
            if position in sample:
                batch.append(listed.loc)
        return batch

    def absorb(self, site: SitemapSite, done: Iterator[Done]) -> None:
        for each in done:
            tally = self.tallies.section(site.name, each.section)
            tally.requested += each.requested
            tally.mails += each.mails
            for url, reasons in each.problems:
                for problem in reasons:
                    self.found(site.name, each.section, url, problem)


def dry_run(console: VerifyConsole, sites: Planned, sample: int | None) -> int:
    """Print what a run would request; the number of URLs."""
    total = 0
    for site, sections in sites:
        console.site_header(site)
        if not sections:
            console.nothing_listed()
        for section in sections:
            count = Sample(section.urls, sample).count
            console.would_request(section.section, count, section.urls)
            total += count
    return total
