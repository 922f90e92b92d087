"""The distributions as a release publishes them (tests/distributions.py).

The version has one home; the metadata carries the project's links and
classifiers from the package index's own list; the sdist holds the package
and no test; the wheel holds every file of the package (its templates at any
depth too); the long description, rendered by readme_renderer as the package
index renders it, links nowhere relative. The wheel alone, installed in a clean
environment, serving a minimal project's sitemap is CI's release step
(``python3 tests/distributions.py``), not a test here.

The slow tests build both distributions once, from a copy of this checkout's
files (what ``git ls-files`` lists, and new files not ignored) with a template
two directories down added, as ``python -m build`` does for a release.
"""

from __future__ import annotations

import configparser
import importlib.metadata
import re
import shutil
import subprocess
import sys
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import docs_urls
import pytest
import readme_renderer.markdown
from distributions import build, members, metadata
from packaging.version import Version
from trove_classifiers import classifiers, deprecated_classifiers

import django_sitemapkit

ROOT = Path(__file__).resolve().parent.parent
#: A template below the package's templates/ directory, in the copy only: the
#: package data must take the HTML sitemap's templates at any depth.
PROBE = "django_sitemapkit/templates/django_sitemapkit/probe/nested.html"


def test_the_version_has_one_home_the_package_s_version() -> None:
    # PEP 440, in the normalized form the package index shows and file names carry.
    assert str(Version(django_sitemapkit.__version__)) == django_sitemapkit.__version__
    assert importlib.metadata.version("django-sitemapkit") == django_sitemapkit.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    # No second literal: [project] declares the version dynamic, read from the package.
    assert re.findall(r"^version = .*$", pyproject, flags=re.MULTILINE) == [
        'version = { attr = "django_sitemapkit.__version__" }'
    ]


def test_the_changelog_opens_with_the_package_s_version() -> None:
    # The release checklist (docs/development.md): the section is dated on the
    # day of the upload, and says "unreleased" until then; after a release,
    # main's "X.Y.Z.dev0" opens the section of X.Y.Z, unreleased.
    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = re.search(r"^## (.+)$", changelog, flags=re.MULTILINE)
    assert first is not None
    version, _, when = first.group(1).partition(" ")
    package = Version(django_sitemapkit.__version__)
    assert version == package.base_version
    dates = r"\(unreleased\)" if package.is_devrelease else r"\((unreleased|\d{4}-\d{2}-\d{2})\)"
    assert re.fullmatch(dates, when), when


def test_the_project_links_are_the_release_s_in_order() -> None:
    assert list(docs_urls.project_urls().items()) == [
        ("Homepage", "https://github.com/django-sitemapkit/django-sitemapkit"),
        ("Documentation", "https://django-sitemapkit.readthedocs.io/"),
        ("Source", "https://github.com/django-sitemapkit/django-sitemapkit"),
        ("Changelog", "https://django-sitemapkit.readthedocs.io/en/latest/changelog.html"),
        ("Issues", "https://github.com/django-sitemapkit/django-sitemapkit/issues"),
    ]


def expand(pattern: str) -> list[str]:
    """tox's braces: ``py31{2,3}-django{52,60}`` as its four environment names."""
    braces = re.search(r"\{([^{}]*)\}", pattern)
    if not braces:
        return [pattern]
    head, tail = pattern[: braces.start()], pattern[braces.end() :]
    return [name for part in braces.group(1).split(",") for name in expand(head + part + tail)]


def test_the_classifiers_are_the_index_s_and_name_the_pairs_tox_tests() -> None:
    declared = importlib.metadata.metadata("django-sitemapkit").get_all("Classifier") or []
    assert [c for c in declared if c not in classifiers or c in deprecated_classifiers] == []
    assert [c for c in declared if c.startswith("Development Status")] == [
        "Development Status :: 4 - Beta"
    ]
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    pairs = [
        re.fullmatch(r"py3(\d+)-django(\d)(\d)", name)
        # The label "tests": the matrix, its names split at commas outside braces.
        for entry in re.split(r",(?![^{]*\})", tox["tox"]["labels"].partition("=")[2])
        for name in expand(entry.strip())
    ]
    assert all(pairs)
    assert len(pairs) == 8
    pythons = {f"Programming Language :: Python :: 3.{p.group(1)}" for p in pairs if p}
    djangos = {f"Framework :: Django :: {p.group(2)}.{p.group(3)}" for p in pairs if p}
    assert {c for c in declared if re.fullmatch(r".*Python :: 3\.\d+", c)} == pythons
    assert {c for c in declared if re.fullmatch(r".*Django :: \d\.\d", c)} == djangos


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The copy of the checkout, and its sdist and wheel."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    copy = tmp_path_factory.mktemp("checkout")
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # not a file deleted since it was added
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    (copy / PROBE).parent.mkdir(parents=True)
    (copy / PROBE).write_text("{# found by tests/test_packaging.py #}\n")
    scratch = tmp_path_factory.mktemp("build")
    sdist, wheel = build(Path(sys.executable), copy, scratch / "dist", scratch / "setuptools")
    return copy, sdist, wheel


