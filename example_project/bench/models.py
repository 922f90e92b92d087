from __future__ import annotations

from django.db import models
from django.urls import reverse


class Page(models.Model):
    """One URL of the benchmark's sitemaps: ``/bench/<slug>/``, last changed at ``updated_at``."""

    slug = models.SlugField(max_length=200, unique=True)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.slug

    def get_absolute_url(self) -> str:
        return reverse("bench-page", kwargs={"slug": self.slug})
