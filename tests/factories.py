from __future__ import annotations

import datetime as dt
from typing import Any

import factory
from testapp.models import Article, Category


class CategoryFactory(factory.django.DjangoModelFactory):  # type: ignore[misc]
    class Meta:
        model = Category

    slug = factory.Sequence(lambda n: f"category-{n}")
    name = factory.Sequence(lambda n: f"Category {n}")


class ArticleFactory(factory.django.DjangoModelFactory):  # type: ignore[misc]
    class Meta:
        model = Article

    slug = factory.Sequence(lambda n: f"article-{n}")
    title = factory.Sequence(lambda n: f"Article {n}")
    published = True
    updated_at = factory.Sequence(
        lambda n: dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(hours=n)
    )


def bulk_articles(count: int, **fields: Any) -> list[Article]:
    """Many articles in a few queries; ``slug`` is numbered like the factory's."""
    articles = ArticleFactory.build_batch(count, **fields)
    return Article.objects.bulk_create(articles, batch_size=2_000)