def package_files(copy: Path) -> set[str]:
    """Every file of the package in ``copy``, but compiled bytecode."""
    package = copy / "django_sitemapkit"
    return {
        path.relative_to(copy).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


@pytest.mark.slow
@pytest.mark.once
def test_the_sdist_holds_the_package_and_leaves_the_tests_out(
    built: tuple[Path, Path, Path],
) -> None:
    copy, sdist, _ = built
    around = {"PKG-INFO", "setup.cfg", "pyproject.toml", "MANIFEST.in"}
    around |= {"README.md", "LICENSE", "CHANGELOG.md"}
    assert members(sdist) == around | package_files(copy)


@pytest.mark.slow
@pytest.mark.once
def test_the_wheel_holds_every_file_of_the_package(built: tuple[Path, Path, Path]) -> None:
    copy, _, wheel = built
    info = f"django_sitemapkit-{metadata(wheel)['Version']}.dist-info/"
    files = members(wheel)
    assert {name for name in files if not name.startswith(info)} == package_files(copy)
    assert {name for name in files if name.startswith(info)} == {
        f"{info}{name}" for name in ("METADATA", "WHEEL", "RECORD", "top_level.txt")
    } | {f"{info}licenses/LICENSE"}
    for name in ("py.typed", "schemas/sitemap.xsd", "migrations/0001_initial.py"):
        assert f"django_sitemapkit/{name}" in files
    assert PROBE in files


class Links(HTMLParser):
    """Every href and src of an HTML document, in order, and its ids."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [value or "" for name, value in attrs if name in ("href", "src")]
        self.ids |= {value or "" for name, value in attrs if name == "id"}


def rendered_links(description: Message) -> list[str]:
    """The links of the long description as the package index renders it
    (readme_renderer), less those to a heading of the page itself: the renderer
    gives each heading an anchor, and writes a link to ``#a-heading`` as one to
    the id it gives it (``#user-content-a-heading``), which works there too."""
    assert description["Description-Content-Type"] == "text/markdown"
    body = description.get_payload()
    assert isinstance(body, str)
    html = readme_renderer.markdown.render(body)
    assert html is not None
    parser = Links()
    parser.feed(html)
    return [url for url in parser.found if not (url[:1] == "#" and url[1:] in parser.ids)]


@pytest.mark.slow
@pytest.mark.once
def test_the_long_description_renders_with_no_relative_link(
    built: tuple[Path, Path, Path],
) -> None:
    _, _, wheel = built
    links = rendered_links(metadata(wheel))
    assert len(links) > 30
    relative = [url for url in links if not (urlsplit(url).scheme and urlsplit(url).netloc)]
    assert relative == []
    assert {urlsplit(url).scheme for url in links} == {"https"}
    # A link into the documentation names a page of docs/ and one of its headings.
    for url in links:
        if named := docs_urls.page_and_anchor(url):
            page, anchor = named
            assert (docs_urls.DOCS / f"{page}.md").is_file(), url
            assert not anchor or anchor in docs_urls.heading_ids(page), url


def test_a_relative_link_is_found_in_the_rendered_description() -> None:
    description = Message()
    description["Description-Content-Type"] = "text/markdown"
    description.set_payload(
        "# Install\n\n[Docs](docs/build.md), ![a](img.png), [up](#install), [x](#nowhere).\n"
    )
    # readme_renderer writes "#install" as "#user-content-install", the id it
    # gives the heading: that one works on the index, "#nowhere" does not.
    assert rendered_links(description) == ["docs/build.md", "img.png", "#user-content-nowhere"]


def test_a_documentation_link_names_its_page_and_heading() -> None:
    latest = "https://django-sitemapkit.readthedocs.io/en/latest/"
    assert docs_urls.page_and_anchor(f"{latest}performance.html#fresh-on-commit") == (
        "performance",
        "fresh-on-commit",
    )
    assert "fresh-on-commit" in docs_urls.heading_ids("performance")
    # A heading of CHANGELOG.md, which docs/changelog.md includes.
    assert "changelog" in docs_urls.heading_ids("changelog")
    assert docs_urls.page_and_anchor("https://www.sitemaps.org/protocol.html") is None


@pytest.mark.slow
@pytest.mark.once
def test_the_distributions_are_of_the_package_s_version(built: tuple[Path, Path, Path]) -> None:
    _, sdist, wheel = built
    version = django_sitemapkit.__version__
    assert (sdist.name, wheel.name) == (
        f"django_sitemapkit-{version}.tar.gz",
        f"django_sitemapkit-{version}-py3-none-any.whl",
    )
    assert metadata(wheel)["Version"] == version
