"""Links to the documentation site, and the page and heading each one names.

The site's address is the Documentation URL of pyproject.toml's
[project.urls] (its one home), read from the installed distribution's
metadata; a page of it is ``<address>en/latest/<page>.html``, built by Sphinx
from ``docs/<page>.md``, and a heading's anchor is the id docutils gives its
section (``docutils.nodes.make_id``, which Sphinx uses).
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from docutils.nodes import make_id

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def project_urls() -> dict[str, str]:
    """[project.urls], as the installed distribution's metadata has them, in order."""
    fields = importlib.metadata.metadata("django-sitemapkit").get_all("Project-URL") or []
    return dict(field.split(", ", 1) for field in fields)


def latest() -> str:
    """The address of the latest documentation's pages: ``...readthedocs.io/en/latest/``."""
    return project_urls()["Documentation"] + "en/latest/"


def page_and_anchor(url: str) -> tuple[str, str] | None:
    """``("performance", "fresh-on-commit")`` for a link to that heading of the site,
    ``("build", "")`` for a page, None for a link elsewhere."""
    if not url.startswith(latest()):
        return None
    page, _, anchor = url[len(latest()) :].partition("#")
    if not page.endswith(".html"):
        raise AssertionError(f"{url!r} names no page of the site (…/en/latest/<page>.html)")
    return page.removesuffix(".html"), anchor


def heading_ids(page: str) -> set[str]:
    """The anchors of ``docs/<page>.md``'s headings, and of the files it includes."""
    source = DOCS / f"{page}.md"
    text = source.read_text()
    for included in re.findall(r"^```\{include\} (\S+)$", text, flags=re.MULTILINE):
        text += "\n" + (source.parent / included).read_text()
    ids = set()
    fence = ""
    for line in text.splitlines():
        opening = re.match(r"^ *(`{3,})", line)
        if opening and (not fence or opening.group(1).startswith(fence)):
            fence = "" if fence else opening.group(1)
        elif not fence and (heading := re.match(r"^#{1,6} (.+)$", line)):
            # The words as Sphinx sees them: no backticks, a link's text only.
            words = re.sub(r"\[([^]]*)\]\([^)]*\)", r"\1", heading.group(1)).replace("`", "")
            ids.add(make_id(words))
    return ids
