"""A one-table app for ``manage.py benchmark_sitemaps``: the rows every case lists.

It deliberately has no ``sitemaps.py``: the benchmark registers its section at
run time, in its own processes, so the blog's sitemaps stay as they are.
"""

from __future__ import annotations
