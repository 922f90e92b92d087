"""Settings for the tests of third-party packages: Wagtail, django CMS, FeinCMS and the
corpus of other packages shipping contrib sitemap classes (thirdparty/corpus.py)
installed in one project, as a site using them would install them.

Run apart from the rest of the suite, with these settings (``pytest
--ds=thirdparty.settings tests/thirdparty``; tox's ``thirdparty`` environment):
their apps and migrations would slow every other test's database, and the
packages are a test dependency group of their own ("thirdparty" in
pyproject.toml). The database is chosen as the main settings choose it
(``SITEMAPKIT_TEST_DATABASE``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from settings import database

from thirdparty.warned import IGNORED

# As the apps load, before any test's filters (conftest.py ignores them in tests).
for message in IGNORED:
    warnings.filterwarnings("ignore", message=message)

SECRET_KEY = "django-sitemapkit-thirdparty-tests"
DEBUG = False
ALLOWED_HOSTS = ["testserver", "www.example.com", "blog.example.com"]
USE_TZ = True
TIME_ZONE = "Europe/Paris"
USE_I18N = True
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "French")]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.sites",
    "django.contrib.sitemaps",
    "django.contrib.staticfiles",
    # Wagtail
    "wagtail",
    "wagtail.sites",
    "wagtail.contrib.sitemaps",
    "modelcluster",
    "taggit",
    # django CMS
    "cms",
    "menus",
    "treebeard",
    "sekizai",
    # FeinCMS
    "feincms",
    "feincms.module.page",
    "mptt",
    # The corpus (thirdparty/corpus.py): Django's flat pages, a django CMS page
    # extension, django Fiber's pages, a django CMS news app and what it needs,
    # django-hosts' per-host URLconfs, ElephantBlog (FeinCMS's blog),
    # djangocms-stories (django CMS 4's blog) and mdjango's markdown docs.
    "django.contrib.flatpages",
    "djangocms_page_sitemap",
    "fiber",
    "aldryn_newsblog",
    "aldryn_apphooks_config",
    "aldryn_categories",
    "aldryn_common",
    "aldryn_people",
    "aldryn_translation_tools",
    "djangocms_text",
    "filer",
    "easy_thumbnails",
    "sortedm2m",
    "parler",
    "django_hosts",
    "elephantblog",
    "djangocms_stories",
    "meta",
    "django_cotton",
    "mdjango",
    "thirdparty.pages",
    "django_sitemapkit",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "thirdparty.urls"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "sekizai.context_processors.sekizai",
                "cms.context_processors.cms_settings",
            ]
        },
    }
]
STATIC_URL = "/static/"
SITE_ID = 1

WAGTAIL_SITE_NAME = "thirdparty"
WAGTAILADMIN_BASE_URL = "https://www.example.com"
WAGTAIL_I18N_ENABLED = True
WAGTAIL_CONTENT_LANGUAGES = LANGUAGES

CMS_TEMPLATES = [("page.html", "Page")]
CMS_CONFIRM_VERSION4 = True
PARLER_LANGUAGES = {SITE_ID: ({"code": "en"}, {"code": "fr"})}

SITEMAPKIT_BASE_URL = "https://www.example.com"

# ElephantBlog ships no migrations: Django would create its tables before any
# migration, and PostgreSQL refuses its entries' foreign key to the user table
# auth's migrations make later. Its migrations are the project's (makemigrations).
MIGRATION_MODULES = {"elephantblog": "thirdparty.migrations.elephantblog"}
# ElephantBlog's feed warns without these; mdjango serves the markdown tree here.
BLOG_TITLE = "Blog"
BLOG_DESCRIPTION = "The third-party project's blog"
MDJANGO_CONTENT_DIR = Path(__file__).resolve().parent / "docs"

# django-hosts: its checks want both settings once the app is installed; its
# middleware is added only by the test of per-host URLconfs (test_compat_hosts.py).
ROOT_HOSTCONF = "thirdparty.hosts"
DEFAULT_HOST = "www"

DATABASES = {"default": database()}
