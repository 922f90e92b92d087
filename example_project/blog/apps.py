from __future__ import annotations

from django.apps import AppConfig


class BlogConfig(AppConfig):
    name = "blog"
