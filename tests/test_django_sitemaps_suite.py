"""tests/django_sitemaps_suite.py: how it reads unittest's output and the table of
docs/migrating.md, and when it fails. (The suite itself runs in the tox environment
django-sitemaps-suite, which downloads Django's sdist.)"""

from __future__ import annotations

import hashlib
import json
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import django_sitemaps_suite as suite
import pytest

#: What runtests.py prints at verbosity 2, trimmed: a test with a docstring has it on
#: a line of its own, and Python 3.10's unittest names the class alone.
OUTPUT = """\
test_ok (sitemaps_tests.test_http.HTTPSitemapTests.test_ok) ... ok
test_empty_sitemap (sitemaps_tests.test_http.HTTPSitemapTests.test_empty_sitemap) ... FAIL
test_partial (sitemaps_tests.test_http.HTTPSitemapTests)
Not all items have `lastmod`. ... ERROR

======================================================================
FAIL: test_empty_sitemap (sitemaps_tests.test_http.HTTPSitemapTests.test_empty_sitemap)
----------------------------------------------------------------------
ERROR: test_partial (sitemaps_tests.test_http.HTTPSitemapTests)
----------------------------------------------------------------------
Ran 3 tests in 0.101s
"""
EMPTY = "sitemaps_tests.test_http.HTTPSitemapTests.test_empty_sitemap"
PARTIAL = "sitemaps_tests.test_http.HTTPSitemapTests.test_partial"
OK = "sitemaps_tests.test_http.HTTPSitemapTests.test_ok"


def test_the_failures_are_read_by_test_id_whatever_python_names_them() -> None:
    assert suite.failures(OUTPUT) == {EMPTY, PARTIAL}


def test_the_table_of_the_docs_lists_each_failure_once_with_its_reason() -> None:
    table = suite.listed(suite.TABLE.read_text(encoding="utf-8"))
    assert len(table) == 15
    assert table[EMPTY] == (
        "a page without a valid entry is a 404, where contrib answers an empty "
        "`<urlset>`, which the schema refuses"
    )


def test_the_run_agrees_with_a_table_that_lists_its_failures() -> None:
    assert suite.differences({EMPTY, PARTIAL}, {EMPTY: "", PARTIAL: ""}, OUTPUT) == []


def test_a_failure_the_table_does_not_list_and_a_listed_test_that_passes_are_named() -> None:
    listed = {EMPTY: "", OK: "", "sitemaps_tests.test_http.HTTPSitemapTests.test_gone": ""}
    assert suite.differences({EMPTY, PARTIAL}, listed, OUTPUT) == [
        f"{PARTIAL} fails, and docs/migrating.md does not list it.",
        "sitemaps_tests.test_http.HTTPSitemapTests.test_gone was not run: remove its line "
        "from docs/migrating.md.",
        f"{OK} passes: remove its line from docs/migrating.md.",
    ]


def sdist_of(tmp_path: Path, version: str, urlconf: str) -> Path:
    """A made-up sdist with Django's layout, one URLconf in it."""
    tree = tmp_path / "tree"
    urls = tree / f"django-{version}" / "tests" / "sitemaps_tests" / "urls"
    urls.mkdir(parents=True)
    (urls / "http.py").write_text(urlconf)
    (urls / "https.py").write_text("from django.contrib.sitemaps import views\n")
    (tree / f"django-{version}" / "setup.py").write_text("")
    archive = tmp_path / f"django-{version}.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree / f"django-{version}", arcname=f"django-{version}")
    return archive


def test_only_the_tests_are_unpacked_and_only_the_import_line_is_changed(tmp_path: Path) -> None:
    urlconf = "from django.contrib.sitemaps import GenericSitemap, Sitemap, views\nX = 1\n"
    tests = suite.unpack(sdist_of(tmp_path, "9.9", urlconf), "9.9", tmp_path / "out")
    assert not (tmp_path / "out" / "django-9.9" / "setup.py").exists()
    suite.patch(tests)
    assert (tests / "sitemaps_tests" / "urls" / "http.py").read_text() == (
        "from django.contrib.sitemaps import GenericSitemap, Sitemap\n"
        "from django_sitemapkit.compat import views\nX = 1\n"
    )
    settings = (tests / "sitemapkit_suite_settings.py").read_text()
    assert 'SITEMAPKIT_BASE_URL = "http://example.com"' in settings


def test_a_urlconf_without_the_import_line_stops_the_run_with_the_fix(tmp_path: Path) -> None:
    tests = suite.unpack(sdist_of(tmp_path, "9.9", "X = 1\n"), "9.9", tmp_path / "out")
    with pytest.raises(suite.SuiteError) as caught:
        suite.patch(tests)
    assert str(caught.value) == (
        "sitemaps_tests/urls/http.py of this Django has no line 'from django.contrib.sitemaps "
        "import GenericSitemap, Sitemap, views' to replace: update PATCHES in "
        "tests/django_sitemaps_suite.py."
    )


def test_a_kept_sdist_is_used_when_its_digest_matches(tmp_path: Path) -> None:
    archive = sdist_of(tmp_path, "9.9", "X = 1\n")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    (tmp_path / "django-9.9.tar.gz.sha256").write_text(digest + "\n")
    # An index that cannot be reached: the kept copy is used without asking it.
    assert suite.sdist("9.9", tmp_path, "http://127.0.0.1:9/simple/django/") == archive


@pytest.fixture
def index_server(tmp_path: Path) -> Iterator[tuple[str, dict[str, bytes]]]:
    """An index on 127.0.0.1 answering what ``served`` holds, by path."""
    served: dict[str, bytes] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def listing(sha256: str) -> bytes:
    entry = {"filename": "django-9.9.tar.gz", "url": "/files/django-9.9.tar.gz"}
    return json.dumps({"files": [{**entry, "hashes": {"sha256": sha256}}]}).encode()


@pytest.mark.slow
def test_the_sdist_is_downloaded_from_the_index_checked_and_kept(
    tmp_path: Path, index_server: tuple[str, dict[str, bytes]]
) -> None:
    url, served = index_server
    body = sdist_of(tmp_path, "9.9", "X = 1\n").read_bytes()
    served["/files/django-9.9.tar.gz"] = body
    served["/simple/django/"] = listing(hashlib.sha256(body).hexdigest())
    kept = suite.sdist("9.9", tmp_path / "cache", f"{url}/simple/django/")
    assert (kept, kept.read_bytes()) == (tmp_path / "cache" / "django-9.9.tar.gz", body)


@pytest.mark.slow
def test_an_sdist_whose_digest_is_not_the_index_s_is_refused(
    tmp_path: Path, index_server: tuple[str, dict[str, bytes]]
) -> None:
    url, served = index_server
    served["/files/django-9.9.tar.gz"] = b"not the sdist"
    served["/simple/django/"] = listing("0" * 64)
    with pytest.raises(suite.SuiteError) as caught:
        suite.sdist("9.9", tmp_path / "cache", f"{url}/simple/django/")
    assert str(caught.value) == (
        f"{url}/files/django-9.9.tar.gz does not have the SHA-256 the index gives ({'0' * 64})."
    )
    assert not (tmp_path / "cache" / "django-9.9.tar.gz").exists()
