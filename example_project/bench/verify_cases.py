"""The verify cases: what ``manage.py verify_sitemaps`` costs a URL, against what the
project's own views cost for the same URLs.

Both request the same ``VERIFY_URLS`` blog posts (``/posts/<category>/<slug>/``,
rendered by the blog's template: real pages, where a bench row's page is a
stub) through Django's WSGI handler in this process, as the command does, with
the command's environment for each request (``Requester.environ()``) and
connections kept open between requests (``requesting()``, which the command
runs them in):

- ``verify-views``: each response read to its end and closed, nothing else: the
  floor, the views' own time;
- ``verify-checked``: the command's work on those URLs, through the same calls
  ``verify_sitemaps`` makes for a site (``Requests``, batches of ``BATCH_URLS``):
  each request inside rolled-back transactions, its head read, the reasons
  checked; once a run, the middleware loaded and robots.txt read, as in each
  run of the command. Reading the sitemap's URLs from the database and the
  hreflang check are left out (about 10 microseconds a URL, docs/verify.md).

The posts are seeded by the case's ``setup()`` in a category of their own
(``SLUG``), every one published and indexable, and deleted by its
``teardown()``: the benchmark database keeps no blog rows, which the build cases
refuse (bench/parent.py). A category left by a killed run is deleted first.
This module is imported only by the process that runs one of its cases.
"""

from __future__ import annotations

import hashlib
import statistics
import time

from django.utils import timezone

from bench.measuring import Case, Outcome
from bench.sizes import VERIFY_URLS, Plan

#: The category of the posts the cases seed, and of nothing else.
SLUG = "bench-verify"
SECTION = "posts"
# The seed of blog/management/commands/seed.py: the same titles and bodies every run.
RANDOM_SEED = 2025


def seed_posts(count: int) -> list[str]:
    """``count`` published, indexable posts in the ``SLUG`` category; their paths."""
    import factory.random

    from blog.factories import build_posts, years_ago
    from blog.models import Category, Post

    remove_posts()
    factory.random.reseed_random(RANDOM_SEED)
    category = Category.objects.create(name="Bench verify", slug=SLUG)
    until = timezone.now().replace(microsecond=0)
    posts = build_posts(range(1, count + 1), [category], years_ago(1, until), until)
    for post in posts:
        # build_posts makes a draft or a noindex post now and then, which the
        # check would rightly report: every URL here must pass it.
        post.published, post.seo_noindex = True, False
    Post.objects.bulk_create(posts)
    return [post.get_absolute_url() for post in Post.objects.filter(category=category)]


def remove_posts() -> None:
    from blog.models import Category

    # Its posts go with it (on_delete=CASCADE).
    Category.objects.filter(slug=SLUG).delete()


def digest(urls: list[str]) -> str:
    """What both cases of the pair must agree on: the URLs that passed, sorted."""
    return hashlib.sha256("\n".join(sorted(urls)).encode()).hexdigest()


class VerifyCase:
    """The posts requested plainly (``checked`` false) or checked as the command does."""

    def __init__(self, checked: bool) -> None:
        self.checked = checked
        self.urls: list[str] = []
        # Each timed run's CPU seconds (this process's): on a shared machine, the
        # wall-clock time stretches with the other work, the CPU time much less.
        self.cpu: list[float] = []

    def setup(self) -> None:
        from django_sitemapkit.sites.hosts import all_sites
        from django_sitemapkit.verification.requester import Requester

        sites = all_sites()
        if len(sites) != 1:
            raise RuntimeError(
                f"The verify cases request one site's URLs, but {len(sites)} are configured: "
                "set SITEMAPKIT_BASE_URL (the parent does)."
            )
        self.site = sites[0]
        self.urls = [self.site.base_url + path for path in seed_posts(VERIFY_URLS)]
        # The requests' environment, as the command builds it; the plain case's handler.
        self.requester = Requester(self.site)

    def run(self, check: bool) -> Outcome:
        from django_sitemapkit.verification.requester import requesting

        started, cpu = time.perf_counter(), time.process_time()
        with requesting():
            passed, size = self.checked_run() if self.checked else self.plain_run()
        seconds = time.perf_counter() - started
        if not check:
            self.cpu.append(time.process_time() - cpu)
        if check and len(passed) != len(self.urls):
            failed = sorted(set(self.urls) - set(passed))
            raise RuntimeError(
                f"{len(self.urls) - len(passed)} of the {len(self.urls)} posts did not pass, "
                f"the first {failed[:1]!r}: the figures would not be those of the pages."
            )
        return Outcome(
            seconds=seconds,
            bytes=size,
            urls=len(passed) if check else None,
            digest=digest(passed) if check else None,
        )

    def plain_run(self) -> tuple[list[str], int]:
        """Each URL's response read to its end: those answered 200, and the bytes."""
        passed, size = [], 0
        handler = self.requester.handler
        for url in self.urls:
            response = handler(self.requester.environ(url), lambda status, headers: None)
            try:
                size += sum(len(chunk) for chunk in response)
            finally:
                response.close()
            if response.status_code == 200:
                passed.append(url)
        return passed, size

    def checked_run(self) -> tuple[list[str], int]:
        """The URLs requested and checked as ``verify_sitemaps`` does a site's: those
        requested without a problem (none is allowed), and no bytes (the command
        reads each head through the package)."""
        from django_sitemapkit.verification.workers import BATCH_URLS, Batch, Done, Requests

        requests = Requests(self.site, 1)
        done: list[Done] = []
        try:
            for first in range(0, len(self.urls), BATCH_URLS):
                done += requests.send(Batch(SECTION, self.urls[first : first + BATCH_URLS]))
            done += requests.rest()
        finally:
            requests.close()
        problems = [problem for each in done for problem in each.problems]
        requested = sum(each.requested for each in done)
        if problems or requested != len(self.urls):
            url, reasons = problems[0] if problems else ("", [])
            raise RuntimeError(
                f"The check requested {requested} of {len(self.urls)} URLs and found "
                f"{len(problems)} with problems, the first {url!r}: {reasons!r}."
            )
        return list(self.urls), 0

    def steps(self) -> dict[str, float]:
        """The CPU seconds a URL took, the median of the timed runs."""
        return {"cpu_per_url": statistics.median(self.cpu) / len(self.urls)}

    def teardown(self) -> None:
        remove_posts()


def verify_case(plan: Plan, checked: bool) -> Case:
    """``verify-views`` or ``verify-checked``'s case (bench/table.py names it)."""
    return VerifyCase(checked)
