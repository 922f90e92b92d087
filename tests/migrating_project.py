"""The project docs/migrating.md is followed in (tests/test_migrating.py): the files
the page leaves to the reader, a Django project ``mysite`` with an app ``blog`` of
posts and a few static views, written as a new project has them. The page's own
blocks (``blog/sitemaps.py``, ``mysite/urls.py``, the settings line) are added to
it step by step; ``migrating_fetch.py`` then asks it for its sitemap URLs."""

from __future__ import annotations

from pathlib import Path

#: The host of the project's Site (SITE_ID = 1), its domain set as a project sets
#: it in the admin (the "example.com" of the sites framework's migration is a
#: placeholder, sitemapkit.W009); served over HTTPS, as both views' URLs say.
HOST = "www.example.org"

FILES = {
    "manage.py": """\
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
""",
    "mysite/__init__.py": "",
    "mysite/settings.py": f"""\
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = "a test project of docs/migrating.md"
DEBUG = False
ALLOWED_HOSTS = [{HOST!r}]
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.sites",
    "django.contrib.sitemaps",
    "blog",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
ROOT_URLCONF = "mysite.urls"
TEMPLATES = [
    {{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}},
]
DATABASES = {{
    "default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}},
}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
SITE_ID = 1
""",
    "blog/__init__.py": "",
    "blog/models.py": """\
from django.db import models
from django.urls import reverse


class Category(models.Model):
    slug = models.SlugField(unique=True)


class Post(models.Model):
    category = models.ForeignKey(Category, on_delete=models.CASCADE)
    slug = models.SlugField()
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["pk"]

    def get_absolute_url(self):
        return reverse("post-detail", kwargs={"category": self.category.slug, "slug": self.slug})
""",
    "blog/views.py": """\
from django.http import HttpResponse


def page(request, **kwargs):
    return HttpResponse("A page of the blog.")
""",
    "blog/urls.py": """\
from django.urls import path

from blog.views import page

urlpatterns = [
    path("", page, name="home"),
    path("about/", page, name="about"),
    path("posts/", page, name="post-list"),
    path("posts/<slug:category>/<slug:slug>/", page, name="post-detail"),
]
""",
}

#: The rows: the Site's domain, 1,500 published posts (two of PostSitemap's pages
#: of 1,000) in two categories, and a few unpublished that no sitemap lists. Run
#: with ``manage.py shell -c``.
SEED = f"""\
import datetime as dt
from django.contrib.sites.models import Site
from blog.models import Category, Post
Site.objects.filter(pk=1).update(domain={HOST!r}, name="Blog")
news, notes = Category.objects.create(slug="news"), Category.objects.create(slug="notes")
start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
Post.objects.bulk_create(
    Post(
        category=news if number % 3 else notes,
        slug=f"post-{{number}}",
        published=number % 301 != 0,
        updated_at=start + dt.timedelta(hours=number),
    )
    for number in range(1, 1506)
)
"""


def write_project(root: Path) -> None:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
