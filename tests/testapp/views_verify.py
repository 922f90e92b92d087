"""Article pages for ``verify_sitemaps`` (``tests/test_verify_sitemaps.py``): each a
clean page with its own canonical URL, except the planted rows, whose slug chooses
the problem."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

from django.contrib.auth.decorators import login_required
from django.core.mail import send_mail
from django.db import connection, transaction
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404

from testapp.models import Article

#: What the views' ``on_commit`` hooks did (none may run under verify_sitemaps).
committed: list[str] = []
#: What the "threaded" page's thread raised.
thread_errors: list[str] = []
#: Whether the robots.txt view writes a row each time it is asked (what a view that
#: logs its requests does).
robots_writes = False
#: The site's robots.txt: an article whose slug ends in ``-hidden`` is disallowed by a
#: wildcard rule, and ``?print=`` pages by another.
ROBOTS_TXT = "User-agent: *\nDisallow: /*?print=\nDisallow: /articles/*-hidden/$\n"


def html(title: str, head: str) -> HttpResponse:
    return HttpResponse(
        "<!doctype html>\n<html><head><title>" + title + "</title>" + head + "</head>"
        "<body><h1>" + title + "</h1></body></html>"
    )


def own_canonical(request: HttpRequest) -> str:
    return f'<link rel="canonical" href="{request.build_absolute_uri()}">'


def article(request: HttpRequest, slug: str) -> HttpResponse:
    if slug == "threaded":
        # Before this thread reads the table: SQLite's in-memory test database locks a
        # table another connection has read in its transaction.
        return threaded(request, slug)
    found = get_object_or_404(Article, slug=slug)
    if slug == "missing":
        # A listed row the page does not show: what a stricter queryset does.
        raise Http404("No such article.")
    if slug == "moved":
        return HttpResponseRedirect("/articles/elsewhere/", status=301)
    if slug == "private":
        return login_required(lambda request: html(found.title, own_canonical(request)))(request)
    if slug == "broken":
        raise ValueError("the template is missing")
    if slug == "meta-noindex":
        return html(found.title, '<meta name="robots" content="noindex, follow">')
    if slug == "header-noindex":
        response = html(found.title, own_canonical(request))
        response["X-Robots-Tag"] = "googlebot: noindex"
        return response
    if slug == "copy":
        return html(found.title, '<link rel="canonical" href="../original/">')
    if slug == "interrupted":
        # What Ctrl-C raises wherever the process is when it comes.
        raise KeyboardInterrupt
    if slug == "escaped":
        # ESC in a header: a terminal would clear its screen.
        response = html(found.title, own_canonical(request))
        response["X-Robots-Tag"] = "noindex, \x1b[2J"
        return response
    if slug == "writer":
        return writing(request, found)
    if slug == "mailer":
        # What a view that notifies someone does.
        send_mail("Viewed", f"{slug} was viewed.", "site@example.com", ["editor@example.com"])
    if slug == "committer":
        # What a view that ends its transaction by hand does: ``?sql=`` says how.
        Article.objects.create(slug="written-before-a-commit", published=False)
        with connection.cursor() as cursor:
            cursor.execute(request.GET.get("sql", "COMMIT"))
        Article.objects.create(slug="written-after-a-commit", published=False)
    if slug == "exits":
        sys.exit(3)
    if slug == "killed":
        # A view that ends its process: nothing below it runs.
        os.kill(os.getpid(), signal.SIGKILL)
    if slug == "sleeper":
        return sleeping(request, found)
    if slug == "stubborn":
        # A view that catches everything, its deadline's exception included.
        try:
            time.sleep(60)
        except BaseException:
            time.sleep(60)
    if slug == "stuck":
        # What a view blocked in C code is to a signal: SIGALRM waits until it returns.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(60)
    return html(found.title, own_canonical(request))


def writing(request: HttpRequest, found: Article) -> HttpResponse:
    """A page that writes on every view: a counter, a log row, a hook after commit."""
    Article.objects.filter(pk=found.pk).update(title="viewed")
    Article.objects.create(slug="written-by-a-view", published=False)
    transaction.on_commit(lambda: committed.append(found.slug or ""))
    return html(found.title, own_canonical(request))


def threaded(request: HttpRequest, slug: str) -> HttpResponse:
    """A page that writes on a thread of its own (with its own database connection),
    in and out of an atomic block, and waits for it; with ``?commit=1`` the thread
    commits by hand, and keeps what that raised in ``thread_errors``."""

    def write() -> None:
        Article.objects.create(slug="written-on-a-thread", published=False)
        with transaction.atomic():
            Article.objects.filter(slug=slug).update(title="threaded")
        if request.GET.get("commit"):
            try:
                transaction.commit()
            except Exception as exc:
                thread_errors.append(f"{type(exc).__name__}: {exc}")

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    return html(slug.title(), own_canonical(request))


def sleeping(request: HttpRequest, found: Article) -> HttpResponse:
    """A page that writes, then waits a minute inside its transaction (an upstream
    service that never answers)."""
    with transaction.atomic():
        Article.objects.filter(pk=found.pk).update(title="asleep")
        time.sleep(60)
    return html(found.title, own_canonical(request))


def failing_sitemap(request: HttpRequest) -> HttpResponse:
    """A sitemap page whose view fails: what a source that raises answers."""
    raise ValueError("the sitemap's source failed")


def empty_sitemap(request: HttpRequest) -> HttpResponse:
    return HttpResponse(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>\n',
        content_type="application/xml",
    )


def login(request: HttpRequest) -> HttpResponse:
    return html("Log in", own_canonical(request))


def echo(request: HttpRequest) -> HttpResponse:
    """A page whose canonical URL is the request's own, as the view sees it (scheme,
    host, script name, path and query), and whose title is its user agent."""
    return html(request.headers.get("User-Agent", ""), own_canonical(request))


def streamed(request: HttpRequest, fails: bool) -> StreamingHttpResponse:
    """A page streamed in pieces: a megabyte and more of head before its robots tag,
    or a head that fails after its first bytes."""

    def pieces() -> Iterator[bytes]:
        yield b"<!doctype html><html><head><title>Long</title>"
        if fails:
            raise ConnectionError("the upstream service went away")
        for _ in range(20):
            yield b"<style>" + b" " * 65_536 + b"</style>"
        yield b'<meta name="robots" content="noindex"></head><body></body></html>'

    return StreamingHttpResponse(pieces(), content_type="text/html; charset=utf-8")


def robots_txt(request: HttpRequest) -> HttpResponse:
    if robots_writes:
        Article.objects.create(slug="written-by-robots-txt", published=False)
    return HttpResponse(ROBOTS_TXT, content_type="text/plain; charset=utf-8")
