#!/usr/bin/env bash
# Cluster benchmark (docs/BENCHMARKS.md, "Cluster"): the same load on 1, 2 and 3 nodes, one
# after the other in one session, each run on a fresh PostgreSQL schema; the clients of every
# board are spread over the nodes (loadtest --url with one URL per node). Release binaries.
#
#   cargo build --release -p server -p loadtest
#   loadtest/scripts/bench-cluster.sh                      # NODES="1 2 3", 20 boards x 5 clients at 10/s
#   NODES="3 1" DURATION=20 loadtest/scripts/bench-cluster.sh
#   PLACEMENTS="spread board" NODES="1 3" loadtest/scripts/bench-cluster.sh   # a board's clients
#                                                      # spread over the nodes, or on one node
#   ROUNDS=3 loadtest/scripts/bench-cluster.sh         # 1 2 3 1 2 3 1 2 3: the machine's speed
#                                                      # swings, so compare within a round
#
# Needs PostgreSQL (PG, default postgres://root@127.0.0.1:5432/test, with psql to drop the
# schemas) and NATS (NATS_URL, default nats://127.0.0.1:4222; NATS_PID=its pid also samples its
# CPU). Reports go to OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/release}
PG=${PG:-postgres://root@127.0.0.1:5432/test}
NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}
NODES=${NODES:-1 2 3}
BOARDS=${BOARDS:-20}
CLIENTS=${CLIENTS:-5}
RATE=${RATE:-10}
WARMUP=${WARMUP:-5}
DURATION=${DURATION:-30}
ROUNDS=${ROUNDS:-1}
PLACEMENTS=${PLACEMENTS:-spread}
OUT=${OUT:-$(mktemp -d /tmp/bench-cluster.XXXXXX)}
EXTRA=${EXTRA:-}
mkdir -p "$OUT"
admin=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
pids=()

# CPU ticks (utime + stime, 1/100 s) of the PostgreSQL backends the given node processes are
# connected to: their share of the database's work, apart from other users of the same server.
pg_backends() {
  local p port
  for p in "$@"; do
    for port in $(ss -tnpH state established '( dport = :5432 )' | grep "pid=$p," | awk '{print $3}' | sed 's/.*://'); do
      pgrep -f "postgres: .*127\.0\.0\.1\($port\)" || true
    done
  done
}
ticks() {
  local t=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  echo "$t"
}

cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

for round in $(seq 1 "$ROUNDS"); do
for n in $NODES; do
# One node has one placement.
placements=$PLACEMENTS
[ "$n" -eq 1 ] && placements=spread
for placement in $placements; do
  name="r${round}-${n}n"
  [ "$placement" = spread ] || name="$name-$placement"
  tag="b$(date +%s)r${round}n$n"
  schema="bench_$tag"
  pids=()
  urls=()
  for i in $(seq 1 "$n"); do
    log="$OUT/$tag-node$i"
    # shellcheck disable=SC2086
    "$BIN/server" --listen 127.0.0.1:0 --cluster --node-id "node$i" \
      --database-url "$PG" --database-schema "$schema" --nats-url "$NATS_URL" \
      --nats-prefix "$tag" --admin-token "$admin" $EXTRA \
      > "$log.out" 2> "$log.err" &
    pids+=($!)
  done
  for i in $(seq 1 "$n"); do
    log="$OUT/$tag-node$i"
    for _ in $(seq 1 100); do grep -q "^listening on " "$log.out" 2>/dev/null && break; sleep 0.1; done
    urls+=("ws://$(sed -n 's/^listening on //p' "$log.out" | head -n1)")
  done
  # Every node healthy (joined the cluster) before the clients come.
  for u in "${urls[@]}"; do
    for _ in $(seq 1 100); do curl -fsS "http://${u#ws://}/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  done
  url_list=$(IFS=,; echo "${urls[*]}")
  pid_list=$(IFS=,; echo "${pids[*]}")
  echo "== round $round, $n node(s), placement $placement: $url_list (schema $schema)"
  # PostgreSQL's CPU over the measurement window (it opens after the warm-up and the minting).
  (
    sleep "$(echo "$WARMUP + 1" | bc)"
    # shellcheck disable=SC2207
    backends=($(pg_backends "${pids[@]}"))
    t0=$(ticks "${backends[@]}")
    n0=$(ticks ${NATS_PID:-})
    sleep "$DURATION"
    t1=$(ticks "${backends[@]}")
    n1=$(ticks ${NATS_PID:-})
    echo "$(( t1 - t0 )) ${#backends[@]} $(( n1 - n0 ))" > "$OUT/pg-$name"
  ) &
  sampler=$!
  "$BIN/loadtest" --url "$url_list" --placement "$placement" --server-pid "$pid_list" --admin-token "$admin" \
    --boards "$BOARDS" --clients "$CLIENTS" --rate "$RATE" --warmup "$WARMUP" \
    --duration "$DURATION" --json "$OUT/cluster-$name.json" | tee "$OUT/cluster-$name.txt" || true
  wait "$sampler" || true
  read -r pg_ticks pg_n nats_ticks < "$OUT/pg-$name" || true
  commits=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['window_commits'])" "$OUT/cluster-$name.json" 2>/dev/null || echo 0)
  if [ "${commits:-0}" -gt 0 ]; then
    echo "postgres: ${pg_n} backends, CPU $(( pg_ticks * 100 / DURATION / 100 )) % of a core in the window, $(( pg_ticks * 10000 / commits )) µs per commit" | tee -a "$OUT/cluster-$name.txt"
    if [ -n "${NATS_PID:-}" ]; then
      echo "nats-server: CPU $(( nats_ticks / DURATION )) % of a core in the window (shared with anything else using it)" | tee -a "$OUT/cluster-$name.txt"
    fi
  fi
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  psql -q "$PG" -c "DROP SCHEMA IF EXISTS \"$schema\" CASCADE" >/dev/null 2>&1 || true
done
done
done
echo "reports in $OUT"
