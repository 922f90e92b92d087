"""The API reference (docs/api.md) has an entry for every public name, and each
entry says what its object is.

The public names are what the packages export (``__all__``), the functions the
pages tell a project to import from modules without one, the URLconfs a
project includes and the management commands. The fast tests read api.md's
autodoc directives and the docstrings; the slow ones build the site with
Sphinx and read its own inventory (``objects.inv``), where a name the build
skipped, or an object described by nothing (conf.py makes that a warning, an
error under ``-W``), cannot hide.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path

import pytest
from processes import unmeasured

from django_sitemapkit.sources.declaration import (
    DECLARED,
    HOOKS,
    QUERYSET_DECLARED,
    STATIC_DECLARED,
    SitemapSource,
    StaticSource,
)

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
PACKAGE = ROOT / "django_sitemapkit"

#: The packages whose ``__all__`` is public. The Wagtail source's is read from
#: its source: importing it imports Wagtail, which the test settings do not install.
EXPORTING = (
    "django_sitemapkit",
    "django_sitemapkit.compat",
    "django_sitemapkit.hosts",
    "django_sitemapkit.indexnow",
)
WAGTAIL = "django_sitemapkit.wagtail"
#: Public functions of a module without ``__all__``, which docs/robots.md imports.
NAMED_IN_THE_DOCS = (
    "django_sitemapkit.robots.robots_txt",
    "django_sitemapkit.robots.sitemap_lines",
)


def exported(module: str) -> list[str]:
    """The names of ``module``'s ``__all__``."""
    if module == WAGTAIL:
        tree = ast.parse((PACKAGE / "wagtail" / "__init__.py").read_text())
        (names,) = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
        ]
        return list(ast.literal_eval(names))
    return list(importlib.import_module(module).__all__)


def public_names() -> list[str]:
    """Every public name, written as its reference entry names it."""
    names = [f"{module}.{name}" for module in EXPORTING for name in exported(module)]
    names += [f"{WAGTAIL}.{name}" for name in exported(WAGTAIL)]
    return [*names, *NAMED_IN_THE_DOCS]


def urlconfs() -> list[str]:
    """The package's top-level modules that a project include()s: those with URL patterns."""
    return [
        f"django_sitemapkit.{path.stem}"
        for path in sorted(PACKAGE.glob("*.py"))
        if re.search(r"^urlpatterns = ", path.read_text(), flags=re.MULTILINE)
    ]


def commands() -> list[str]:
    folder = PACKAGE / "management" / "commands"
    return [
        f"django_sitemapkit.management.commands.{path.stem}"
        for path in sorted(folder.glob("*.py"))
        if path.stem != "__init__"
    ]


def entries(text: str) -> dict[str, list[str]]:
    """Each object api.md's ``{eval-rst}`` blocks document (``.. autoclass::`` and the
    other autodoc directives), with the members listed under it, in order: the
    nested ``.. autoattribute::`` and ``.. automethod::`` directives and the names
    of a ``:members:`` option."""
    found: dict[str, list[str]] = {}
    for block in re.findall(r"^```\{eval-rst\}\n(.*?)^```$", text, flags=re.MULTILINE | re.DOTALL):
        current: list[str] = []
        for line in block.splitlines():
            top = re.fullmatch(r"\.\. auto\w+:: (\S+)", line)
            nested = re.fullmatch(r" {3}\.\. auto(?:attribute|method):: (\w+)", line)
            members = re.fullmatch(r" {3}:members: (.+)", line)
            if top:
                current = found.setdefault(top.group(1), [])
            elif nested:
                current.append(nested.group(1))
            elif members:
                current += [name.strip() for name in members.group(1).split(",")]
    return found


def missing(text: str) -> list[str]:
    """The public names, URLconfs and commands that ``text`` has no entry for."""
    documented = entries(text)
    return [name for name in public_names() + urlconfs() + commands() if name not in documented]


def test_every_public_name_has_an_entry_in_the_reference() -> None:
    names = public_names()
    assert len(names) > 25
    assert "django_sitemapkit.StaticPage" in names
    assert "django_sitemapkit.registry" in names
    assert urlconfs() == [
        "django_sitemapkit.contrib_redirects",
        "django_sitemapkit.html_urls",
        "django_sitemapkit.urls",
    ]
    assert missing((DOCS / "api.md").read_text()) == []


def test_a_name_left_out_of_the_reference_is_reported() -> None:
    text = (DOCS / "api.md").read_text()
    for line in (
        ".. autoclass:: django_sitemapkit.StaticPage\n",
        ".. autofunction:: django_sitemapkit.compat.register\n",
        ".. automodule:: django_sitemapkit.html_urls\n",
        ".. automodule:: django_sitemapkit.management.commands.verify_sitemaps\n",
    ):
        assert line in text
        name = line.split(":: ")[1].strip()
        assert missing(text.replace(line, "")) == [name]


def target(name: str) -> object:
    """The object, or the module, that ``name`` names: ``django_sitemapkit.registry``
    is the registry, which hides the module of its name."""
    module, _, attribute = name.rpartition(".")
    parent = importlib.import_module(module)
    if hasattr(parent, attribute):
        return getattr(parent, attribute)
    return importlib.import_module(name)


def own_docstring(obj: object) -> str:
    """What ``obj`` says of itself: not the docstring a dataclass or a named tuple
    makes up from its fields (``"Video(thumbnail_loc: str, ...)"``)."""
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    return "" if doc.startswith(f"{getattr(obj, '__name__', '')}(") else doc


