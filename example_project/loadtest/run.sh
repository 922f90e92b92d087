#!/usr/bin/env bash
# Load test of the example project under a real WSGI server (gunicorn) and a real
# ASGI server (uvicorn), each answering from the database and from the built files:
#
#   bash example_project/loadtest/run.sh                 # 4 runs of 60 s
#   DURATION=5 bash example_project/loadtest/run.sh      # a quick try
#
# For each server and mode it starts the server on a free 127.0.0.1 port with
# DEBUG off and no access log (errors are logged), warms it up, runs wrk with
# CONNECTIONS clients for DURATION seconds over the index and every page the
# index lists (round robin, rotate.lua), samples the RSS of the server's process
# tree (master + workers) every 0.2 s and the CPU it, wrk and the rest of the
# machine used, stops the server and checks: no request error (non-2xx/3xx
# status, connect/read/write error, timeout), no traceback, warning or restarted
# worker in the server's log (Django's "StreamingHttpResponse must consume
# synchronous iterators" under uvicorn included). Then it prints one summary table.
# When its time is up wrk drops the requests still in flight, as a crawler that
# gives up would: what the server logs then counts too ("after load" in the table).
#
# Workers: 2 for both servers by default, one per core. Building a page from the
# database is Python-bound (one core per process at most, GIL), so fewer leaves a
# core idle, and more only adds memory and context switches; wrk (2 threads, in C)
# shares the same 2 cores, which the "cores" column shows. gunicorn runs gthread
# workers (4 threads each) so that, like uvicorn, it keeps connections alive and
# a small index request is not stuck behind two multi-MB pages in a worker.
# Exit status: 0 if every run was clean, 1 if any was not, 2 for a set-up error.
#
# It prepares what it needs, reusing what is there: example_project/.venv (the
# demo's virtualenv; the repository editable + factory-boy, lxml, gunicorn,
# uvicorn[standard] are installed into it when missing), wrk (apt-get, as root),
# and its own SQLite database and built sitemaps in LOADTEST_WORK_DIR (seeded
# once, built incrementally every time), so the demo's database is left alone.
# The last run's server logs and wrk outputs stay in LOADTEST_WORK_DIR/last-run.
#
# Environment knobs (defaults in brackets):
#   DURATION [60]        seconds of each measured run
#   WARMUP_ROUNDS [2]    before each measured run, every URL is fetched this many
#                        times, CONNECTIONS at a time (not measured; errors count)
#   CONNECTIONS [16]     concurrent wrk connections
#   THREADS [2]          wrk threads
#   WORKERS [2]          worker processes, the same for both servers (2 cores)
#   GUNICORN_WORKER_CLASS [gthread]  or sync (one request per worker, no keep-alive)
#   GUNICORN_THREADS [4] threads per gthread worker
#   WRK_TIMEOUT [60s]    a response slower than this counts as a timeout error
#   SERVERS ["gunicorn uvicorn"], MODES ["database files"]   what to run
#   SEED_ROWS [100000]   posts in the load test's database (100,000 = 2 full pages)
#   LOADTEST_WORK_DIR [example_project/loadtest/.work]
#   SITEMAPKIT_BASE_URL [http://127.0.0.1:8000]  the host written in every <loc>
#                        (content only: wrk asks for the paths)
#   EXAMPLE_DATABASE [LOADTEST_WORK_DIR/db.sqlite3]  or "postgresql" (mysite/settings.py)
#   PYTHON [python3]     to create the virtualenv if there is none

set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXAMPLE="$(cd "$HERE/.." && pwd)"
ROOT="$(cd "$EXAMPLE/.." && pwd)"
PYTHON="${PYTHON:-python3}"
VENV="$EXAMPLE/.venv"
VPY="$VENV/bin/python"

