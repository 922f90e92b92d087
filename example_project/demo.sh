#!/usr/bin/env bash
# End-to-end demo of django-sitemapkit on the example blog, from a fresh machine:
#
#   bash example_project/demo.sh
#
# Needs only Python 3.10+ (with venv and pip) and access to PyPI. It builds a
# virtualenv in example_project/.venv (reused by later runs), installs this
# repository and the demo's tools into it, migrates and seeds an SQLite
# database with 100,000 posts, runs the system checks, starts the development
# server on a free port, and checks the sitemaps over HTTP with demo_check.py.
# Any failure stops it with a non-zero exit status; the server is always stopped.
#
# Environment: PYTHON (default python3), PORT (default: a free port),
# SEED_ROWS (default 100000).

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
    rm -f "$SERVER_LOG" "$SUMMARY_FILE"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

manage() { "$VPY" "$HERE/manage.py" "$@"; }

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

# -- 3. Port and base URL (every <loc> is built on SITEMAPKIT_BASE_URL) ------------
PORT="${PORT:-$("$VPY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()')}"
export SITEMAPKIT_BASE_URL="http://127.0.0.1:$PORT"
export PYTHONUNBUFFERED=1

# -- 4. Database ------------------------------------------------------------------
step "migrate"
manage migrate --noinput

step "seed --clear --rows $SEED_ROWS"
manage seed --clear --rows "$SEED_ROWS"

step "check (SITEMAPKIT_BASE_URL=$SITEMAPKIT_BASE_URL)"
manage check --fail-level WARNING

# -- 5. Server ----------------------------------------------------------------------
step "runserver 127.0.0.1:$PORT --noreload (in the background)"
# A plain command, not the manage function: $! must be the server's own pid
# (a backgrounded function runs in a subshell, and killing that leaves python running).
"$VPY" "$HERE/manage.py" runserver "127.0.0.1:$PORT" --noreload >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
echo "Started the development server (pid $SERVER_PID); its log is shown at the end."

# -- 6. HTTP checks ---------------------------------------------------------------
step "Fetch and validate the sitemaps (demo_check.py)"
"$VPY" "$HERE/demo_check.py" "$SITEMAPKIT_BASE_URL" \
    --server-pid "$SERVER_PID" --summary-file "$SUMMARY_FILE"

step "Stop the server"
kill "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""
if port_open "$PORT"; then
    echo "Port $PORT still answers after the server was stopped." >&2
    exit 1
fi
echo "Stopped the development server; port $PORT is closed. Its log:"
sed 's/^/    /' "$SERVER_LOG"
finish_step

printf '\nSUCCESS in %s s: seeded %s posts; %s.\n' \
    "$(elapsed "$STARTED")" "$("$VPY" -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$SEED_ROWS")" \
    "$(cat "$SUMMARY_FILE")"
