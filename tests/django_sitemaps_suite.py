"""Django's own ``tests/sitemaps_tests`` run against django_sitemapkit.compat.

The tests come from the sdist of the Django this environment has installed
(downloaded from the package index once, its SHA-256 checked against the
index's, kept in ``--cache``). Two things are changed, nothing else: the
URLconfs import ``views`` from ``django_sitemapkit.compat`` instead of
``django.contrib.sitemaps``, and the tests run with a settings module of their
own (Django's ``test_sqlite`` with the base URL its tests expect, and the app
added to the apps ``runtests.py`` installs). Django's ``runtests.py`` runs them
against the installed Django.

The tests that fail must be exactly those the table of docs/migrating.md
("Django's own tests") lists, each with its reason: the script fails if a test
fails that the table does not list, or if one it lists passes.

    python tests/django_sitemaps_suite.py --cache .tox/django-sitemaps-suite/sdist

Standard library only, as the tox environment runs it before anything else.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "migrating.md"
INDEX = "https://pypi.org/simple/django/"
#: The index's answer and the sdist are read at most so far, and so long (seconds).
MAX_INDEX_BYTES = 16 * 2**20
MAX_SDIST_BYTES = 64 * 2**20
TIMEOUT = 60
#: What is taken from the sdist's tests/ directory: the runner, its default settings
#: and URLconf, its templates, and the sitemaps tests.
KEPT = ("runtests.py", "test_sqlite.py", "urls.py", "templates/", "sitemaps_tests/")
#: The only lines changed in the URLconfs: contrib's views become the drop-in's.
PATCHES = {
    "sitemaps_tests/urls/http.py": (
        "from django.contrib.sitemaps import GenericSitemap, Sitemap, views\n",
        "from django.contrib.sitemaps import GenericSitemap, Sitemap\n"
        "from django_sitemapkit.compat import views\n",
    ),
    "sitemaps_tests/urls/https.py": (
        "from django.contrib.sitemaps import views\n",
        "from django_sitemapkit.compat import views\n",
    ),
}
SETTINGS = '''"""Django's test_sqlite, and what the drop-in needs.

Written by tests/django_sitemaps_suite.py.
"""

import sys

from test_sqlite import *  # noqa: F403

# The scheme and host the tests expect: contrib builds them from the current Site.
SITEMAPKIT_BASE_URL = "http://example.com"
# The system checks want the base URL's host served (sitemapkit.E004); the test
# runner adds "testserver".
ALLOWED_HOSTS = ["example.com"]

# runtests.py replaces INSTALLED_APPS with its own list once this module is read:
# the app goes in that list.
getattr(sys.modules["__main__"], "ALWAYS_INSTALLED_APPS", []).append("django_sitemapkit")
'''
RESULT = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)", re.MULTILINE)
RAN = re.compile(r"^Ran (\d+) tests? in ", re.MULTILINE)
#: unittest's line for each test it runs, at verbosity 2.
STARTED = re.compile(r"^(test\w*) \(([\w.]+)\)", re.MULTILINE)
ROW = re.compile(r"^\| `(sitemaps_tests\.[\w.]+)` \| (.+) \|$", re.MULTILINE)


class SuiteError(Exception):
    """The suite could not be run, or its outcome differs from the table."""


def django_version() -> str:
    import django

    return django.__version__


def bounded_read(url: str, limit: int, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        body: bytes = response.read(limit + 1)
    if len(body) > limit:
        raise SuiteError(f"{url} answered more than {limit:,} bytes; refused.")
    return body


def sdist(version: str, cache: Path, index: str) -> Path:
    """The sdist of Django ``version``, from ``cache`` or else from the index (PEP 691)."""
    name = f"django-{version}.tar.gz"
    path, digest = cache / name, cache / f"{name}.sha256"
    kept = path.is_file() and digest.is_file()
    if kept and hashlib.sha256(path.read_bytes()).hexdigest() == digest.read_text().strip():
        return path
    listing = json.loads(
        bounded_read(index, MAX_INDEX_BYTES, "application/vnd.pypi.simple.v1+json")
    )
    found = [entry for entry in listing.get("files", []) if entry.get("filename") == name]
    if not found:
        raise SuiteError(f"The index {index} lists no {name}: is Django {version} released?")
    expected = str(found[0]["hashes"]["sha256"])
    url = urllib.parse.urljoin(index, str(found[0]["url"]))
    body = bounded_read(url, MAX_SDIST_BYTES)
    if hashlib.sha256(body).hexdigest() != expected:
        raise SuiteError(f"{url} does not have the SHA-256 the index gives ({expected}).")
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    digest.write_text(expected + "\n")
    return path


def unpack(archive: Path, version: str, into: Path) -> Path:
    """The parts of the sdist's tests/ directory the suite needs, under ``into``."""
    prefix = f"django-{version}/tests/"
    with tarfile.open(archive) as tar:
        members = [
            member
            for member in tar.getmembers()
            if member.name.startswith(prefix) and member.name[len(prefix) :].startswith(KEPT)
        ]
        # "data": no absolute paths, links out of the tree or special files (PEP 706,
        # in every Python this project supports from 3.10.12 on).
        tar.extractall(into, members=members, filter="data")
    return into / prefix


