"""Settings for the tests of third-party packages: Wagtail, django CMS and FeinCMS
installed in one project, as a site using them would install them.

Run apart from the rest of the suite, with these settings (``pytest
--ds=thirdparty.settings tests/thirdparty``; tox's ``thirdparty`` environment):
their apps and migrations would slow every other test's database, and the
packages are a test dependency group of their own ("thirdparty" in
pyproject.toml). The database is chosen as the main settings choose it
(``SITEMAPKIT_TEST_DATABASE``).
"""

from __future__ import annotations

from settings import database

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

SITEMAPKIT_BASE_URL = "https://www.example.com"

DATABASES = {"default": database()}
