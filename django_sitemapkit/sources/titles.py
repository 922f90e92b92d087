"""What the HTML sitemap for visitors shows as each row's title: the ``title`` field
path of a queryset source, a static page's URL name; ``None`` where there is none,
and the page then shows the URL's path. Read only by a plan compiled for visitors
(``compile_plan(visitor=True)``): the XML's query never selects the column."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.text import capfirst

from django_sitemapkit.sources.declaration import Declaration, StaticPage

#: A row's title (``None``: show the path).
TitleReader = Callable[[Any], "str | None"]


def title_path(declaration: Declaration, visitor: bool) -> str | None:
    """The column a plan for visitors selects for the titles; ``None`` for the XML's."""
    path = declaration["title"] if visitor else None
    return path if isinstance(path, str) else None


def field_title(read: Callable[[Any], Any]) -> TitleReader:
    """The text of a row's title field; an empty or NULL value has none."""

    def title(row: Any) -> str | None:
        value = read(row)
        return None if value is None or value == "" else str(value)

    return title


def as_words(name: str) -> str:
    """A name written for code as a reader would write it: ``"blog-posts"`` and
    ``"blog_posts"`` read "Blog posts"; a namespace (``"shop:about"``) is left out."""
    words = name.rpartition(":")[2].replace("-", " ").replace("_", " ").strip()
    return str(capfirst(words))


def static_title(page: StaticPage) -> str | None:
    """A static page named by its URL name shows it as words (``"about-us"`` reads
    "About us"); a page declared by its path has no name but its path."""
    if page.url_name is None:
        return None
    return as_words(page.url_name) or None
