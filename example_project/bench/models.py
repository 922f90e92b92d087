from __future__ import annotations

from django.db import models
from django.urls import reverse


class BenchRow(models.Model):
    """One URL of the benchmark's sitemaps: ``/bench/<slug>/``, last changed at ``updated_at``."""

    slug = models.SlugField(max_length=200, unique=True)
    updated_at = models.DateTimeField()

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.slug

    def get_absolute_url(self) -> str:
        return reverse("bench-page", kwargs={"slug": self.slug})


class Page(BenchRow):
    """The rows of the serving and build cases (``--rows``, ``--build-rows``)."""

    # What the exclusion-noindex case declares as its noindex: NULL (indexable) in
    # every row the series seeds, so that both cases of its pair list every row.
    noindex = models.BooleanField(null=True)


class IndexPage(BenchRow):
    """The rows of the index cases (``--index-rows``): the same series in a table of
    its own, so that a table of millions of rows is seeded once and kept, whatever
    size the other cases ask of ``bench_page``.

    Its lastmod column has the index ``sitemapkit.W061`` recommends (migration 0004),
    from which the index's validator reads its newest lastmod."""

    class Meta:
        indexes = [models.Index(fields=["updated_at"], name="bench_indexpage_updated_at")]
