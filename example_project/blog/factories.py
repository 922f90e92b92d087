"""factory-boy factories for the blog, deterministic once ``factory.random.reseed_random`` ran.

Every random choice goes through ``factory.random.randgen`` (the generator
``factory.fuzzy`` uses), so reseeding it reproduces the same rows. Titles
come from small word lists rather than Faker, which would dominate the run
time of the ``seed`` command.

``build_posts`` makes unsaved posts from the same value functions as
``PostFactory``, without factory-boy's per-object bookkeeping (about 80 us a
post): the ``seed`` command uses it for its 100,000 rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import factory
import factory.fuzzy
import factory.random
from django.utils import timezone
from django.utils.text import slugify

from blog.models import Category, Post

TOPICS = [
    "Python",
    "Django",
    "Databases",
    "Web Performance",
    "Testing",
    "Deployment",
    "Security",
    "Accessibility",
    "JavaScript",
    "CSS",
    "Search Engines",
    "APIs",
    "Caching",
    "Async",
    "Packaging",
    "Type Hints",
    "Observability",
    "Linux",
    "Containers",
    "Open Source",
    "Career",
    "Design",
    "Data Science",
    "Tooling",
    "Community",
]

_OPENINGS = [
    "How to",
    "Why you should",
    "When not to",
    "A gentle way to",
    "Ten ways to",
    "Lessons learned trying to",
    "What it takes to",
    "Notes on how to",
]
_VERBS = ["cache", "test", "profile", "index", "deploy", "refactor", "monitor", "paginate"]
_ADJECTIVES = ["large", "legacy", "tiny", "busy", "shared", "nested", "slow", "critical"]
_NOUNS = [
    "querysets",
    "templates",
    "sitemaps",
    "migrations",
    "background jobs",
    "web servers",
    "settings files",
    "HTTP headers",
    "search pages",
    "feeds",
]
_SENTENCES = [
    "It started as a small experiment on a Friday afternoon.",
    "The numbers below come from a production site with real traffic.",
    "Most of the work turned out to be in the details.",
    "We measured before and after every change.",
    "The short version: keep it simple and measure.",
    "Readers asked for a follow-up, so here it is.",
]
#: Sitemap priorities: most posts leave it out, a few are featured or archived.
_PRIORITIES = [None] * 17 + [0.9, 0.8, 0.3]
#: About one post in a hundred is a draft.
DRAFT_RATE = 0.01


def _choice(options: list[str]) -> str:
    return factory.random.randgen.choice(options)


def category_name(n: int) -> str:
    """The n-th topic; past the end of the list, topics come round again numbered."""
    topic = TOPICS[n % len(TOPICS)]
    round_number = n // len(TOPICS)
    return topic if round_number == 0 else f"{topic} {round_number + 1}"


def random_title() -> str:
    return f"{_choice(_OPENINGS)} {_choice(_VERBS)} {_choice(_ADJECTIVES)} {_choice(_NOUNS)}"


def random_body() -> str:
    randgen = factory.random.randgen
    return " ".join(randgen.sample(_SENTENCES, k=randgen.randint(2, 4)))


#: One post in this many is kept out of search results (``seo_noindex``); chosen by its
#: number, not at random, so that the other fields' random values stay as they were.
NOINDEX_EVERY = 100


def is_noindex(number: int) -> bool:
    return number % NOINDEX_EVERY == NOINDEX_EVERY - 1


def random_published() -> bool:
    return factory.random.randgen.random() >= DRAFT_RATE


def random_priority() -> float | None:
    return factory.random.randgen.choice(_PRIORITIES)


def years_ago(years: int, until: dt.datetime | None = None) -> dt.datetime:
    until = until or timezone.now()
    return until - dt.timedelta(days=round(365.25 * years))


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category
        django_get_or_create = ("slug",)

    name = factory.Sequence(category_name)
    slug = factory.LazyAttribute(lambda category: slugify(category.name))


class PostFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Post

    category = factory.SubFactory(CategoryFactory)
    title = factory.LazyFunction(random_title)
    # The sequence number keeps slugs unique however often a title repeats.
    slug = factory.LazyAttributeSequence(lambda post, n: f"{slugify(post.title)}-{n}")
    body = factory.LazyFunction(random_body)
    published = factory.LazyFunction(random_published)
    updated_at = factory.fuzzy.FuzzyDateTime(years_ago(4), timezone.now())
    priority = factory.LazyFunction(random_priority)
    seo_noindex = factory.Sequence(is_noindex)


def build_posts(
    numbers: range, categories: Sequence[Category], start: dt.datetime, until: dt.datetime
) -> list[Post]:
    """Unsaved posts numbered ``numbers``, updated at whole seconds from ``start`` to ``until``."""
    randgen = factory.random.randgen
    seconds = int((until - start).total_seconds())
    posts = []
    for number in numbers:
        title = random_title()
        posts.append(
            Post(
                category=randgen.choice(categories),
                title=title,
                slug=f"{slugify(title)}-{number}",
                body=random_body(),
                published=random_published(),
                updated_at=start + dt.timedelta(seconds=randgen.randint(0, seconds)),
                priority=random_priority(),
                seo_noindex=is_noindex(number),
            )
        )
    return posts
