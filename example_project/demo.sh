#!/usr/bin/env bash
# End-to-end demo of django-sitemapkit on the example blog, from a fresh machine:
#
#   bash example_project/demo.sh
#
# Needs only Python 3.10+ (with venv and pip) and access to PyPI. It builds a
# virtualenv in example_project/.venv (reused by later runs), installs this
# repository and the demo's tools into it, migrates and seeds an SQLite
# database with 100,000 posts, runs the system checks, requests a sample of the
# URLs each site's sitemap lists through the project's own views, in-process, and
# fails on any that a search engine would not index (verify_sitemaps, from the
# database, then from the built files), pre-renders the sitemaps
# of both sites with `build_sitemaps --validate` into SITEMAPKIT_OUTPUT_DIR/<site>/
# and checks the files (demo_files_check.py built), builds again to show nothing
# changes, starts the development server on a free port, with DEBUG off, and
# checks the sitemaps of both sites over HTTP, each through its own Host header
# (demo_check.py: each host lists only its own URLs and names its own index in
# robots.txt and its HTML sitemap; the documents are the files' bytes; an
# unknown sitemap URL, or a host that is no site's, is a 404 without the debug
# page), then serves again with SITEMAPKIT_SERVE=files and checks that the files'
# bytes are what is sent (demo_files_check.py served).
# Any failure stops it with a non-zero exit status; the server is always stopped.
#
# The two sites, www (the blog) and shop, are www.localhost:PORT and
# shop.localhost:PORT (SITEMAPKIT_SITES, from EXAMPLE_WWW_URL and
# EXAMPLE_SHOP_URL); the server listens on 127.0.0.1 and the requests carry the
# site's host, so nothing needs to resolve those names.
#
# Environment: PYTHON (default python3), PORT (default: a free port),
# DJANGO_DEBUG (set to 0 here, whatever it was), SITEMAPKIT_BASE_URL (unset
# here: it would make the project one site), SEED_ROWS (default 100000),
# SITEMAPKIT_OUTPUT_DIR (default example_project/public/sitemaps; see
# mysite/settings.py).

set -Eeuo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$HERE/.venv"
VPY="$VENV/bin/python"
SEED_ROWS="${SEED_ROWS:-100000}"
REQUIREMENTS=("factory-boy>=3.3" "lxml>=5.2")

SERVER_PID=""
SERVER_LOG="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-server.XXXXXX")"
SUMMARY_FILE="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-summary.XXXXXX")"
FILES_SUMMARY="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-files.XXXXXX")"
SERVED_SUMMARY="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-served.XXXXXX")"
BUILD_LOG="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-build.XXXXXX")"
VERIFY_LOG="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-verify.XXXXXX")"
SNAPSHOT="$(mktemp "${TMPDIR:-/tmp}/sitemapkit-demo-snapshot.XXXXXX")"
FRESH_BUILD="$(mktemp -d "${TMPDIR:-/tmp}/sitemapkit-demo-fresh.XXXXXX")"
STARTED="$(date +%s.%N)"
STEP_STARTED="$STARTED"
STEP_NAME=""

elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

step() {
    finish_step
    STEP_NAME="$1"
    STEP_STARTED="$(date +%s.%N)"
    printf '\n==> %s\n' "$STEP_NAME"
}

finish_step() {
    if [[ -n "$STEP_NAME" ]]; then
        printf '    (%s: %s s)\n' "$STEP_NAME" "$(elapsed "$STEP_STARTED")"
    fi
    STEP_NAME=""
}

