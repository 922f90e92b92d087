"""The README documents exactly what the code has: check ids and settings."""

from __future__ import annotations

import re
from pathlib import Path

from django_sitemapkit import checks
from django_sitemapkit.conf import Settings

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def test_checks_table_lists_every_check_id_in_the_code() -> None:
    modules = sorted(Path(checks.__file__).parent.glob("*.py"))
    assert len(modules) > 1, "the checks are a package of modules"
    code = "".join(module.read_text() for module in modules)
    in_code = set(re.findall(r'id="(sitemapkit\.[EW]\d{3})"', code))
    in_table = re.findall(r"^\| `(sitemapkit\.[EW]\d{3})` \|", README, flags=re.MULTILINE)
    assert len(in_table) == len(set(in_table)), "an id is listed twice"
    assert set(in_table) == in_code


def test_settings_reference_lists_every_setting_with_type_and_default() -> None:
    documented = re.findall(
        r"^### `SITEMAPKIT_(\w+)`\n\nType: `[^`]+`\. Default: `[^`]+`", README, flags=re.MULTILINE
    )
    assert documented == list(Settings.defaults)


def test_security_md_cites_only_tests_that_exist() -> None:
    security = (ROOT / "SECURITY.md").read_text()
    cited = re.findall(r"`(test_\w+\.py)(?:::(test_\w+))?", security)
    assert len(cited) > 30
    for module, name in cited:
        source = (ROOT / "tests" / module).read_text()
        if name:
            assert re.search(rf"^def {name}\(", source, flags=re.MULTILINE), f"{module}::{name}"