def patch(tests: Path) -> None:
    for relative, (old, new) in PATCHES.items():
        path = tests / relative
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SuiteError(
                f"{relative} of this Django has no line {old.strip()!r} to replace: "
                "update PATCHES in tests/django_sitemaps_suite.py."
            )
        path.write_text(text.replace(old, new), encoding="utf-8")
    (tests / "sitemapkit_suite_settings.py").write_text(SETTINGS, encoding="utf-8")


def run(tests: Path) -> str:
    command = [
        sys.executable,
        "runtests.py",
        "sitemaps_tests",
        "--settings=sitemapkit_suite_settings",
        "--parallel=1",
        "--verbosity=2",
    ]
    done = subprocess.run(
        command, cwd=tests, capture_output=True, text=True, timeout=600, check=False
    )
    output = done.stdout + done.stderr
    if not RAN.search(output):
        raise SuiteError(f"runtests.py ran no test (exit {done.returncode}):\n{output}")
    return output


def test_id(name: str, described: str) -> str:
    """``module.Class.test``, whether unittest names the test with it or without it."""
    return described if described.endswith(f".{name}") else f"{described}.{name}"


def failures(output: str) -> set[str]:
    return {test_id(name, described) for _, name, described in RESULT.findall(output)}


def listed(table: str) -> dict[str, str]:
    """The tests docs/migrating.md lists as failing, and the reason of each."""
    return dict(ROW.findall(table))


def differences(failed: set[str], expected: dict[str, str], output: str) -> list[str]:
    """What differs between the run and the table, in words; nothing when they agree."""
    ran = {test_id(name, described) for name, described in STARTED.findall(output)}
    unlisted = sorted(failed - {*expected})
    problems = [f"{test} fails, and docs/migrating.md does not list it." for test in unlisted]
    for test in sorted({*expected} - failed):
        where = "passes" if test in ran else "was not run"
        problems.append(f"{test} {where}: remove its line from docs/migrating.md.")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="where the sdist is kept")
    parser.add_argument("--index-url", default=INDEX, help="the index's page of Django")
    options = parser.parse_args(argv)
    version = django_version()
    try:
        archive = sdist(version, options.cache, options.index_url)
        with tempfile.TemporaryDirectory(prefix="sitemapkit-django-suite-") as work:
            tests = unpack(archive, version, Path(work))
            patch(tests)
            output = run(tests)
    except (SuiteError, OSError, subprocess.TimeoutExpired, ValueError, KeyError) as exc:
        print(f"Django's sitemaps tests could not be run: {exc}", file=sys.stderr)
        return 2
    failed, expected = failures(output), listed(TABLE.read_text(encoding="utf-8"))
    ran = int(RAN.findall(output)[-1])
    problems = differences(failed, expected, output)
    print(output)
    print(
        f"Django {version}: {ran - len(failed)} of its {ran} sitemaps tests pass against "
        "the drop-in."
    )
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"The {len(failed)} that fail are those docs/migrating.md lists, with their reasons.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
