"""The example's settings, plus a console handler for ``django.request`` errors.

With ``DEBUG = False`` Django sends a view's uncaught exception only to
``mail_admins`` (no admins here), so a 500 would leave no traceback in the
server's log and run.sh could not tell why; this makes it print one.
"""

from __future__ import annotations

from mysite.settings import *  # noqa: F403
from mysite.settings import LOGGING

LOGGING["loggers"]["django.request"] = {"handlers": ["console"], "level": "ERROR"}
