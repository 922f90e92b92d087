"""The benchmark's third-party drop-in cases (example_project/bench/thirdparty_specs.py):
each package's sitemap class from its own view and from the drop-in, for each
request, paired, in children with that package's settings, skipped where the
package is not installed. Only the case table is read: no case runs here."""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

EXAMPLE_PROJECT = Path(__file__).resolve().parents[1] / "example_project"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The benchmark's case table, imported as the benchmark's processes import it."""
    monkeypatch.syspath_prepend(str(EXAMPLE_PROJECT))
    return import_module("bench.table")


def test_each_package_has_the_three_requests_from_both_views_in_the_dropin_group(
    bench: Any,
) -> None:
    thirdparty = [name for name in bench.GROUPS["dropin"] if bench.BY_NAME[name].package]
    assert thirdparty == [
        f"dropin-{package}-{document}-{view}"
        for package in ("wagtail", "cms")
        for document in ("page", "index", "304")
        for view in ("own", "dropin")
    ]
    assert set(thirdparty) < set(bench.GROUPS["thirdparty"])


def test_the_two_views_of_a_pair_run_in_turns_with_one_settings_module(bench: Any) -> None:
    specs = [bench.BY_NAME[name] for name in bench.GROUPS["dropin"]]
    pairs = {
        (spec.pair, spec.run, spec.package, spec.settings, spec.make)
        for spec in specs
        if spec.package
    }
    assert sorted(pairs) == sorted(
        (
            f"dropin-{package}-{document}",
            "thirdparty",
            package,
            f"bench.{package}_settings",
            "bench.thirdparty_dropin:package_case",
        )
        for package in ("wagtail", "cms")
        for document in ("page", "index", "304")
    )


def test_each_case_expects_its_package_pages_one_index_entry_or_no_body(bench: Any) -> None:
    plan = import_module("bench.sizes").Plan(rows=10, build_rows=10, index_rows=10)
    expected = {
        name: bench.BY_NAME[name].expects(plan, {})
        for name in bench.GROUPS["dropin"]
        if bench.BY_NAME[name].package
    }
    assert expected == {
        f"dropin-{package}-{document}-{view}": {"page": pages, "index": 1, "304": 0}[document]
        for package, pages in (("wagtail", 10_000), ("cms", 2_000))
        for document in ("page", "index", "304")
        for view in ("own", "dropin")
    }


def test_a_case_whose_package_is_missing_is_skipped_and_named(
    bench: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a run without django CMS says: the case is left out, and the log says how
    to install it."""
    runs = import_module("bench.thirdparty_runs")
    spec = bench.BY_NAME["dropin-cms-page-own"]
    missing = replace(spec, package="no_such_cms_package")
    monkeypatch.setitem(runs.BY_NAME, "dropin-cms-page-own", missing)
    logged: list[str] = []
    kept = runs.available(["dropin-cms-page-own"], logged.append)
    assert (kept, logged) == (
        [],
        [
            "Skipped dropin-cms-page-own: no_such_cms_package is not installed (pip install "
            "'django-sitemapkit[no_such_cms_package]', or the thirdparty dependency group)."
        ],
    )
