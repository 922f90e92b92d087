"""Run in the project of tests/test_migrating.py (its directory the working one):
each path given is requested through Django's test client, as a crawler would
over HTTPS on the project's host, following redirects; an index's listed pages
are requested too. Prints JSON: per path, the final status, the redirects, and
the locations the document lists (for an index, those of its pages)."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from typing import Any
from urllib.parse import urlsplit

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def document(client: Any, path: str) -> dict[str, Any]:
    response = client.get(path, follow=True, secure=True)
    found: dict[str, Any] = {
        "status": response.status_code,
        "redirects": [[url, status] for url, status in response.redirect_chain],
    }
    if response.status_code != 200:
        return found
    body = b"".join(response.streaming_content) if response.streaming else response.content
    root = ET.fromstring(body)
    if root.tag == f"{NS}sitemapindex":
        found["listed"] = [loc.text for loc in root.iter(f"{NS}loc")]
        found["pages"] = {loc: document(client, relative(loc)) for loc in found["listed"]}
    else:
        found["locations"] = [loc.text for loc in root.iter(f"{NS}loc")]
    return found


def relative(url: str) -> str:
    """The path and query of ``url``: the client is on the project's host already."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def main() -> None:
    # The project's modules, not those beside this script (the test suite's).
    sys.path[0] = os.getcwd()
    os.environ["DJANGO_SETTINGS_MODULE"] = "mysite.settings"
    import django
    from django.test import Client

    django.setup()
    client = Client(HTTP_HOST=sys.argv[1])
    print(json.dumps({path: document(client, path) for path in sys.argv[2:]}))


if __name__ == "__main__":
    main()