DURATION="${DURATION:-60}"
WARMUP_ROUNDS="${WARMUP_ROUNDS:-2}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
WORKERS="${WORKERS:-2}"
GUNICORN_WORKER_CLASS="${GUNICORN_WORKER_CLASS:-gthread}"
GUNICORN_THREADS="${GUNICORN_THREADS:-4}"
WRK_TIMEOUT="${WRK_TIMEOUT:-60s}"
SERVERS="${SERVERS:-gunicorn uvicorn}"
MODES="${MODES:-database files}"
SEED_ROWS="${SEED_ROWS:-100000}"
WORK_DIR="${LOADTEST_WORK_DIR:-$HERE/.work}"
RUN_DIR="$WORK_DIR/last-run"
RESULTS="$RUN_DIR/results.jsonl"

# The settings every process of the run reads (see mysite/settings.py).
export DJANGO_SETTINGS_MODULE=loadtest_settings
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
export DJANGO_DEBUG=0
export EXAMPLE_DATABASE="${EXAMPLE_DATABASE:-$WORK_DIR/db.sqlite3}"
export SITEMAPKIT_OUTPUT_DIR="$WORK_DIR/sitemaps"
export SITEMAPKIT_BASE_URL="${SITEMAPKIT_BASE_URL:-http://127.0.0.1:8000}"
export PYTHONUNBUFFERED=1

SERVER_PID=""
SAMPLER_PID=""
FAILED=0
MIX_SIZE=0

cleanup() {
    local status=$?
    if [[ -n "$SAMPLER_PID" ]]; then kill "$SAMPLER_PID" 2>/dev/null || true; fi
    if [[ -n "$SERVER_PID" ]]; then
        # The server runs in its own session: its process group is its workers too.
        kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() {
    echo "run.sh: $*" >&2
    exit 2
}
manage() { (cd "$EXAMPLE" && "$VPY" manage.py "$@"); }
helper() { "$VPY" "$HERE/helper.py" "$@"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# -- Set-up ---------------------------------------------------------------------------
echo "==> Tools"
if [[ ! -x "$VPY" ]]; then
    "$PYTHON" -m venv "$VENV" || die "could not create $VENV (apt-get install python3-venv?)"
fi
if ! "$VPY" -c 'import django_sitemapkit, factory, lxml, gunicorn, uvicorn, uvloop, httptools' \
    2>/dev/null; then
    "$VPY" -m pip install --quiet --disable-pip-version-check \
        -e "$ROOT" "factory-boy>=3.3" "lxml>=5.2" gunicorn "uvicorn[standard]"
fi
if ! command -v wrk >/dev/null; then
    [[ "$(id -u)" == 0 ]] || die "wrk is missing: apt-get install wrk (as root)"
    apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
command -v curl >/dev/null || die "curl is missing: apt-get install curl"
if [[ "$GUNICORN_WORKER_CLASS" == sync ]]; then
    GUNICORN_THREADS=1 # more than 1 would make it gthread
fi

echo "==> Database ($EXAMPLE_DATABASE) and built sitemaps ($SITEMAPKIT_OUTPUT_DIR)"
mkdir -p "$WORK_DIR"
rm -rf "$RUN_DIR" && mkdir -p "$RUN_DIR"
manage migrate --noinput --verbosity 0
POSTS="$(manage shell --verbosity 0 -c 'from blog.models import Post; print(Post.objects.count())')"
if [[ "$POSTS" != "$SEED_ROWS" ]]; then
    manage seed --clear --rows "$SEED_ROWS"
fi
# Incremental: writes only what the database changed since the last run.
manage build_sitemaps

# -- Machine --------------------------------------------------------------------------
VERSIONS="$("$VPY" -c 'import platform, django, gunicorn, uvicorn, uvloop, httptools
print(f"python {platform.python_version()}, Django {django.get_version()}, "
      f"gunicorn {gunicorn.__version__}, uvicorn {uvicorn.__version__} "
      f"(uvloop {uvloop.__version__}, httptools {httptools.__version__})")')"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    COMMIT="$COMMIT+uncommitted changes"
fi
# wrk -v prints its version and usage, and exits 1.
WRK_VERSION="$( (wrk -v 2>&1 || true) | sed -n '1s/ \[.*//p')"
MACHINE="$(nproc) cores ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)), \
$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); $VERSIONS; \
$WRK_VERSION; commit $COMMIT"
echo "$MACHINE"
echo "load average at start: $(loadavg)"

# -- One run ------------------------------------------------------------------------
free_port() {
    "$VPY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

start_server() { # server mode port log
    local cmd
    case "$1" in
        gunicorn)
            # No --access-logfile: gunicorn logs no access by default.
            cmd=("$VENV/bin/gunicorn" mysite.wsgi:application --bind "127.0.0.1:$3"
                --workers "$WORKERS" --worker-class "$GUNICORN_WORKER_CLASS"
                --threads "$GUNICORN_THREADS" --timeout 120 --log-level info --error-logfile -)
            # Recent gunicorn (27 here) opens a control socket in ~/.gunicorn: not
            # wanted. (No grep -q: under pipefail, gunicorn's SIGPIPE would fail the test.)
            if "$VENV/bin/gunicorn" --help | grep -- --no-control-socket >/dev/null; then
                cmd+=(--no-control-socket)
            fi
            ;;
        uvicorn)
            cmd=("$VENV/bin/uvicorn" mysite.asgi:application --host 127.0.0.1 --port "$3"
                --workers "$WORKERS" --no-access-log --log-level info)
            ;;
        *) die "unknown server $1" ;;
    esac
    # setsid: its own process group, so that cleanup can stop the workers too;
    # exec: $! is the server's own pid (setsid execs when not a group leader).
    (cd "$EXAMPLE" && SITEMAPKIT_SERVE="$2" exec setsid "${cmd[@]}") >"$4" 2>&1 &
    SERVER_PID=$!
    local waited=0
    until curl -fso /dev/null "http://127.0.0.1:$3/sitemap.xml"; do
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$4" >&2; die "$1 exited at start-up"; }
        ((waited++ < 300)) || die "$1 did not answer within 60 s"
        sleep 0.2
    done
}

