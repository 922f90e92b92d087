"""docs/migrating.md followed literally (the "Done when" of issue 33): a project with
contrib's sitemap is built from the page's own blocks, then taken through Step 1,
Step 2 and Step 3 as the page shows each file. At every step ``manage.py check``
is clean (no false alarm) and every old sitemap URL answers with the locations
contrib's views listed; from Step 2 on, the index lists this app's page URLs and
the old page URLs redirect to them.

The blocks are those marked ``<!-- test project: STEP, ACTION FILE -->`` on the
page, so the page and this test cannot drift apart."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from migrating_project import HOST, SEED, write_project
from processes import unmeasured
from test_docs import DOCS, fenced_blocks

pytestmark = pytest.mark.slow
TESTS = Path(__file__).parent
PAGE = DOCS / "migrating.md"
MARKER = re.compile(r"<!-- test project: (before|step \d), (replace|append|run)(?: (\S+))? -->")
STEPS = ("before", "step 1", "step 2", "step 3")
INDEX = "/sitemap.xml"
#: contrib's page URLs of the project: every section's, and page 2 of posts.
OLD_PAGES = ("/sitemap-posts.xml", "/sitemap-posts.xml?p=2", "/sitemap-pages.xml")
CLEAN = "System check identified no issues (0 silenced).\n"


def marked_blocks() -> list[tuple[str, str, str, str]]:
    """(step, action, file, code) of each marked block of the page, in order."""
    lines = PAGE.read_text().splitlines()
    found = []
    for block in fenced_blocks(PAGE):
        # Block.line is the opening fence's; the marker is the line before it,
        # after a blank line.
        marker = MARKER.fullmatch(lines[block.line - 3])
        if marker is not None:
            step, action, file = marker.groups()
            found.append((step, action, file or "", block.code))
    return found


def run(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    # Not measured by coverage.py (tests/processes.py): each step starts Django
    # again, a dozen times, and the checks it runs are measured in-process by
    # their own tests.
    env = unmeasured(dict(os.environ)) | {"DJANGO_SETTINGS_MODULE": "mysite.settings"}
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def managed(project: Path, *arguments: str) -> str:
    result = run(project, "manage.py", *arguments)
    # stderr empty: migrate runs the checks too, and prints what they find there.
    assert (result.returncode, result.stderr) == (0, ""), (arguments, result.stdout)
    return result.stdout


def take(project: Path, step: str, blocks: list[tuple[str, str, str, str]]) -> None:
    """Do what the page says for ``step``: write its files, run its commands."""
    for _, action, file, code in [block for block in blocks if block[0] == step]:
        if action == "run":
            for line in code.splitlines():
                command = shlex.split(line)
                assert command[:2] == ["python", "manage.py"], line
                managed(project, *command[2:])
        elif action == "append":
            with (project / file).open("a") as written:
                written.write("\n" + code)
        else:
            (project / file).write_text(code)


def fetched(project: Path) -> dict[str, Any]:
    result = run(project, str(TESTS / "migrating_fetch.py"), HOST, INDEX, *OLD_PAGES)
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def every_location(index: dict[str, Any]) -> list[str]:
    assert index["status"] == 200
    pages = index["pages"].values()
    assert [page["status"] for page in pages] == [200] * len(pages)
    return sorted(loc for page in pages for loc in page["locations"])


def test_the_page_marks_each_step() -> None:
    assert [(step, action, file) for step, action, file, _ in marked_blocks()] == [
        ("before", "replace", "blog/sitemaps.py"),
        ("before", "replace", "mysite/urls.py"),
        ("step 1", "append", "mysite/settings.py"),
        ("step 1", "replace", "mysite/urls.py"),
        ("step 1", "run", ""),
        ("step 2", "append", "blog/sitemaps.py"),
        ("step 2", "replace", "mysite/urls.py"),
        ("step 3", "replace", "blog/sitemaps.py"),
    ]


def test_following_the_page_keeps_every_old_url_and_a_clean_check(tmp_path: Path) -> None:
    blocks = marked_blocks()
    project = tmp_path / "project"
    write_project(project)
    answers: dict[str, dict[str, Any]] = {}
    for step in STEPS:
        take(project, step, blocks)
        if step == "before":
            managed(project, "makemigrations", "blog")
            managed(project, "migrate")
            managed(project, "shell", "-c", SEED)
        # No false alarm: the whole output of check, its database checks (the
        # base URL against the Site rows) included, at every step.
        checked = run(project, "manage.py", "check", "--database", "default")
        assert (checked.returncode, checked.stdout, checked.stderr) == (0, CLEAN, ""), step
        answers[step] = fetched(project)
    before = answers["before"]
    assert every_location(before[INDEX])
    assert [len(before[path]["locations"]) for path in OLD_PAGES] == [1000, 500, 3]
    assert before["/sitemap-pages.xml"]["locations"] == [
        f"https://{HOST}/",
        f"https://{HOST}/about/",
        f"https://{HOST}/posts/",
    ]
    for step in STEPS[1:]:
        now = answers[step]
        assert every_location(now[INDEX]) == every_location(before[INDEX]), step
        for path in OLD_PAGES:
            assert now[path]["status"] == 200, (step, path)
            assert now[path]["locations"] == before[path]["locations"], (step, path)
    for step in ("step 2", "step 3"):
        now = answers[step]
        assert now[INDEX]["listed"] == [
            f"https://{HOST}/sitemap-posts-1.xml",
            f"https://{HOST}/sitemap-posts-2.xml",
            f"https://{HOST}/sitemap-pages-1.xml",
        ], step
        assert [now[path]["redirects"] for path in OLD_PAGES] == [
            [[f"https://{HOST}/sitemap-posts-1.xml", 301]],
            [[f"https://{HOST}/sitemap-posts-2.xml", 301]],
            [[f"https://{HOST}/sitemap-pages-1.xml", 301]],
        ], step


#: The project's URL builder, which writes http in development (issue 43): a
#: location() on docs/migrating.md's PostSitemap, while the Site gives https.
ON_HTTP = f"""

    def location(self, post):
        return "http://{HOST}" + post.get_absolute_url()
