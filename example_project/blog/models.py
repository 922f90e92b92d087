from __future__ import annotations

from django.db import models
from django.urls import reverse


class Category(models.Model):
    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=100, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("category-detail", kwargs={"slug": self.slug})


#: The priority of a featured post (the factories give it to about one post in twenty).
FEATURED_PRIORITY = 0.9


class PostQuerySet(models.QuerySet["Post"]):
    def published(self) -> PostQuerySet:
        return self.filter(published=True)

    def featured(self) -> PostQuerySet:
        return self.filter(priority__gte=FEATURED_PRIORITY)


class Post(models.Model):
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="posts")
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    body = models.TextField()
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField(db_index=True)
    #: How featured the post is (the shop lists the posts of FEATURED_PRIORITY and more).
    priority = models.FloatField(null=True, blank=True)
    #: Kept out of search results: its page says noindex, and the sitemap leaves it out
    #: (``noindex = "seo_noindex"`` in blog/sitemaps.py).
    seo_noindex = models.BooleanField(default=False)

    objects = PostQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["category", "slug"], name="blog_post_unique_slug"),
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("post-detail", kwargs={"category": self.category.slug, "slug": self.slug})