stop_server() {
    kill -TERM "$SERVER_PID"
    local waited=0
    while kill -0 "$SERVER_PID" 2>/dev/null && ((waited++ < 150)); do sleep 0.2; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

run_one() { # server mode
    local server="$1" mode="$2" name="$1-$2"
    local port log="$RUN_DIR/$name.log" url paths=() path
    port="$(free_port)"
    url="http://127.0.0.1:$port"
    echo
    echo "==> $server, SITEMAPKIT_SERVE=$mode, port $port (load average $(loadavg))"
    start_server "$server" "$mode" "$port" "$log"

    # The mix: the index and every page it lists, each fetched once here to
    # check it answers 200 and to know the mean body size and the largest page.
    curl -fsS -o "$RUN_DIR/$name-index.xml" "$url/sitemap.xml"
    mapfile -t paths < <(helper paths "$RUN_DIR/$name-index.xml")
    local total_bytes=0 largest="" largest_bytes=-1 code size
    for path in "${paths[@]}"; do
        read -r code size < <(curl -sS -o /dev/null -w '%{http_code} %{size_download}\n' \
            "$url$path")
        [[ "$code" == 200 ]] || die "$server $mode: $path answered $code"
        total_bytes=$((total_bytes + size))
        if ((size > largest_bytes)); then largest="$path" largest_bytes="$size"; fi
    done
    MIX_SIZE="${#paths[@]}"
    echo "    mix: ${paths[*]} ($MIX_SIZE URLs, $((total_bytes / MIX_SIZE)) bytes on average)"

    # The log's size as each phase begins, so that helper.py can tell when a
    # problem was logged: during the warm-up, the measured load, or after it.
    local marks
    marks="$(stat -c %s "$log")"
    local wrk_args=(-t "$THREADS" -c "$CONNECTIONS" --timeout "$WRK_TIMEOUT" --latency
        -s "$HERE/rotate.lua" "$url" -- "${paths[@]}")
    # Warm-up with curl, not wrk: every request is read to its end, so that
    # whatever is logged during the measured load comes from the load itself.
    local warmup_errors round
    warmup_errors="$(for ((round = 0; round < WARMUP_ROUNDS; round++)); do
        printf '%s\n' "${paths[@]/#/$url}"
    done | xargs -P "$CONNECTIONS" -n 1 curl -s -o /dev/null -w '%{http_code}\n' |
        grep -cv '^200$' || true)"

    # Time to first byte of the largest page on the idle server: a stream sends
    # its first chunk long before its last; a page collected whole does not.
    local ttfb total
    read -r ttfb total < <(curl -sS -o /dev/null -w '%{time_starttransfer} %{time_total}\n' \
        "$url$largest")
    echo "    idle GET $largest ($largest_bytes bytes): first byte ${ttfb} s, last byte ${total} s"

    marks="$marks,$(stat -c %s "$log")"
    # Not through the helper function: $! must be python itself, which writes its
    # figures on SIGTERM (a backgrounded function is a subshell that TERM kills).
    "$VPY" "$HERE/helper.py" sample "$SERVER_PID" "$RUN_DIR/$name-sample.json" &
    SAMPLER_PID=$!
    # bash's time keyword: wrk's own CPU seconds (user + system), to tell apart
    # the client's share of the 2 cores.
    local TIMEFORMAT='%U %S' wrk_cpu
    { time wrk -d "${DURATION}s" "${wrk_args[@]}" >"$RUN_DIR/$name-wrk.txt" 2>&1; } \
        2>"$RUN_DIR/$name-wrk-time.txt"
    wrk_cpu="$(awk 'END {print $1 + $2}' "$RUN_DIR/$name-wrk-time.txt")"
    marks="$marks,$(stat -c %s "$log")"
    kill -TERM "$SAMPLER_PID"
    wait "$SAMPLER_PID"
    SAMPLER_PID=""
    stop_server

    if ! helper record --out "$RESULTS" --server "$server" --mode "$mode" \
        --connections "$CONNECTIONS" --workers "$WORKERS" \
        --expected-body-bytes "$((total_bytes / ${#paths[@]}))" --ttfb "$ttfb" --total "$total" \
        --wrk-output "$RUN_DIR/$name-wrk.txt" --warmup-errors "$warmup_errors" \
        --wrk-cpu "$wrk_cpu" --sample-file "$RUN_DIR/$name-sample.json" \
        --log "$log" --log-marks "$marks"; then
        FAILED=1
        echo "    ---- $log (last 30 lines) ----"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
}

