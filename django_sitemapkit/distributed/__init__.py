"""Builds whose shards are rendered by workers on other machines (``build_sitemaps
--via celery|tasks``).

The build is the one of ``build/``: planned, then its shards rendered, then
put together and published. Here the shards become jobs (``jobs.py``) that a
worker renders into the storage every machine shares (``worker.py``,
``staging.py``); the coordinator sends them through an engine (``engines.py``:
Celery, or Django's Tasks framework), waits, and checks each result against
the plan (``coordinator.py``). Nothing here imports Celery or a Tasks backend
but the engine adapters, and only when asked for.
"""
