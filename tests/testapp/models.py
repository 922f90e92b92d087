from __future__ import annotations

from typing import Any

from django.db import models
from django.urls import reverse


class Category(models.Model):
    slug = models.CharField(max_length=300)
    name = models.CharField(max_length=300)

    def __str__(self) -> str:
        return self.name


class Article(models.Model):
    # CharField, not SlugField: the tests store slugs no form would accept.
    slug = models.CharField(max_length=2100, null=True)
    title = models.CharField(max_length=300, default="")
    category = models.ForeignKey(Category, null=True, on_delete=models.SET_NULL)
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField(null=True)
    published_on = models.DateField(null=True)
    changefreq = models.CharField(max_length=20, null=True)
    priority = models.FloatField(null=True)
    # Declared exclusions (noindex, canonical): NULL means indexable, and no canonical.
    seo_noindex = models.BooleanField(null=True)
    canonical_url = models.CharField(max_length=2100, null=True)
    gallery: models.ManyToManyField[Photo, Any] = models.ManyToManyField(
        "Photo", related_name="galleries"
    )

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("article-by-pk", kwargs={"pk": self.pk})


class Photo(models.Model):
    """Images of an article (a reverse foreign key), or of many (``Article.gallery``)."""

    article = models.ForeignKey(Article, null=True, on_delete=models.CASCADE, related_name="photos")
    url = models.CharField(max_length=2100, null=True)
    file = models.FileField(upload_to="photos/", blank=True)
    position = models.IntegerField(default=0)
    # The newest of an article's photos, for a lastmod expression over related rows.
    updated_at = models.DateTimeField(null=True)

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return self.url or self.file.name or ""


class Clip(models.Model):
    """Videos of an article."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="clips")
    thumbnail = models.CharField(max_length=2100)
    title = models.CharField(max_length=300)
    description = models.TextField()
    file_url = models.CharField(max_length=2100, null=True)
    seconds = models.IntegerField(null=True)

    def __str__(self) -> str:
        return self.title
