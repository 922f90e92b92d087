"""The project's Celery app, for ``build_sitemaps --via celery`` and its workers
(``celery -A mysite worker``): configured from the Django settings' ``CELERY_*``
names, which mysite/settings.py sets when ``EXAMPLE_CELERY_BROKER_URL`` is set.

mysite/__init__.py loads it with the project, as Celery's guide for Django
does, so that the command sends its shards through this app. The shard task
needs no ``tasks.py``: django_sitemapkit registers it with every Celery app.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")

app = Celery("mysite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