for server in $SERVERS; do
    for mode in $MODES; do
        run_one "$server" "$mode"
    done
done

# -- Summary ------------------------------------------------------------------------------
case "$GUNICORN_WORKER_CLASS" in
    sync) GUNICORN_DESC="$WORKERS sync workers" ;;
    *) GUNICORN_DESC="$WORKERS $GUNICORN_WORKER_CLASS workers x $GUNICORN_THREADS threads" ;;
esac
echo
echo "==> Summary: wrk -t $THREADS -c $CONNECTIONS -d ${DURATION}s over $MIX_SIZE URLs;" \
    "gunicorn $GUNICORN_DESC; uvicorn $WORKERS workers; DEBUG off, no access log;" \
    "$SEED_ROWS posts"
echo "machine: $MACHINE"
echo "load average at the end: $(loadavg)"
echo
helper table "$RESULTS"
echo
echo "(MB/s counts headers too; RSS is summed over every process of the server, so pages"
echo " shared after fork count once per process; TTFB/total: one GET of the largest page"
echo " on the idle server after warm-up; cores: average number of cores busy during the"
echo " load with the server, wrk and anything else. Logs and wrk outputs: $RUN_DIR)"
if ((FAILED)); then
    echo "FAILED: a run had request errors or problems in its server log (see above)." >&2
    exit 1
fi
echo "OK: no request error, and no traceback, warning or restarted worker in any server log."