cleanup() {
    local status=$?
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        echo "Stopped the development server (pid $SERVER_PID)."
    fi
    if ((status != 0)); then
        if [[ -s "$SERVER_LOG" ]]; then
            echo "---- server log (last 40 lines) ----" >&2
            tail -n 40 "$SERVER_LOG" >&2
            echo "------------------------------------" >&2
        fi
        echo "DEMO FAILED (exit status $status) during: ${STEP_NAME:-start-up}" >&2
    fi
    rm -f "$SERVER_LOG" "$SUMMARY_FILE" "$FILES_SUMMARY" "$SERVED_SUMMARY" "$BUILD_LOG" "$SNAPSHOT" \
        "$VERIFY_LOG"
    rm -rf "$FRESH_BUILD"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

manage() { "$VPY" "$HERE/manage.py" "$@"; }
files_check() { "$VPY" "$HERE/demo_files_check.py" "$@"; }

port_open() {
    "$VPY" -c 'import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
except OSError:
    sys.exit(1)' "$1"
}

# -- 1. Python and the virtualenv ---------------------------------------------
step "Python virtualenv in example_project/.venv"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "No '$PYTHON' on PATH; set PYTHON to a Python 3.10+ interpreter." >&2
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "$PYTHON is Python $("$PYTHON" -c 'import platform; print(platform.python_version())');" \
        "django-sitemapkit needs 3.10 or newer (set PYTHON)." >&2
    exit 1
fi
if [[ -x "$VPY" ]] && "$VPY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "Reusing $VENV ($("$VPY" --version))."
else
    rm -rf "$VENV"
    if ! "$PYTHON" -m venv "$VENV"; then
        echo "Could not create a virtualenv; on Debian/Ubuntu: apt-get install python3-venv" >&2
        exit 1
    fi
    echo "Created $VENV ($("$VPY" --version))."
fi

# -- 2. Dependencies ------------------------------------------------------------
step "Install django-sitemapkit (editable) + ${REQUIREMENTS[*]}"
# Reinstall only when the package metadata or the demo's requirements change:
# the package itself is installed editable, so code changes need no reinstall.
STAMP="$VENV/.sitemapkit-demo-installed"
WANTED="$(cat "$ROOT/pyproject.toml" <(printf '%s\n' "${REQUIREMENTS[@]}" "$ROOT") | cksum)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANTED" ]] \
    && "$VPY" -c 'import django, django_sitemapkit, factory, lxml' 2>/dev/null; then
    echo "Already installed (delete $STAMP to force a reinstall)."
else
    rm -f "$STAMP"
    # pip 21.3+ installs a pyproject.toml project in editable mode (PEP 660).
    "$VPY" -m pip install --quiet --disable-pip-version-check "pip>=21.3"
    "$VPY" -m pip install --quiet --disable-pip-version-check -e "$ROOT" "${REQUIREMENTS[@]}"
    printf '%s\n' "$WANTED" >"$STAMP"
fi
"$VPY" -c 'import django, factory, lxml.etree
lxml_version = ".".join(map(str, lxml.etree.LXML_VERSION[:3]))
print(f"Django {django.get_version()}, factory-boy {factory.__version__}, lxml {lxml_version}")'

# -- 3. Port and the sites' base URLs (every <loc> is built on its site's) -------
PORT="${PORT:-$("$VPY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()')}"
SERVER="http://127.0.0.1:$PORT"
export EXAMPLE_WWW_URL="http://www.localhost:$PORT"
export EXAMPLE_SHOP_URL="http://shop.localhost:$PORT"
# Set, it would make the project one site (mysite/settings.py).
unset SITEMAPKIT_BASE_URL
SITES=(--site "www=$EXAMPLE_WWW_URL" --site "shop=$EXAMPLE_SHOP_URL")
export PYTHONUNBUFFERED=1
# As in production: DEBUG off (mysite/settings.py reads DJANGO_DEBUG, 1 by
# default for a developer), so a 404 is the plain page, not Django's debug page
# listing every URL pattern; demo_check.py checks it. ALLOWED_HOSTS has
# 127.0.0.1, localhost (which are no site's: demo_check.py checks their 404s)
# and the two sites' hosts.
export DJANGO_DEBUG=0

# -- 4. Database ------------------------------------------------------------------
step "migrate"
manage migrate --noinput

step "seed --clear --rows $SEED_ROWS"
manage seed --clear --rows "$SEED_ROWS"

step "check (SITEMAPKIT_SITES: www=$EXAMPLE_WWW_URL, shop=$EXAMPLE_SHOP_URL)"
manage check --fail-level WARNING

# Every page of the blog is its own canonical URL and says no noindex; a listed URL
# that answered anything but 200 would fail the demo here (exit status 1).
step "verify_sitemaps --sample 200 (200 URLs of each section, through the views, in-process)"
manage verify_sitemaps --sample 200 | tee "$VERIFY_LOG"
VERIFIED="$(tail -n 1 "$VERIFY_LOG")"

