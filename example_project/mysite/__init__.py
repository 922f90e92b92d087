"""The example project. Its Celery app (``mysite/celery.py``) is loaded with it, as
Celery's guide for Django does, when Celery is installed; without Celery the
project runs as before (and ``build_sitemaps --via celery`` says what is missing)."""

from __future__ import annotations

from importlib.util import find_spec

if find_spec("celery") is not None:
    from mysite.celery import app as celery_app

    __all__ = ["celery_app"]
