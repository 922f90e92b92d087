"""The documentation says what the code has.

The settings reference and the checks table (docs/) list exactly the settings
and check ids of the code; every Python block of README.md and of the pages
parses, imports only what exists and uses what it imports; SECURITY.md cites
only tests that exist.
"""

from __future__ import annotations

import ast
import datetime as dt
import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import docs_urls
import pytest

from django_sitemapkit import checks
from django_sitemapkit.conf import TABLE, Settings
from django_sitemapkit.setting_rows import Setting

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"

#: Every Markdown file whose code blocks are checked: the README, the pages,
#: and the files at the root that the pages include.
ROOT_FILES = ("README.md", "SECURITY.md", "CONTRIBUTING.md", "CHANGELOG.md")
MARKDOWN = [*(ROOT / name for name in ROOT_FILES), *sorted(DOCS.glob("*.md"))]

#: The languages a fenced block may declare. A block must declare one, so a
#: Python example cannot escape the checks below by having none (or "py").
LANGUAGES = {"python", "sh", "text", "nginx", "{toctree}", "{include}", "{eval-rst}"}

#: The first line of a Python block that is not meant to parse on its own
#: (see CONTRIBUTING.md): it is only required to declare its language.
FRAGMENT = "# fragment"


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, from 1
    language: str
    code: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def fenced_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, their indentation removed."""
    blocks = []
    lines = path.read_text().splitlines()
    index = 0
    while index < len(lines):
        opening = re.match(r"^( *)(`{3,})(.*)$", lines[index])
        index += 1
        if opening is None:
            continue
        indent, fence, info = opening.groups()
        start = index
        while not re.match(rf"^ *{fence}`*\s*$", lines[index]):
            index += 1
        body = [line.removeprefix(indent) for line in lines[start:index]]
        blocks.append(Block(path, start, info.split(" ")[0], "\n".join(body) + "\n"))
        index += 1
    return blocks


BLOCKS = [block for path in MARKDOWN for block in fenced_blocks(path)]
PYTHON = [block for block in BLOCKS if block.language == "python"]


def section(text: str, heading: str) -> str:
    """The part of a page under a heading, to the next heading of its level or above.

    Lines in fenced blocks are never headings (a Python comment starts with "#").
    """
    lines: list[str] = []
    level = 0
    in_fence = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        marks = re.match(r"^(#+) ", line)
        if marks and not in_fence:
            if level and len(marks.group(1)) <= level:
                break
            if line.rstrip("\n") == f"{marks.group(1)} {heading}":
                level = len(marks.group(1))
                continue
        if level:
            lines.append(line)
    assert level, heading
    return "".join(lines)


def test_checks_table_lists_every_check_id_in_the_code() -> None:
    modules = sorted(Path(checks.__file__).parent.rglob("*.py"))
    assert len(modules) > 1, "the checks are a package of modules"
    code = "".join(module.read_text() for module in modules)
    in_code = set(re.findall(r'id="(sitemapkit\.[EW]\d{3})"', code))
    page = (DOCS / "checks.md").read_text()
    in_table = re.findall(r"^\| `(sitemapkit\.[EW]\d{3})` \|", page, flags=re.MULTILINE)
    assert len(in_table) == len(set(in_table)), "an id is listed twice"
    assert set(in_table) == in_code


def test_settings_reference_lists_every_setting_with_type_and_default() -> None:
    page = (DOCS / "settings.md").read_text()
    documented = re.findall(
        r"^## `SITEMAPKIT_(\w+)`\n\nType: `[^`]+`\. Default: `[^`]+`", page, flags=re.MULTILINE
    )
    assert documented == list(Settings.defaults)
    # No other heading names a setting: one that is not in the code is caught.
    headings = re.findall(r"^#+ .*`(SITEMAPKIT_\w+)`", page, flags=re.MULTILINE)
    assert headings == [f"SITEMAPKIT_{name}" for name in Settings.defaults]


def written(default: object) -> str:
    """A default as docs/settings.md writes it: a str in double quotes, a timedelta
    in its largest whole unit."""
    if isinstance(default, str):
        return f'"{default}"'
    if isinstance(default, dt.timedelta):
        seconds = default // dt.timedelta(seconds=1)
        units = (("days", 86_400), ("hours", 3_600), ("minutes", 60), ("seconds", 1))
        unit, size = next((unit, size) for unit, size in units if seconds % size == 0)
        return f"timedelta({unit}={seconds // size})"
    return repr(default)


@pytest.mark.parametrize("row", TABLE.values(), ids=lambda row: row.name)
def test_each_setting_is_documented_as_the_table_has_it(row: Setting[object]) -> None:
    text = section((DOCS / "settings.md").read_text(), f"`{row.setting}`")
    first, _, rest = text.strip().partition("\n\n")
    # A default may be followed by what it means, in brackets: "`None` (IndexNow off)".
    typed = rf"Type: `{re.escape(row.type_hint)}`\. Default: `{re.escape(written(row.default))}`"
    assert re.fullmatch(rf"{typed}( \(.+\))?\.", " ".join(first.split())), first
    # The section opens with the table's doc line: its words, up to its final period.
    paragraph = " ".join(rest.split("\n\n")[0].split())
    paragraph = re.sub(r"\[([^]]+)\]\([^)]+\)", r"\1", paragraph)  # a link as its text
    assert paragraph.startswith(row.doc.removesuffix(".")), paragraph


def test_the_documented_defaults_are_written_as_python() -> None:
    assert [written(value) for value in ("a", dt.timedelta(seconds=90), 3, None)] == [
        '"a"',
        "timedelta(seconds=90)",
        "3",
        "None",
    ]


def test_security_md_cites_only_tests_that_exist() -> None:
    security = (ROOT / "SECURITY.md").read_text()
    cited = re.findall(r"`(test_\w+\.py)(?:::(test_\w+))?", security)
    assert len(cited) > 30
    for module, name in cited:
        source = (ROOT / "tests" / module).read_text()
        if name:
            assert re.search(rf"^def {name}\(", source, flags=re.MULTILINE), f"{module}::{name}"


def test_the_readme_links_every_page_and_only_pages_that_exist() -> None:
    # The README is the package index's long description too: its links are the
    # site's absolute ones, which work there and on the forge alike.
    readme = (ROOT / "README.md").read_text()
    linked = {
        page
        for url in re.findall(r"\]\((https://[^)\s]+)\)", readme)
        if (page := docs_urls.page_and_anchor(url)) and not page[1]
    }
    pages = {path.stem for path in DOCS.glob("*.md")} - {"index"}
    assert {name for name, _ in linked} == pages


def test_the_quick_start_is_the_same_in_the_readme_and_the_docs() -> None:
    readme = section((ROOT / "README.md").read_text(), "Quick start")
    page = section((DOCS / "install.md").read_text(), "Quick start")
    (in_readme,) = {block.code for block in PYTHON if block.code in readme}
    assert in_readme in page


def test_every_fenced_block_declares_a_known_language() -> None:
    assert len(PYTHON) > 15
    unknown = [
        f"{block}: {block.language!r}" for block in BLOCKS if block.language not in LANGUAGES
    ]
    assert unknown == []


#: The modules of an optional extra, which import it (Wagtail, which the test settings do
#: not install): their names are read from their source instead of imported.
EXTRAS = ("django_sitemapkit.wagtail",)


def module_names(name: str) -> set[str]:
    """The names the module ``name`` defines or imports."""
    if name not in EXTRAS:
        return set(dir(importlib.import_module(name)))
    spec = importlib.util.find_spec(name)
    assert spec is not None, name
    assert spec.origin is not None, name
    tree = ast.parse(Path(spec.origin).read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def missing_names(tree: ast.Module) -> list[str]:
    """What the block imports from the package, or include()s of it, that does not exist."""
    missing = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django_sitemapkit"):
            names = module_names(node.module or "")
            missing += [
                f"{node.module}.{alias.name}" for alias in node.names if alias.name not in names
            ]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "include":
            modules = [str(arg.value) for arg in node.args if isinstance(arg, ast.Constant)]
        for name in modules:
            if name.startswith("django_sitemapkit"):
                try:
                    importlib.import_module(name)
                except ImportError:
                    missing.append(name)
    return missing


def unused_imports(tree: ast.Module) -> set[str]:
    """The names the block imports (but from __future__) and never reads."""
    imported = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        for alias in node.names
    }
    return imported - {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def parsed(block: Block) -> ast.Module | None:
    """The block's syntax tree, or None for a block marked as a fragment."""
    if block.code.startswith(FRAGMENT):
        return None
    return ast.parse(block.code, filename=str(block))


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_python_block_parses_imports_what_exists_and_uses_it(block: Block) -> None:
    tree = parsed(block)
    if tree is None:
        return
    assert missing_names(tree) == [], f"{block}: not in django_sitemapkit"
    assert unused_imports(tree) == set(), f"{block}: imported and never used"


def test_fragments_are_few() -> None:
    fragments = [str(block) for block in PYTHON if block.code.startswith(FRAGMENT)]
    assert len(fragments) <= 3, fragments


def test_the_checks_of_python_blocks_can_fail() -> None:
    """Each rule above refuses a block that breaks it."""
    broken = Block(ROOT / "README.md", 1, "python", "    def location(self, row):\n        pass\n")
    with pytest.raises(SyntaxError):
        parsed(broken)
    tree = ast.parse(
        "from django.urls import include, path\n"
        "from django_sitemapkit import Field, Sitemap, register\n"
        "import django_sitemapkit.nowhere\n"
        "register(Sitemap, django_sitemapkit.nowhere)\n"
        "urlpatterns = [path('', include('django_sitemapkit.elsewhere'))]\n"
    )
    assert missing_names(tree) == [
        "django_sitemapkit.Sitemap",
        "django_sitemapkit.nowhere",
        "django_sitemapkit.elsewhere",
    ]
    assert unused_imports(tree) == {"Field"}
