from __future__ import annotations

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

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("article-by-pk", kwargs={"pk": self.pk})
