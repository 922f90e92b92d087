"""django-hosts' host patterns (ROOT_HOSTCONF): www serves the project's URLconf,
blog a URLconf of its own (test_compat_hosts.py adds the middleware)."""

from __future__ import annotations

from django_hosts import host, patterns

host_patterns = patterns(
    "",
    host(r"www", "thirdparty.urls", name="www"),
    host(r"blog", "thirdparty.urls_blog", name="blog"),
)
