#!/usr/bin/env bash
# The load-test table of docs/BENCHMARKS.md: builds the release binaries, then for every board
# shape starts a fresh server (durable SQLite, then --memory-store) on 127.0.0.1:0, runs a rate
# sweep and a fixed-rate run against it, sweeps the baseline relay the same way, runs the
# 10,000-connection shape, the reconnect storm and the idle-memory runs, and prints a markdown
# table.
#
#   loadtest/scripts/bench-table.sh [RESULTS_DIR]   (default: $CARGO_TARGET_DIR/bench-results/DATE)
#
# Environment (all optional):
#   STEP_SECS=6 WARMUP_SECS=2   measurement window and warm-up of each sweep step
#   FIXED_SECS=15               window of the fixed-rate runs
#   WIDE_SECS=20                window of the 10,000-connection runs (20 s ramp, 25 s warm-up)
#   ONLY="1x50 storm"           run only these parts (1x10 1x50 10x20 100x5 1x200 1000x10 storm
#                               idle)
#   ROUNDS=1                    sweeps per store and shape; with more, each round sweeps the
#                               server configurations and then the relay again, the table gives
#                               the median round and the median of each round's share of the
#                               relay's sweep in the same round, and lists every round below it
#   STORES="durable relaxed"    which server configurations to run
#   QUIET_WAIT=180              longest wait, seconds, before each run for other work to stop:
#   MIN_IDLE=80                 no rustc process and at least this % of CPU idle over 2 s
#   SERVER_FLAGS="..."          extra server flags (default: a per-connection rate limit high
#                               enough that the sweep measures the server, not the limiter)
#   SERVER_BIN=path             measure another server binary (default: the one just built)
#   FSYNC_PROBE_SECS=20         fsync probe of the temp dir's disk before and after the runs
#   CARGO_TARGET_DIR, CARGO_BUILD_JOBS (default 2)
#
# Every run writes RESULTS_DIR/NAME.json and NAME.txt; RESULTS_DIR/commands.log lists the
# exact commands; RESULTS_DIR/table.md is the table printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
results=${1:-$target/bench-results/$(date +%Y%m%d-%H%M%S)}
step_secs=${STEP_SECS:-6}
warmup_secs=${WARMUP_SECS:-2}
fixed_secs=${FIXED_SECS:-15}
wide_secs=${WIDE_SECS:-20}
only=${ONLY:-}
rounds=${ROUNDS:-1}
stores=${STORES:-durable relaxed}
quiet_wait=${QUIET_WAIT:-180}
min_idle=${MIN_IDLE:-80}
server_flags=${SERVER_FLAGS:---rate-limit-per-sec 100000 --rate-burst 200000}
# The measured servers run without access control (`--auth off`, through its environment twin so
# that a binary from before it ignores it): what is measured is the board core, as before.
export BOARD_AUTH=${BOARD_AUTH:-off}
mkdir -p "$results"
results=$(cd "$results" && pwd)
log="$results/commands.log"
: > "$log"

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$results/progress.log" >&2; }

wanted() { [ -z "$only" ] || [[ " $only " == *" $1 "* ]]; }

# ---- build --------------------------------------------------------------------------------
say "building release binaries"
cargo build --release -j "${CARGO_BUILD_JOBS:-2}" -p server -p loadtest
server_bin=${SERVER_BIN:-$target/release/server}
loadtest_bin="$target/release/loadtest"

# 10,000 connections need 10,000+ descriptors in both processes (children inherit this).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
say "open-file limit $(ulimit -n)"

# ---- helpers ------------------------------------------------------------------------------
server_pid=""
server_addr=""
server_dir=""
base_pid=""
base_addr=""