#: The public modules, classes and functions (Wagtail's is not importable here). A
#: value (``registry``, IndexNow's constants) is described by its ``#:`` comment,
#: which only Sphinx reads: the slow test's build checks those.
DESCRIBED = [
    name
    for name in public_names() + urlconfs() + commands()
    if not name.startswith(WAGTAIL)
    and any(check(target(name)) for check in (inspect.ismodule, inspect.isclass, inspect.isroutine))
]


@pytest.mark.parametrize("name", DESCRIBED)
def test_every_public_module_class_and_function_has_a_docstring(name: str) -> None:
    assert own_docstring(target(name)) != ""


def test_a_made_up_docstring_is_no_docstring() -> None:
    from django_sitemapkit import StaticPage, Video

    class Bare:
        pass

    assert len(DESCRIBED) > 25
    assert own_docstring(Bare) == ""
    assert own_docstring(Video).startswith("One video of a page")
    assert own_docstring(type("Video", (), {"__doc__": "Video(title: str)"})) == ""
    assert own_docstring(StaticPage).startswith("One fixed page")


def vocabulary(source_class: type[SitemapSource] | type[StaticSource]) -> set[str]:
    """The names a subclass of ``source_class`` may declare or override
    (sources/declaration.py), which the engine reads and nothing else."""
    kind = QUERYSET_DECLARED if source_class is SitemapSource else STATIC_DECLARED
    return {*DECLARED, *kind, *(hook for hook in HOOKS if hasattr(source_class, hook))}


@pytest.mark.parametrize("source_class", [SitemapSource, StaticSource], ids=lambda c: c.__name__)
def test_the_reference_lists_a_source_class_s_whole_vocabulary(
    source_class: type[SitemapSource] | type[StaticSource],
) -> None:
    listed = entries((DOCS / "api.md").read_text())[f"django_sitemapkit.{source_class.__name__}"]
    assert len(listed) == len(set(listed)), listed
    assert set(listed) == vocabulary(source_class)


def test_vocabulary_is_the_declaration_s() -> None:
    assert vocabulary(StaticSource) == {*DECLARED, "urls", "location"}
    assert {"queryset", "get_queryset", "get_site_queryset", "location"} <= vocabulary(
        SitemapSource
    )


def build(source: Path, output: Path) -> subprocess.CompletedProcess[str]:
    """The site of ``source`` built into ``output`` as tox's docs environment builds
    it (``-W -n``), in a process of its own, without the test run's warnings filter
    (Sphinx's extensions warn of Sphinx's own deprecations) or settings."""
    # Nor measured by coverage.py (tests/processes.py): the build imports the
    # package only for its docstrings.
    environment = {
        name: value
        for name, value in unmeasured(dict(os.environ)).items()
        if name not in ("PYTHONWARNINGS", "DJANGO_SETTINGS_MODULE")
    }
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-E", "-W", "-n", "-q", "-b", "html", source, output],
        capture_output=True,
        text=True,
        env=environment,
        timeout=240,
        check=False,
    )


# docs/conf.py reads pyproject.toml with tomllib, as the docs environment (Python 3.12)
# does: the slow lane's Python 3.13 builds the site, its Python 3.10 cannot.
needs_tomllib = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="docs/conf.py needs tomllib (Python 3.11 or later)"
)


@pytest.mark.slow
@needs_tomllib
def test_the_built_site_has_an_entry_for_every_public_name(tmp_path: Path) -> None:
    from sphinx.util.inventory import InventoryFile

    built = build(DOCS, tmp_path)
    assert (built.returncode, built.stderr) == (0, "")
    with (tmp_path / "objects.inv").open("rb") as inventory:
        objects = InventoryFile.load(inventory, "", posixpath.join)
    python = {name for kind, items in objects.items() if kind.startswith("py:") for name in items}
    assert [name for name in public_names() if name not in python] == []
    modules = set(objects["py:module"])
    assert [name for name in urlconfs() + commands() if name not in modules] == []
    for source_class in (SitemapSource, StaticSource):
        prefix = f"django_sitemapkit.{source_class.__name__}."
        assert {name.removeprefix(prefix) for name in python if name.startswith(prefix)} == (
            vocabulary(source_class)
        )
    # The general index lists them, and the index page links it.
    index = (tmp_path / "genindex.html").read_text()
    assert 'href="api.html#django_sitemapkit.StaticPage"' in index
    assert 'href="genindex.html"' in (tmp_path / "index.html").read_text()


@pytest.mark.slow
@needs_tomllib
def test_an_object_the_reference_describes_without_a_docstring_fails_the_build(
    tmp_path: Path,
) -> None:
    # The site's own configuration, run from a directory of its own whose one page
    # documents a class of the package that has no docstring.
    source = tmp_path / "source"
    source.mkdir()
    conf = DOCS / "conf.py"
    (source / "conf.py").write_text(
        f"__file__ = {str(conf)!r}\nexec(compile(open(__file__).read(), __file__, 'exec'))\n"
    )
    (source / "index.md").write_text(
        "# Index\n\n```{eval-rst}\n.. autoclass:: django_sitemapkit.urls.PageConverter\n```\n"
    )
    assert own_docstring(target("django_sitemapkit.urls.PageConverter")) == ""
    built = build(source, tmp_path / "html")
    assert built.returncode == 1
    assert "WARNING: class django_sitemapkit.urls.PageConverter has no docstring" in built.stderr, (
        built.stderr
    )