"""


def test_the_page_followed_with_http_urls_fails_check_deploy_with_the_fix(
    tmp_path: Path,
) -> None:
    blocks = marked_blocks()
    project = tmp_path / "project"
    write_project(project)
    found = (
        "<class 'blog.sitemaps.PostSitemap (sitemaps['posts'])'>: (sitemapkit.E118) "
        "Section 'posts' skips 100 of its first 100 URLs: they are on "
        f"'http://{HOST}', and the site's base URL is 'https://{HOST}' (a sitemap lists "
        "URLs of its base URL's scheme and host only).\n"
        "\tHINT: Make location() (or the URL builder it calls) return paths starting with "
        f"'/', which the sitemap writes on 'https://{HOST}'; or, if the site is served on "
        f"'http://{HOST}', set SITEMAPKIT_SITE_SCHEME = 'http'.\n"
    )
    for step in STEPS[:3]:
        take(project, step, blocks)
        if step == "before":
            classes = project / "blog" / "sitemaps.py"
            text = classes.read_text()
            marker = "        return post.updated_at\n"
            assert marker in text
            classes.write_text(text.replace(marker, marker + ON_HTTP, 1))
            managed(project, "makemigrations", "blog")
            managed(project, "migrate")
            managed(project, "shell", "-c", SEED)
        else:
            # Step 1 serves the classes through the drop-in's views, Step 2 registers
            # them: both fail check --deploy, with the fix.
            checked = run(project, "manage.py", "check", "--deploy")
            assert (checked.returncode, found in checked.stderr) == (1, True), checked.stderr
