#!/usr/bin/env bash
# Remakes the screenshots of the HTML sitemap in docs/:
#
#   bash example_project/screenshot.sh
#
#   docs/html-sitemap.png       /sitemap.html, every page of every section
#   docs/html-sitemap-page.png  /sitemap-posts-1.html, the top of the first page of posts
#
# The example blog is migrated and seeded into a temporary SQLite file (never
# db.sqlite3), served by runserver on a free port of 127.0.0.1, and each page is
# shot by Debian's headless Chromium at 1200 x 900. The server and the
# temporary files are removed on exit, whatever happens.
#
# Environment: PYTHON (default: example_project/.venv, the one demo.sh makes,
# else the repository's .venv, else python3; it needs the package and
# factory-boy), CHROMIUM (default: chromium), SEED_ROWS (default 3000: three
# pages of posts for visitors), BASE_URL (the host the links show, default
# https://www.example.com; the pages are fetched from 127.0.0.1).

set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
if [[ -z "${PYTHON:-}" ]]; then
    # demo.sh builds its virtual environment in example_project/.venv.
    PYTHON=python3
    for candidate in "$HERE/.venv/bin/python" "$ROOT/.venv/bin/python"; do
        if [[ -x "$candidate" ]]; then PYTHON="$candidate"; break; fi
    done
fi
CHROMIUM="${CHROMIUM:-chromium}"
SEED_ROWS="${SEED_ROWS:-3000}"
DOCS="$ROOT/docs"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sitemapkit-screenshot.XXXXXX")"
SERVER_PID=""
cleanup() {
    local status=$?
    if [[ -n "$SERVER_PID" ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if ((status != 0)) && [[ -s "$WORK/server.log" ]]; then
        echo "---- server log (last 20 lines) ----" >&2
        tail -n 20 "$WORK/server.log" >&2
    fi
    rm -rf -- "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

command -v "$CHROMIUM" >/dev/null || { echo "no $CHROMIUM: install Debian's chromium package" >&2; exit 1; }

PORT="$("$PYTHON" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
# This script's own settings, whatever the shell has (see mysite/settings.py).
unset DJANGO_SETTINGS_MODULE PYTHONPATH SITEMAPKIT_SERVE
export EXAMPLE_DATABASE="$WORK/db.sqlite3"
export SITEMAPKIT_OUTPUT_DIR="$WORK/sitemaps"
export SITEMAPKIT_BASE_URL="${BASE_URL:-https://www.example.com}"

echo "==> migrate and seed $SEED_ROWS posts into $EXAMPLE_DATABASE"
"$PYTHON" "$HERE/manage.py" migrate --noinput --verbosity 0
"$PYTHON" "$HERE/manage.py" seed --rows "$SEED_ROWS"

echo "==> runserver 127.0.0.1:$PORT (links on $SITEMAPKIT_BASE_URL)"
"$PYTHON" "$HERE/manage.py" runserver --noreload "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
"$PYTHON" - "http://127.0.0.1:$PORT/sitemap.html" <<'EOF'
import sys, time, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline = time.monotonic() + 30
while True:
    try:
        with opener.open(sys.argv[1], timeout=5) as response:
            sys.exit(0 if response.status == 200 else f"{sys.argv[1]}: {response.status}")
    except OSError:
        if time.monotonic() > deadline:
            sys.exit(f"{sys.argv[1]} did not answer in 30 s")
        time.sleep(0.2)
EOF

mkdir -p "$DOCS"
shoot() {  # shoot PATH FILE
    echo "==> $1 -> docs/$2"
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$WORK/profile" --hide-scrollbars --window-size=1200,900 \
        --screenshot="$DOCS/$2" "http://127.0.0.1:$PORT$1" >/dev/null 2>"$WORK/chromium.log" \
        || { tail -n 20 "$WORK/chromium.log" >&2; exit 1; }
    [[ -s "$DOCS/$2" ]] || { echo "no screenshot written to docs/$2" >&2; exit 1; }
}
shoot /sitemap.html html-sitemap.png
shoot /sitemap-posts-1.html html-sitemap-page.png
echo "Done: docs/html-sitemap.png, docs/html-sitemap-page.png"
