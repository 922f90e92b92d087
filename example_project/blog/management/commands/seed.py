"""``manage.py seed``: deterministic sample data, fast enough for 100,000 posts."""

from __future__ import annotations

import argparse
import time
from typing import Any

import factory.random
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import Max, Min
from django.utils import timezone

from blog.factories import CategoryFactory, build_posts, years_ago
from blog.models import Category, Post

BATCH_SIZE = 5_000


def count(value: str) -> int:
    number = int(value.replace("_", "").replace(",", ""))
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return number


class Command(BaseCommand):
    help = (
        "Create deterministic sample categories and posts (default 100,000 posts); "
        "refuses if the blog already has data, unless --clear is given to replace it."
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--rows", type=count, default=100_000, help="posts to create (default 100,000)"
        )
        parser.add_argument(
            "--categories", type=count, default=25, help="categories to create (default 25)"
        )
        parser.add_argument(
            "--clear", action="store_true", help="delete every post and category first"
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=2025,
            help="random seed (default 2025); same seed, same data",
        )
        parser.add_argument(
            "--years",
            type=count,
            default=4,
            help="updated_at values spread over this many years up to today (default 4)",
        )

    def handle(self, *args: Any, rows: int, categories: int, clear: bool, **options: Any) -> None:
        if rows and not categories:
            raise CommandError("Posts need a category: give --categories 1 or more.")
        started = time.perf_counter()
        with transaction.atomic():
            if clear:
                deleted = self.clear()
                self.stdout.write(f"Deleted {deleted} in {time.perf_counter() - started:.1f} s.")
            elif Post.objects.exists() or Category.objects.exists():
                raise CommandError(
                    f"The blog already has {Category.objects.count():,} categories and "
                    f"{Post.objects.count():,} posts; run `seed --clear` to replace them."
                )
            self.seed(rows, categories, options["seed"], options["years"], options["verbosity"])
        elapsed = time.perf_counter() - started
        drafts = Post.objects.filter(published=False).count()
        span = Post.objects.aggregate(oldest=Min("updated_at"), newest=Max("updated_at"))
        dates = ""
        if span["oldest"] is not None:
            dates = f", updated {span['oldest']:%Y-%m-%d} .. {span['newest']:%Y-%m-%d}"
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {categories:,} categories and {rows:,} posts ({drafts:,} unpublished"
                f"{dates}) in {elapsed:.1f} s."
            )
        )

    def clear(self) -> str:
        # Posts first: nothing refers to them, so Django deletes them in one query.
        posts, _ = Post.objects.all().delete()
        categories, _ = Category.objects.all().delete()
        return f"{posts:,} posts and {categories:,} categories"

    def seed(self, rows: int, categories: int, seed: int, years: int, verbosity: int) -> None:
        factory.random.reseed_random(seed)
        CategoryFactory.reset_sequence(0)
        created = Category.objects.bulk_create(CategoryFactory.build_batch(categories))
        # Anchored at midnight UTC: seeding twice on the same day gives identical rows.
        until = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
        start = years_ago(years, until)
        for first in range(1, rows + 1, BATCH_SIZE):
            numbers = range(first, min(first + BATCH_SIZE, rows + 1))
            Post.objects.bulk_create(build_posts(numbers, created, start, until))
            if verbosity >= 2:
                self.stdout.write(f"  {numbers[-1]:,} / {rows:,} posts")
