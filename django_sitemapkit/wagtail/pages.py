"""A Wagtail site's listed pages, in SQL: its trees, what keeps a page out, and each
page's location and translations as columns of the one query.

A site's pages are the descendants of its root page, and, with Wagtail's
i18n, of each translation of it (``Site.get_site_root_paths()``: one tree per
locale), less the trees of other sites nested below them, whose pages Wagtail
gives those sites' hosts. A page's location is what ``Page.get_url_parts()``
makes: ``reverse("wagtail_serve")`` of its ``url_path`` below its tree's root, in
the tree's language. The ``reverse()`` of an empty path is fixed per tree when
the plan is compiled, so SQL writes the rest: that prefix, then the ``url_path``
after the root's. Wagtail's slugs are word characters and ``-``, which
``reverse()`` percent-encodes as the location rule encodes an IRI (RFC 3987
section 3.1), so the two agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import (
    Case,
    CharField,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Concat, Length, Now, Substr
from django.urls import NoReverseMatch, reverse
from django.utils import translation

if TYPE_CHECKING:
    from wagtail.models import Site as WagtailSite

#: The columns a row of a Wagtail section adds: its location's path, and its
#: listed translations (``language TAB path`` lines). Named in the package's prefix,
#: which no model field of a project's has.
LOCATION = "_sitemapkit_wagtail_location"
TRANSLATIONS = "_sitemapkit_wagtail_translations"


@dataclass(frozen=True)
class Tree:
    """One locale's tree of a site: its root page, and where its pages are served."""

    path: str
    url_path: str
    language: str
    locale: int
    #: ``reverse("wagtail_serve", args=("",))`` in the tree's language.
    prefix: str


def site_trees(site: WagtailSite) -> list[Tree]:
    """The trees of ``site``: its root page's, then each translation's (with i18n)."""
    from wagtail.models import Page

    root = site.root_page
    roots = [root]
    if getattr(settings, "WAGTAIL_I18N_ENABLED", False):
        roots += list(Page.objects.filter(translation_key=root.translation_key).exclude(pk=root.pk))
    trees = []
    for page in roots:
        language = page.locale.language_code
        try:
            with translation.override(language):
                prefix = reverse("wagtail_serve", args=("",))
        except NoReverseMatch:
            continue  # Wagtail serves no page of it (headless)
        trees.append(Tree(page.path, page.url_path, language, page.locale_id, prefix))
    return trees


def nested_roots(site: WagtailSite, trees: list[Tree]) -> list[str]:
    """The tree paths of other sites' roots (and their translations) below ``trees``:
    Wagtail gives their pages the host of the nearer site."""
    from wagtail.models import Page, Site

    others = Site.objects.exclude(pk=site.pk).values_list("root_page__translation_key", flat=True)
    keys = [key for key in others if key is not None]
    inside = Q()
    for tree in trees:
        inside |= Q(path__startswith=tree.path, depth__gt=len(tree.path) // Page.steplen)
    if not keys or not trees:
        return []
    rows = Page.objects.filter(inside, translation_key__in=keys).values_list("path", flat=True)
    return list(rows)


def listable(queryset: QuerySet[Any]) -> QuerySet[Any]:
    """The pages a crawler may read: live, not expired (the flag, or an ``expire_at``
    passed that ``publish_scheduled`` has yet to act on), no alias of another page
    (the same content at a second URL), and under no view restriction, the page's own
    or an ancestor's (Wagtail's ``public()``: a login, a password or a group)."""
    from wagtail.models import PageViewRestriction

    restricted = PageViewRestriction.objects.filter(
        page__path=Substr(OuterRef("path"), 1, Length("page__path"))
    )
    kept: QuerySet[Any] = queryset.filter(
        Q(expire_at__isnull=True) | Q(expire_at__gt=Now()),
        live=True,
        expired=False,
        alias_of__isnull=True,
    ).exclude(Exists(restricted))
    return kept


def in_site(queryset: QuerySet[Any], trees: list[Tree], nested: list[str]) -> QuerySet[Any]:
    """The pages of ``queryset`` in the site's trees and in no nested site's."""
    inside = Q(pk__in=[])
    for tree in trees:
        inside |= Q(path__startswith=tree.path)
    for path in nested:
        inside &= ~Q(path__startswith=path)
    kept: QuerySet[Any] = queryset.filter(inside)
    return kept


def location(trees: list[Tree]) -> Any:
    """A page's path on its site: its tree's prefix, and its ``url_path`` below the
    tree's root; without the final slash under ``WAGTAIL_APPEND_SLASH = False``, as
    ``get_url_parts()`` strips it (the path ``/`` excepted)."""
    slash = getattr(settings, "WAGTAIL_APPEND_SLASH", True)
    paths = []
    for tree in trees:
        start = len(tree.url_path) + 1
        if slash:
            rest = Substr("url_path", start)
        else:
            paths.append(When(path=tree.path, then=Value(tree.prefix.rstrip("/") or "/")))
            rest = Substr("url_path", start, Length("url_path") - start)
        paths.append(When(path__startswith=tree.path, then=Concat(Value(tree.prefix), rest)))
    return Case(*paths, output_field=TextField())


def translations(trees: list[Tree], nested: list[str]) -> Any:
    """A page's listed versions in the site's locales, one ``language TAB path`` line
    each (its own included), read through the unique (translation key, locale) pair."""
    from wagtail.models import Page

    if len(trees) < 2:
        return Value("", output_field=TextField())
    parts: list[Any] = []
    for tree in trees:
        version = in_site(listable(Page.objects.all()), [tree], nested).filter(
            translation_key=OuterRef("translation_key"), locale_id=tree.locale
        )
        path = Subquery(version.annotate(found=location([tree])).values("found")[:1])
        # Concat() reads a NULL (no listed version) as "" on every database: that
        # line then has no path, and versions() passes over it.
        parts += [Value(f"{tree.language}\t"), path, Value("\n")]
    return Concat(*parts, output_field=TextField())


def placeholders() -> dict[str, Any]:
    """The columns with no site: what a row selects before its site is known."""
    return {
        LOCATION: Value("", output_field=CharField()),
        TRANSLATIONS: Value("", output_field=CharField()),
    }


def site_pages(queryset: QuerySet[Any], site: WagtailSite | None) -> QuerySet[Any]:
    """``queryset`` (listable pages) kept to ``site``'s trees, with their columns."""
    trees = [] if site is None else site_trees(site)
    if site is None or not trees:
        nothing: QuerySet[Any] = queryset.none()
        return nothing
    nested = nested_roots(site, trees)
    pages: QuerySet[Any] = in_site(queryset, trees, nested).annotate(
        **{LOCATION: location(trees), TRANSLATIONS: translations(trees, nested)}
    )
    return pages


def untranslated(queryset: QuerySet[Any]) -> bool:
    """Whether the pages of ``queryset`` (``site_pages()``'s) have no translation column:
    their site has one locale."""
    column = queryset.query.annotations.get(TRANSLATIONS)
    return isinstance(column, Value)


def versions(text: str | None) -> dict[str, str]:
    """The ``TRANSLATIONS`` column read back: each language's path."""
    found = {}
    for line in (text or "").splitlines():
        language, _, path = line.partition("\t")
        if path:
            found[language] = path
    return found
