#!/usr/bin/env bash
# Two server binaries side by side in one run: for ROUNDS rounds, each binary in turn gets a
# fresh server on 127.0.0.1:0 and a fixed-rate run of each shape; prints server CPU (% of a
# core in the window), fan-out p50 / p99 and delivery per run, and the per-binary medians.
#
#   loadtest/scripts/side-by-side.sh BASE_BIN NEW_BIN [RESULTS_DIR]
#
# Environment: ROUNDS=2 SECS=10 SHAPES="1x50:1:50:100 100x5:100:5:20" (name:boards:clients:rate)
#   SERVER_FLAGS="--memory-store ..." LOADTEST_BIN=...
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
loadtest_bin=${LOADTEST_BIN:-$target/release/loadtest}
rounds=${ROUNDS:-2}
secs=${SECS:-10}
shapes=${SHAPES:-1x50:1:50:100 100x5:100:5:20}
server_flags=${SERVER_FLAGS:---memory-store --rate-limit-per-sec 100000 --rate-burst 200000}
# The measured servers run without access control (`--auth off`, through its environment twin so
# that a binary from before it ignores it): what is measured is the board core, as before.
export BOARD_AUTH=${BOARD_AUTH:-off}
base=$1
new=$2
results=${3:-$(mktemp -d)}
mkdir -p "$results"
for round in $(seq "$rounds"); do
  for shape in $shapes; do
    IFS=: read -r name boards clients rate <<< "$shape"
    for which in base new; do
      bin=$base; [ "$which" = new ] && bin=$new
      dir=$(mktemp -d)
      # shellcheck disable=SC2086
      "$bin" --listen 127.0.0.1:0 --data-dir "$dir" $server_flags > "$dir/out.log" 2> "$dir/err.log" &
      pid=$!
      for _ in $(seq 100); do grep -q '^listening on' "$dir/out.log" && break; sleep 0.1; done
      addr=$(sed -n 's/^listening on //p' "$dir/out.log")
      "$loadtest_bin" --url "ws://$addr" --boards "$boards" --clients "$clients" --rate "$rate" \
        --warmup 3 --duration "$secs" --server-pid "$pid" \
        --json "$results/$name-$which-$round.json" > "$results/$name-$which-$round.txt" || true
      kill -TERM "$pid"; wait "$pid" || true
      rm -rf "$dir"
    done
  done
done
python3 - "$results" <<'PY'
import json, os, statistics, sys
d = sys.argv[1]
rows = {}
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"):
        continue
    name, which, rnd = f[:-5].rsplit("-", 2)
    r = json.load(open(os.path.join(d, f)))
    cpu = (r.get("server") or {}).get("cpu_percent_window", float("nan"))
    row = (cpu, r["fanout"]["p50_ms"], r["fanout"]["p99_ms"], r["delivery_ratio"] * 100, r["commits_per_s"])
    rows.setdefault((name, which), []).append(row)
    print(f"{name:6} {which:4} round {rnd}: server CPU {row[0]:6.1f} %  p50 {row[1]:7.3f} ms  p99 {row[2]:7.3f} ms  delivered {row[3]:6.2f} %  {row[4]:8.0f} updates/s")
for (name, which), rs in sorted(rows.items()):
    med = [statistics.median(x) for x in zip(*rs)]
    print(f"median {name:6} {which:4}: server CPU {med[0]:6.1f} %  p50 {med[1]:7.3f} ms  p99 {med[2]:7.3f} ms  delivered {med[3]:6.2f} %")
PY