# -- 5. Pre-rendered files ----------------------------------------------------------
# The directory comes from the settings (SITEMAPKIT_OUTPUT_DIR, env-overridable).
OUTPUT_DIR="$(cd "$HERE" && DJANGO_SETTINGS_MODULE=mysite.settings "$VPY" -c \
    'from django.conf import settings; print(settings.SITEMAPKIT_OUTPUT_DIR)')"

step "build_sitemaps --validate (into $OUTPUT_DIR/www and $OUTPUT_DIR/shop)"
# With several sites the command builds each into a directory named after it.
# A django_sitemapkit whose command builds one site only says so, and stops:
# the demo then checks the sites over HTTP alone, and says SKIPPED for the files.
BUILT=1
if ! manage build_sitemaps --validate 2>&1 | tee "$BUILD_LOG"; then
    if ! grep -q "SITEMAPKIT_SITES lists several sites, so a sitemap is built for one" "$BUILD_LOG"; then
        echo "build_sitemaps failed (see above)." >&2
        exit 1
    fi
    BUILT=0
    echo "SKIPPED: this django_sitemapkit's build_sitemaps builds one site only; the files" \
        "are neither built nor checked, nor served."
    echo "build SKIPPED: this build_sitemaps cannot build several sites" >"$FILES_SUMMARY"
fi

if ((BUILT)); then
    step "Check the built files of each site (demo_files_check.py built)"
    files_check built "$OUTPUT_DIR" "${SITES[@]}" --summary-file "$FILES_SUMMARY"

    step "verify_sitemaps --built --sample 100 (the URLs of the built files)"
    manage verify_sitemaps --built --sample 100

    step "build_sitemaps --validate again: the same data gives the same bytes"
    files_check snapshot "$OUTPUT_DIR" >"$SNAPSHOT"
    FILE_COUNT="$(wc -l <"$SNAPSHOT" | tr -d ' ')"
    manage build_sitemaps --validate | tee "$BUILD_LOG"
    # One "Nothing changed" line per site: no shard changed, no file is written.
    UNCHANGED="$(sed -nE 's/^Nothing changed: .* the ([0-9,]+) files in .* are as they were\.$/\1/p' "$BUILD_LOG" \
        | tr -d , | awk '{ total += $1 } END { print total + 0 }')"
    if [[ "$UNCHANGED" != "$FILE_COUNT" ]] || grep -E '^Published to ' "$BUILD_LOG"; then
        echo "Expected the second build to report 'Nothing changed' for each site, with" \
            "$FILE_COUNT files in all." >&2
        exit 1
    fi
    if ! files_check snapshot "$OUTPUT_DIR" | diff -u "$SNAPSHOT" -; then
        echo "The second build changed the files above (- before, + after)." >&2
        exit 1
    fi
    echo "The second build wrote nothing: all $FILE_COUNT files have the same SHA-256 and modification time."
    echo "A build from scratch into an empty directory ($FRESH_BUILD):"
    manage build_sitemaps --output "$FRESH_BUILD" --verbosity 0
    if ! diff -u <(files_check snapshot --bytes-only "$OUTPUT_DIR") \
        <(files_check snapshot --bytes-only "$FRESH_BUILD"); then
        echo "A build from scratch gave other bytes (- $OUTPUT_DIR, + $FRESH_BUILD)." >&2
        exit 1
    fi
    echo "    the same $FILE_COUNT files, byte for byte, gzip included."
fi

# -- 6. Server, answering from the database ---------------------------------------
start_server() {
    # A plain command, not a backgrounded function: $! must be the server's own
    # pid (a backgrounded function runs in a subshell, and killing that leaves
    # python running). SITEMAPKIT_SERVE is passed in the environment.
    : >"$SERVER_LOG"
    SITEMAPKIT_SERVE="$1" "$VPY" "$HERE/manage.py" runserver "127.0.0.1:$PORT" --noreload \
        >"$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    echo "Started the development server (pid $SERVER_PID, SITEMAPKIT_SERVE=$1)."
}

