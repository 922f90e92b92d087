"""ASGI entry point: ``uvicorn mysite.asgi:application`` from the example_project directory."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mysite.settings")

application = get_asgi_application()