cleanup() {
  [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null || true
  [ -n "$base_pid" ] && kill -TERM "$base_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# Percent of CPU time idle over 2 s (all cores), from /proc/stat.
cpu_idle() {
  local -a a b
  local i ta=0 tb=0
  read -r -a a < /proc/stat
  sleep 2
  read -r -a b < /proc/stat
  for i in 1 2 3 4 5 6 7 8; do
    ta=$((ta + a[i]))
    tb=$((tb + b[i]))
  done
  echo $((100 * ((b[4] + b[5]) - (a[4] + a[5])) / ((tb - ta) > 0 ? (tb - ta) : 1)))
}

# Other work on the machine skews figures: wait (at most $quiet_wait s) until no rustc runs
# and the CPUs are at least $min_idle % idle. What was found goes to quiet.log.
wait_quiet() {
  local waited=0 n idle
  while :; do
    n=$(pgrep -c rustc 2>/dev/null || true)
    idle=$(cpu_idle)
    if [ "${n:-0}" -eq 0 ] && [ "$idle" -ge "$min_idle" ]; then
      break
    fi
    if [ "$waited" -ge "$quiet_wait" ]; then
      say "  machine busy after ${waited} s ($n rustc, ${idle} % idle); measuring anyway"
      break
    fi
    sleep 3
    waited=$((waited + 5))
  done
  echo "$1 rustc=${n:-0} idle=${idle}% waited=${waited}s" >> "$results/quiet.log"
}

# Reads `PREFIX ADDR` from a process's stdout file.
await_line() {
  local file=$1 prefix=$2 pid=$3
  for _ in $(seq 1 100); do
    if grep -q "^$prefix" "$file" 2>/dev/null; then
      sed -n "s|^$prefix||p" "$file" | head -n1
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "process $pid did not print '$prefix' (see $file)" >&2
  return 1
}

start_server() { # store name
  local store=$1 name=$2 flags
  server_dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-server.XXXXXX")
  # shellcheck disable=SC2206
  flags=($server_flags)
  [ "$store" = relaxed ] && flags+=(--memory-store)
  "$server_bin" --listen 127.0.0.1:0 --data-dir "$server_dir" "${flags[@]}" \
    > "$results/$name.server.out" 2> "$results/$name.server.err" &
  server_pid=$!
  server_addr=$(await_line "$results/$name.server.out" "listening on " "$server_pid")
  echo "# server ($store): $server_bin --listen 127.0.0.1:0 --data-dir DIR ${flags[*]}  -> $server_addr" >> "$log"
}

stop_server() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
  [ -n "$server_dir" ] && rm -rf "$server_dir"
  server_dir=""
}

start_baseline() { # name
  "$loadtest_bin" --serve-baseline --listen 127.0.0.1:0 > "$results/$1.baseline.out" 2>&1 &
  base_pid=$!
  base_addr=$(await_line "$results/$1.baseline.out" "baseline relay listening on ws://" "$base_pid")
  echo "# baseline: $loadtest_bin --serve-baseline --listen 127.0.0.1:0  -> $base_addr" >> "$log"
}

stop_baseline() {
  if [ -n "$base_pid" ]; then
    kill -TERM "$base_pid" 2>/dev/null || true
    wait "$base_pid" 2>/dev/null || true
  fi
  base_pid=""
}

# CPU ticks per thread of a process: `TID NAME TICKS` (utime + stime, fields 14 and 15 of
# /proc/PID/task/TID/stat, counted after the parenthesised name).
thread_ticks() {
  local f s rest name
  local -a a
  for f in /proc/"$1"/task/*/stat; do
    s=$(cat "$f" 2>/dev/null) || continue
    rest=${s##*) }
    read -r -a a <<< "$rest"
    name=${s#*(}
    name=${name%)*}
    echo "$(basename "$(dirname "$f")") ${name// /_} $((a[11] + a[12]))"
  done
}

# CPU seconds per server thread (`CPU_S NAME TID`, busiest first) between two thread_ticks
# outputs; threads that started in between count from zero.
thread_cpu() {
  awk 'NR == FNR { before[$1] = $3; next }
       { d = ($3 - before[$1]) / 100.0; if (d > 0) printf "%.2f %s %s\n", d, $2, $1 }' \
    "$1" "$2" | sort -rn
}

# lt NAME ARGS...: one loadtest invocation, its report in NAME.json / NAME.txt, and the CPU
# seconds of each thread of the server (or relay) over the invocation in NAME.threads.
lt() {
  local name=$1
  shift
  wait_quiet "$name"
  say "$name: loadtest $*"
  echo "$name: loadtest $* --json $name.json" >> "$log"
  local t0=$SECONDS
  local pid=${server_pid:-$base_pid}
  [ -n "$pid" ] && thread_ticks "$pid" > "$results/$name.ticks0"
  "$loadtest_bin" "$@" --json "$results/$name.json" > "$results/$name.txt" 2>&1 || true
  if [ -n "$pid" ]; then
    thread_ticks "$pid" > "$results/$name.ticks1"
    thread_cpu "$results/$name.ticks0" "$results/$name.ticks1" > "$results/$name.threads"
    rm -f "$results/$name.ticks0" "$results/$name.ticks1"
  fi
  say "  done in $((SECONDS - t0)) s: $(grep -E 'max sustainable|^OK|^PROBLEM|^error' "$results/$name.txt" | head -n 3 | tr '\n' ' ')"
}

# The disk under the durable store: fsync stalls bound durable latency whatever the load.
probe_disk() {
  "$root/loadtest/scripts/fsync-probe.sh" "${FSYNC_PROBE_SECS:-20}" "${TMPDIR:-/tmp}" \
    | tee -a "$results/fsync.txt" >&2
}
say "disk before the runs"
probe_disk

# ---- the shapes ---------------------------------------------------------------------------
# name boards clients sweep-start-rate fixed-rate (per client; the fixed rates offer
# 1,000 updates/s in every shape)
shapes=(
  "1x10 1 10 100 100"
  "1x50 1 50 10 20"
  "10x20 10 20 5 5"
  "100x5 100 5 4 2"
  "1x200 1 200 1 5"
)
sweep_args=(--sweep --p99-bound-ms 50 --sweep-factor 2 --sweep-refine 2 --sweep-retries 1
  --warmup "$warmup_secs" --duration "$step_secs" --drain 2)

for s in "${shapes[@]}"; do
  read -r name boards clients start fixed <<< "$s"
  wanted "$name" || continue
  for store in $stores; do
    # The fixed-rate run first, so its RSS is that of a fresh server.
    start_server "$store" "$name-$store"
    lt "$name-$store-fixed" --url "ws://$server_addr" --boards "$boards" --clients "$clients" \
      --rate "$fixed" --warmup 3 --duration "$fixed_secs" --server-pid "$server_pid"
    lt "$name-$store-sweep" --url "ws://$server_addr" --boards "$boards" --clients "$clients" \
      --rate "$start" "${sweep_args[@]}"
    stop_server
  done
  start_baseline "$name"
  lt "$name-baseline-fixed" --url "ws://$base_addr" --boards "$boards" --clients "$clients" \
    --rate "$fixed" --warmup 3 --duration "$fixed_secs" --server-pid "$base_pid"
  lt "$name-baseline-sweep" --url "ws://$base_addr" --boards "$boards" --clients "$clients" \
    --rate "$start" "${sweep_args[@]}"
  stop_baseline
  # Further rounds: the relay's sweep moves with the machine as much as the server's does, so
  # each round pairs the server's sweeps with one of the relay taken right after them.
  for r in $(seq 2 "$rounds"); do
    for store in $stores; do
      start_server "$store" "$name-$store.r$r"
      lt "$name-$store-sweep.r$r" --url "ws://$server_addr" --boards "$boards" \
        --clients "$clients" --rate "$start" "${sweep_args[@]}"
      stop_server
    done
    start_baseline "$name.r$r"
    lt "$name-baseline-sweep.r$r" --url "ws://$base_addr" --boards "$boards" \
      --clients "$clients" --rate "$start" "${sweep_args[@]}"
    stop_baseline
  done
done

# 10,000 connections: 1,000 boards x 10 clients at 1 update/s, joins ramped over 20 s.
if wanted 1000x10; then
  for store in $stores; do
    start_server "$store" "1000x10-$store"
    lt "1000x10-$store-fixed" --url "ws://$server_addr" --shape wide --ramp 20 --warmup 25 \
      --duration "$wide_secs" --drain 3 --server-pid "$server_pid"
    stop_server
  done
  start_baseline 1000x10
  lt "1000x10-baseline-fixed" --url "ws://$base_addr" --shape wide --ramp 20 --warmup 25 \
    --duration "$wide_secs" --drain 3 --server-pid "$base_pid"
  stop_baseline
fi

# Reconnect storm: 10 boards x 20 clients at 2/s, everyone drops 10 s in and resumes.
if wanted storm; then
  for store in $stores; do
    start_server "$store" "storm-$store"
    lt "storm-$store" --url "ws://$server_addr" --shape storm --warmup 3 --duration 15 \
      --reconnect-storm-at 10 --drain 5 --server-pid "$server_pid"
    stop_server
  done
fi

# Idle memory: clients join, create one note each and then only read. 10 x 100 and 1,000 x 1
# have the same 1,000 connections on 10 and on 1,000 boards (at 1,000 x 1 a board and its one
# connection together); 1,000 x 10 is the 10,000-connection shape at rest.
idle_shapes=("10x100 10 100 5" "1000x1 1000 1 5" "1000x10 1000 10 20")
if wanted idle; then
  for s in "${idle_shapes[@]}"; do
    read -r name boards clients ramp <<< "$s"
    for store in $stores; do
      start_server "$store" "idle-$name-$store"
      lt "idle-$name-$store" --url "ws://$server_addr" --boards "$boards" --clients "$clients" \
        --rate 0 --ramp "$ramp" --warmup $((ramp + 10)) --duration 5 --server-pid "$server_pid"
      stop_server
    done
    start_baseline "idle-$name"
    lt "idle-$name-baseline" --url "ws://$base_addr" --boards "$boards" --clients "$clients" \
      --rate 0 --ramp "$ramp" --warmup $((ramp + 10)) --duration 5 --server-pid "$base_pid"
    stop_baseline
  done
fi

say "disk after the runs"
probe_disk

# ---- the table ----------------------------------------------------------------------------
MIN_IDLE=$min_idle ROUNDS=$rounds python3 - "$results" > "$results/table.md" <<'PY'
import json, os, statistics, sys

d = sys.argv[1]
rounds = int(os.environ.get("ROUNDS", "1"))

def load(name):
    p = os.path.join(d, name + ".json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)

def num(v, fmt="{:,.0f}"):
    return "–" if v is None else fmt.format(v)

def limit(sw):
    """Why the sweep stopped: the first failing step's first problem."""
    if sw is None:
        return "–"
    if sw.get("limit_not_reached"):
        return "not reached"
    # A rate that failed and then held on a retry (--sweep-retries) is not where the sweep stopped.
    held = {st["rate_per_client"] for st in sw["steps"] if st["sustainable"]}
    for st in sw["steps"]:
        if not st["sustainable"] and st["rate_per_client"] not in held:
            p = st["problems"][0] if st["problems"] else "?"
            if "p99" in p:
                return "p99"
            if "offered rate" in p:
                return "generator"
            if "disconnected" in p:
                return "disconnects"
            if "lost" in p:
                return "loss"
            if "errors" in p:
                return "errors"
            return p[:30]
    return "–"

def sustained(sw):
    if sw is None:
        return None, None
    return sw.get("max_sustainable_commits_per_s"), sw.get("max_sustainable_rate")

def sweeps(name, store):
    """The sweep of each round (None where a round has none)."""
    out = []
    for r in range(1, rounds + 1):
        sw = load(f"{name}-{store}-sweep" + ("" if r == 1 else f".r{r}"))
        out.append(sw["ours"] if sw else None)
    return out

def median_round(sws):
    """The round whose sustainable rate is the median (the lower one of an even count)."""
    have = [sw for sw in sws if sw is not None and sustained(sw)[0] is not None]
    if not have:
        return None
    have.sort(key=lambda sw: sustained(sw)[0])
    return have[(len(have) - 1) // 2]

def shares(name, store):
    """Each round's sustainable rate as a share of the relay's in the same round."""
    out = []
    for ours, base in zip(sweeps(name, store), sweeps(name, "baseline")):
        a, b = sustained(ours)[0], sustained(base)[0]
        out.append(a / b if a is not None and b else None)
    return out

shapes = [("1x10", 1, 10), ("1x50", 1, 50), ("10x20", 10, 20), ("100x5", 100, 5),
          ("1x200", 1, 200), ("1000x10", 1000, 10)]
print("| shape (boards × clients) | store | sustainable updates/s (per client) | deliveries/s at that rate | first failed step | share of baseline | fixed rate: updates/s | p50 / p99 fan-out ms | server CPU % of a core | server RSS MiB | loadtest CPU % |")
print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
for name, boards, clients in shapes:
    for store in ["durable", "relaxed", "baseline"]:
        sw = median_round(sweeps(name, store))
        fx = load(f"{name}-{store}-fixed")
        if sw is None and fx is None:
            continue
        cps, rate = sustained(sw)
        deliv = None if cps is None else cps * (clients - 1)
        share = None
        if store != "baseline":
            got = [x for x in shares(name, store) if x is not None]
            share = statistics.median(got) if got else None
        sus = "–" if cps is None else f"{cps:,.0f} ({rate:,.1f}/s)"
        fx_rate = fx["commits_per_s"] if fx else None
        lat = f"{fx['fanout']['p50_ms']:.2f} / {fx['fanout']['p99_ms']:.2f}" if fx else "–"
        srv = fx.get("server") if fx else None
        me = fx.get("loadtest") if fx else None
        cpu = num(srv["cpu_percent_window"]) if srv else "–"
        rss = num(srv["rss_end_kb"] / 1024, "{:,.0f}") if srv else "–"
        lcpu = num(me["cpu_percent_window"]) if me else "–"
        print(f"| {boards:,} × {clients} | {store} | {sus} | {num(deliv)} | {limit(sw) if sw else '–'} | "
              f"{'–' if share is None else f'{share*100:.0f} %'} | {num(fx_rate)} | {lat} | {cpu} | {rss} | {lcpu} |")

if rounds > 1:
    print()
    print(f"Sweeps per round ({rounds} rounds; each round sweeps the server configurations, then the relay; "
          "the table above gives the median round and the median share):")
    print()
    print("| shape | store | sustainable updates/s per round | share of the same round's relay |")
    print("|---|---|---|---|")
    for name, boards, clients in shapes:
        for store in ["durable", "relaxed", "baseline"]:
            sws = sweeps(name, store)
            if all(sw is None for sw in sws):
                continue
            per = ", ".join(num(sustained(sw)[0]) for sw in sws)
            sh = "–" if store == "baseline" else ", ".join(
                "–" if x is None else f"{x*100:.0f} %" for x in shares(name, store))
            print(f"| {boards:,} × {clients} | {store} | {per} | {sh} |")

print()
print("| 10,000 connections (1,000 × 10, 1 update/s) | store | updates/s | deliveries/s | delivered | p50 / p99 fan-out ms | p99 ack ms | server RSS MiB (joined / end) | RSS per connection kB | server CPU % (ran / waited for a CPU) | problems |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for store in ["durable", "relaxed", "baseline"]:
    fx = load(f"1000x10-{store}-fixed")
    if fx is None:
        continue
    srv = fx.get("server")
    rss = f"{srv['rss_joined_kb']/1024:,.0f} / {srv['rss_end_kb']/1024:,.0f}" if srv else "–"
    per = f"{srv['rss_per_connection_kb']:.1f}" if srv else "–"
    cpu = num(srv["cpu_percent_window"]) if srv else "–"
    if srv and srv.get("cpu_wait_percent_window") is not None:
        cpu += " / " + num(srv["cpu_wait_percent_window"])
    probs = []
    if fx["delivered"] < fx["expected"]:
        probs.append(f"lost {fx['expected'] - fx['delivered']}")
    if fx["error_count"]:
        probs.append(f"{fx['error_count']} errors")
    if fx["never_joined"] or fx["late_joins"]:
        probs.append(f"{fx['never_joined']} never joined, {fx['late_joins']} late")
    if fx["disconnects"]:
        probs.append(f"{fx['disconnects']} disconnects")
    print(f"| 1,000 × 10 | {store} | {fx['commits_per_s']:,.0f} | {fx['deliveries_per_s']:,.0f} | "
          f"{fx['delivery_ratio']*100:.2f} % | {fx['fanout']['p50_ms']:.2f} / {fx['fanout']['p99_ms']:.2f} | "
          f"{fx['ack']['p99_ms']:.2f} | {rss} | {per} | {cpu} | {', '.join(probs) or 'none'} |")

print()
print("| reconnect storm (10 × 20 at 2/s, all drop at 10 s) | store | dropped | resumed and caught up | recovery ms (slowest) | p50 ms | full resyncs | lost |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for store in ["durable", "relaxed"]:
    r = load(f"storm-{store}")
    if r is None or r.get("storm") is None:
        continue
    s = r["storm"]
    print(f"| storm | {store} | {s['dropped']} | {s['recovered']} | {s['recovery_ms']:.1f} | "
          f"{s['recovery']['p50_ms']:.1f} | {r['full_resyncs']} | {r['expected'] - r['delivered']} |")

idle = {}
for store in ["durable", "relaxed", "baseline"]:
    for name in ["10x100", "1000x1", "1000x10"]:
        r = load(f"idle-{name}-{store}")
        if r is not None and r.get("server"):
            idle[(store, name)] = r
if idle:
    print()
    print("| idle memory (join, one note each, then only read) | store | connections | boards | server RSS MiB (before / joined) | growth per connection kB | growth per board kB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for store in ["durable", "relaxed", "baseline"]:
        for name in ["10x100", "1000x1", "1000x10"]:
            r = idle.get((store, name))
            if r is None:
                continue
            s = r["server"]
            sh = r["shape"]
            print(f"| {sh['boards']:,} × {sh['clients_per_board']:,} | {store} | {sh['connections']:,} | {sh['boards']:,} | "
                  f"{s['rss_before_kb']/1024:,.0f} / {s['rss_joined_kb']/1024:,.0f} | "
                  f"{s['rss_per_connection_kb']:.1f} | {s['rss_per_board_kb']:.1f} |")
    print()
    print("Growth: RSS when the window opened (everyone joined) minus RSS before the first join, "
          "divided by connections and by boards. At 1,000 × 1 both are one board with its one "
          "connection.")

busy = []
qpath = os.path.join(d, "quiet.log")
if os.path.exists(qpath):
    for line in open(qpath):
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        if f.get("rustc") != "0" or int(f.get("idle", "0%").rstrip("%")) < int(os.environ.get("MIN_IDLE", "80")):
            busy.append(f"{line.split()[0]} ({f.get('rustc')} rustc, {f.get('idle')} idle)")
print()
print("Runs that started on a busy machine: " + (", ".join(busy) if busy else "none"))

retried = []
for name, _, _ in shapes:
    for store in ["durable", "relaxed", "baseline"]:
        for r, sw in enumerate(sweeps(name, store), start=1):
            if not sw:
                continue
            steps = sw["steps"]
            for st in steps:
                if st.get("attempt", 1) > 1:
                    first = next(x for x in steps if x["rate_per_client"] == st["rate_per_client"])
                    why = first["problems"][0] if first["problems"] else "?"
                    verdict = "held" if st["sustainable"] else "failed again"
                    tag = "" if r == 1 else f" (round {r})"
                    retried.append(f"{name} {store}{tag} at {st['rate_per_client']:,.1f}/s ({why}; {verdict})")
fs = os.path.join(d, "fsync.txt")
if os.path.exists(fs):
    print()
    for when, line in zip(["before", "after"], open(fs).read().splitlines()):
        print(f"Disk {when} the runs: {line}  ")
print()
print("Sweep steps measured again (--sweep-retries): " + ("; ".join(retried) if retried else "none"))
PY
cat "$results/table.md"
say "results in $results"