stop_server() {
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    if port_open "$PORT"; then
        echo "Port $PORT still answers after the server was stopped." >&2
        exit 1
    fi
    echo "Stopped the development server; port $PORT is closed. Its log:"
    sed 's/^/    /' "$SERVER_LOG"
}

step "runserver 127.0.0.1:$PORT --noreload (in the background, SITEMAPKIT_SERVE=database)"
start_server database

# With the built files, each document served is compared with its file.
FILES_ARGS=(--unknown-host "127.0.0.1:$PORT")
COMPARED=""
if ((BUILT)); then
    FILES_ARGS+=(--files "$OUTPUT_DIR")
    COMPARED=", and compare them with the files"
fi
step "Fetch and validate both sites' sitemaps (demo_check.py)$COMPARED"
"$VPY" "$HERE/demo_check.py" "$SERVER" "${SITES[@]}" "${FILES_ARGS[@]}" \
    --server-pid "$SERVER_PID" --summary-file "$SUMMARY_FILE"

step "Stop the server"
stop_server

# -- 7. Server, answering from the files --------------------------------------------
# The file mode is new in the package: say so plainly if this checkout lacks it
# (exit status 3); any other error in the package stops the demo as usual.
HAS_FILE_MODE=0
(cd "$HERE" && DJANGO_SETTINGS_MODULE=mysite.settings "$VPY" -c 'import importlib, sys
import django
django.setup()
from django_sitemapkit import conf
if importlib.util.find_spec("django_sitemapkit.views.serving") is None:
    sys.exit(3)
serving = importlib.import_module("django_sitemapkit.views.serving")
if "files" not in getattr(conf, "SERVE_CHOICES", ()) or not hasattr(serving, "file_response"):
    sys.exit(3)') || HAS_FILE_MODE=$?
if ((HAS_FILE_MODE != 0 && HAS_FILE_MODE != 3)); then
    echo "Could not tell whether django_sitemapkit can serve the files (see above)." >&2
    exit 1
fi
if ((HAS_FILE_MODE == 0 && BUILT)); then
    step "check with SITEMAPKIT_SERVE=files"
    SITEMAPKIT_SERVE=files manage check --fail-level WARNING

    step "runserver 127.0.0.1:$PORT --noreload (in the background, SITEMAPKIT_SERVE=files)"
    start_server files

    step "Fetch with SITEMAPKIT_SERVE=files, compare with the files (demo_files_check.py served)"
    files_check served "$SERVER" "$OUTPUT_DIR" "${SITES[@]}" \
        --server-pid "$SERVER_PID" --summary-file "$SERVED_SUMMARY"

    step "Stop the server"
    stop_server
elif ((!BUILT)); then
    step "SITEMAPKIT_SERVE=files"
    echo "SKIPPED: no files were built (see build_sitemaps above)."
    echo "file mode SKIPPED: no files were built" >"$SERVED_SUMMARY"
else
    step "SITEMAPKIT_SERVE=files"
    echo "SKIPPED: this django_sitemapkit has no file serving (django_sitemapkit.views.serving" \
        "with SITEMAPKIT_SERVE = \"files\"); the files were built and checked, not served."
    echo "file mode SKIPPED: this django_sitemapkit cannot serve the files" >"$SERVED_SUMMARY"
fi
finish_step

printf '\nSUCCESS in %s s: seeded %s posts;\n' \
    "$(elapsed "$STARTED")" "$("$VPY" -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$SEED_ROWS")"
if ((BUILT)); then
    printf '  build_sitemaps --validate: %s; built again: nothing changed, %s files kept; from scratch: the same bytes\n' \
        "$(cat "$FILES_SUMMARY")" "$FILE_COUNT"
else
    printf '  %s\n' "$(cat "$FILES_SUMMARY")"
fi
printf '  verify_sitemaps --sample 200: no problem, %s\n' "$VERIFIED"
printf '  HTTP, SITEMAPKIT_SERVE=database: %s\n' "$(cat "$SUMMARY_FILE")"
printf '  HTTP, SITEMAPKIT_SERVE=files: %s\n' "$(cat "$SERVED_SUMMARY")"
