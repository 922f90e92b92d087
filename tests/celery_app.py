"""The Celery app of the distributed tests, configured from the Django settings
(``CELERY_*``), as a project's ``celery.py`` is."""

from __future__ import annotations

from celery import Celery

app = Celery("sitemapkit_tests")
app.config_from_object("django.conf:settings", namespace="CELERY")
