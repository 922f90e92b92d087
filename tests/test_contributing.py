"""CONTRIBUTING.md's table of modules against the package: every module named once,
in the row of its package, and nothing named that does not exist."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import django_sitemapkit

PACKAGE = Path(django_sitemapkit.__file__).parent
CONTRIBUTING = Path(__file__).parent.parent / "CONTRIBUTING.md"
TOP_LEVEL = "(top level)"


def table_rows() -> list[tuple[str, str]]:
    """(package cell, modules cell) of each row of "The package, module by module"."""
    text = CONTRIBUTING.read_text()
    section = text.split("## The package, module by module", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in {"Package", "---"}:
            continue
        rows.append((cells[0], cells[1]))
    return rows


def named_modules() -> list[str]:
    """Each module the table names, as a path in the package (``sites/hosts.py``)."""
    named = []
    for package, modules in table_rows():
        directory = "" if package == TOP_LEVEL else package.strip("`")
        assert directory == "" or directory.endswith("/"), package
        named += [directory + name for name in re.findall(r"`([a-z0-9_]+\.py)`", modules)]
    return named


def only_a_docstring(path: Path) -> bool:
    body = ast.parse(path.read_text()).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def modules_with_code() -> set[str]:
    """Every module of the package, less the ``__init__.py`` files that hold nothing
    but a docstring (the table names the packages themselves)."""
    return {
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if not (path.name == "__init__.py" and only_a_docstring(path))
    }


def test_the_table_has_a_row_per_package_and_the_top_level() -> None:
    packages = [package for package, _ in table_rows()]
    assert packages[0] == TOP_LEVEL
    assert len(packages) == len(set(packages)), "a package has two rows"


def test_every_module_is_named_once_and_nothing_else() -> None:
    named = named_modules()
    assert [name for name, count in Counter(named).items() if count > 1] == []
    assert sorted(set(named) - modules_with_code()) == [], "named, but not in the package"
    assert sorted(modules_with_code() - set(named)) == [], "in the package, but not named"


def test_the_top_level_holds_at_most_fifteen_modules() -> None:
    assert len(list(PACKAGE.glob("*.py"))) <= 15


def long_modules(paths: list[Path]) -> list[tuple[str, int]]:
    return [(path.name, n) for path in paths if (n := len(path.read_text().splitlines())) > 300]


def test_no_module_of_the_package_is_over_300_lines() -> None:
    # CONTRIBUTING.md: each module one job, under 300 lines.
    assert long_modules(sorted(PACKAGE.rglob("*.py"))) == []


def test_no_helper_of_the_tests_or_the_benchmark_is_over_300_lines() -> None:
    # The rule holds for the helpers too; a test module (test_*.py) is a list of
    # cases and may be longer.
    root = CONTRIBUTING.parent
    helpers = [p for p in (root / "tests").glob("*.py") if not p.name.startswith("test_")]
    # Not what the demo installs in example_project/.venv.
    example = [
        path
        for path in sorted((root / "example_project").rglob("*.py"))
        if not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]
    assert long_modules(sorted(helpers) + example) == []
