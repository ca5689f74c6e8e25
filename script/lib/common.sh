# Shared helpers for script/bench, script/bench-app and script/soak (sourced, not run).
# Everything binds to 127.0.0.1; every process started through `spawn` is stopped by `cleanup`.

PIDS=()
WORK=""
STARTS=0
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  [ -n "$WORK" ] && rm -rf "$WORK"
  return 0
}

# make_work PREFIX: a fresh scratch folder in $WORK, removed on exit.
make_work() {
  WORK="$(mktemp -d "/tmp/$1.XXXXXX")"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

# A free port below the ephemeral range (which servers bound to port 0 and clients use).
pick_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 12000))
    ss -Hltn "sport = :$port" 2>/dev/null | grep -q . || { echo "$port"; return; }
  done
  echo "no free port found" >&2
  exit 1
}

TICKS=$(getconf CLK_TCK)
# CPU ticks (utime+stime) of a process (all its threads) and its child processes (nginx workers).
cpu_ticks() {
  local total=0 pid
  for pid in "$1" $(pgrep -P "$1" || true); do
    if [ -r "/proc/$pid/stat" ]; then
      # Field 2 (comm) may hold spaces; count fields from after its closing parenthesis.
      total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
    fi
  done
  echo "$total"
}

# wrk latency like 325.00us / 1.20ms / 2.00s -> milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

# status_kb PID FIELD: a /proc/PID/status field in kB (VmRSS, VmHWM), or 0 once the process is gone.
status_kb() {
  awk -v f="$2:" '$1 == f { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# fd_count PID: open descriptors of the process.
fd_count() {
  local n
  n=$(ls "/proc/$1/fd" 2>/dev/null | wc -l) || n=0
  echo "$n"
}

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# wait_listening FILE NAME: waits up to 10 s for a "listening on http://host:port" line; prints the port.
wait_listening() {
  local port=""
  for _ in $(seq 1 100); do
    # The output file may not exist yet (the child opens it after the fork): sed's exit 2 then
    # would end a `set -eo pipefail` caller silently (script/test-release once, at load 15).
    port=$({ sed -n 's/.*listening on http:\/\/[^:]*:\([0-9]*\).*/\1/p' "$1" 2>/dev/null || true; } | head -1)
    [ -n "$port" ] && { echo "$port"; return; }
    sleep 0.1
  done
  echo "$2 did not start:" >&2
  cat "$1" >&2
  exit 1
}

# eventually CMD...: runs CMD until it succeeds, for up to 10 s (a log line written after the answer,
# on a loaded machine); returns CMD's last status.
eventually() {
  local _
  for _ in $(seq 1 100); do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}

# start_double ARGS...: a release github-double on a free port; sets DOUBLE_PID and DOUBLE_PORT.
# Rate limits are raised unless the arguments set them (later flags win).
start_double() {
  local out="$WORK/double.$((++STARTS)).out"  # a new file each time: the child truncates it late
  "$DOUBLE_BIN" --port 0 --search-limit 100000000 --core-limit 1000000000 "$@" > "$out" 2>&1 &
  DOUBLE_PID=$!
  PIDS+=("$DOUBLE_PID")
  DOUBLE_PORT=$(wait_listening "$out" github-double)
}

# start_app LOG ARGS...: a release repo-scroll against the double; sets APP_PID and APP_PORT.
# Its standard error (access log) goes to LOG.
start_app() {
  local log=$1 out="$WORK/app.$((++STARTS)).out"
  shift
  "$APP_BIN" --port 0 --github-api "http://127.0.0.1:$DOUBLE_PORT" \
    --avatar-base "http://127.0.0.1:$DOUBLE_PORT" "$@" > "$out" 2> "$log" &
  APP_PID=$!
  PIDS+=("$APP_PID")
  APP_PORT=$(wait_listening "$out" repo-scroll)
}

# stop PID: SIGTERM one process we started and wait for it.
stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

APP_BIN="${REPO_SCROLL_BIN:-.build/release/repo-scroll}"
DOUBLE_BIN="${GITHUB_DOUBLE_BIN:-.build/release/github-double}"

# build_release: builds both executables in release (skipped with BENCH_NO_BUILD=1).
build_release() {
  [ "${BENCH_NO_BUILD:-0}" = 1 ] && return
  swift build -c release --product repo-scroll >&2
  swift build -c release --product github-double >&2
}
