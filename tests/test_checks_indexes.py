"""sitemapkit.I001: a section's lastmod column without a database index (check --deploy)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import Info
from django.core.management import call_command
from django.db import models
from django.db.models import F
from django.test.utils import isolate_apps
from testapp.models import Article

from django_sitemapkit import Field, SitemapSource
from django_sitemapkit.checks import check_lastmod_indexes

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"


def made_sources() -> dict[str, type[SitemapSource]]:
    """A source for each way a model's date column is (or is not) indexed."""

    class Dated(models.Model):
        slug = models.CharField(max_length=50)
        plain = models.DateTimeField()
        own = models.DateTimeField(db_index=True)
        unique = models.DateField(unique=True)
        leading = models.DateTimeField()
        second = models.DateTimeField()
        partial = models.DateTimeField()
        constrained = models.DateTimeField()
        together = models.DateField()
        category = models.ForeignKey("testapp.Category", on_delete=models.CASCADE)

        class Meta:
            app_label = "testapp"
            indexes = [
                models.Index(fields=["-leading", "slug"], name="dated_leading"),
                models.Index(fields=["slug", "second"], name="dated_second"),
                models.Index(fields=["partial"], name="dated_partial", condition=models.Q(pk=1)),
            ]
            constraints = [
                models.UniqueConstraint(fields=["constrained", "slug"], name="dated_constrained")
            ]
            unique_together = [("together", "slug")]

        def __str__(self) -> str:
            return self.slug

    def source(name: str, lastmod: Any) -> type[SitemapSource]:
        attributes = {
            "name": name,
            "queryset": Dated._default_manager.all(),
            "url_name": "article-detail",
            "url_kwargs": {"slug": "slug"},
            "lastmod": lastmod,
            "__module__": __name__,
        }
        return type(name.title(), (SitemapSource,), attributes)

    names = ["plain", "own", "unique", "leading", "second", "partial", "constrained", "together"]
    found = {name: source(name, name) for name in names}
    found["field"] = source("field", Field("plain"))
    found["related"] = source("related", "category__name")
    found["expression"] = source("expression", F("plain"))
    return found


def i001(source: type[SitemapSource], declared: str, column: str) -> Info:
    return Info(
        f"{SOURCE}.{source.__name__} declares lastmod {declared}, which names "
        f"testapp.Dated.{column}, a column with no database index: the sitemap index's "
        "validator (its 304 included) reads the newest value by reading every row of the "
        "section.",
        hint=f'Add db_index=True to testapp.Dated.{column} (or models.Index(fields=["{column}"], '
        'name="...") to testapp.Dated\'s Meta.indexes), then run makemigrations and migrate.',
        obj=source,
        id="sitemapkit.I001",
    )


def test_i001_a_lastmod_column_no_index_leads(sources: Sources) -> None:
    with isolate_apps("testapp"):
        made = made_sources()
        sources(*made.values())
        found = check_lastmod_indexes()
    # Indexed: its own index, a unique one, the first column of an index (descending
    # too), of a unique constraint, of unique_together. Not so: the second column, a
    # partial index. A path across a relation or an expression is not this table's.
    assert found == [
        i001(made["plain"], "'plain'", "plain"),
        i001(made["second"], "'second'", "second"),
        i001(made["partial"], "'partial'", "partial"),
        i001(made["field"], "Field('plain')", "plain"),
    ]


class ByUpdatedAt(SitemapSource):
    name = "articles"
    queryset = Article.objects.all()
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"


@pytest.mark.parametrize("deploy", [False, True])
@pytest.mark.django_db  # check --deploy reads each section's first rows (E118)
def test_i001_is_registered_for_deploy(sources: Sources, deploy: bool) -> None:
    sources(ByUpdatedAt)
    output = io.StringIO()
    call_command("check", deploy=deploy, stdout=output, stderr=output)
    line = (
        f"<class '{__name__}.ByUpdatedAt'>: "
        f"(sitemapkit.I001) {SOURCE}.ByUpdatedAt declares lastmod 'updated_at', which names "
        "testapp.Article.updated_at, a column with no database index"
    )
    # A suggestion for scale, with --deploy only: a test database has no index to need.
    assert (line in output.getvalue()) is deploy


def test_i001_has_its_row_in_the_checks_table() -> None:
    # tests/test_docs.py reads the E and W rows; this info's row is read here.
    page = (Path(__file__).parents[1] / "docs" / "checks.md").read_text()
    assert "\n| `sitemapkit.I001` | A suggestion, with `check --deploy` only: " in page
