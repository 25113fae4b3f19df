#!/usr/bin/env bash
# Server memory with clients that never read (docs/BENCHMARKS.md, "Slow readers"): for each
# server binary given, starts it on 127.0.0.1:0 with a fresh data dir (durable SQLite), runs one
# board x CLIENTS clients at RATE updates/s each with SLOW clients that join and never read,
# and prints the server's RSS before, at its peak and 3 s after the slow readers are gone.
#
#   loadtest/scripts/slow-readers.sh [SERVER_BIN ...]   (default: $CARGO_TARGET_DIR/release/server)
#
# Environment: CLIENTS=20 RATE=500 SLOW=5 SECS=30 LOADTEST_BIN=... SERVER_FLAGS=...
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
loadtest_bin=${LOADTEST_BIN:-$target/release/loadtest}
clients=${CLIENTS:-20}
rate=${RATE:-500}
slow=${SLOW:-5}
secs=${SECS:-30}
server_flags=${SERVER_FLAGS:---rate-limit-per-sec 100000 --rate-burst 200000}
# The measured servers run without access control (`--auth off`, through its environment twin so
# that a binary from before it ignores it): what is measured is the board core, as before.
export BOARD_AUTH=${BOARD_AUTH:-off}
[ $# -gt 0 ] || set -- "$target/release/server"
for bin in "$@"; do
  dir=$(mktemp -d)
  # shellcheck disable=SC2086
  "$bin" --listen 127.0.0.1:0 --data-dir "$dir" $server_flags > "$dir/out.log" 2> "$dir/err.log" &
  pid=$!
  for _ in $(seq 100); do grep -q '^listening on' "$dir/out.log" && break; sleep 0.1; done
  addr=$(sed -n 's/^listening on //p' "$dir/out.log")
  echo "== $bin (pid $pid, $addr)"
  echo "+ $loadtest_bin --url ws://$addr --boards 1 --clients $clients --rate $rate --slow-readers $slow --warmup 3 --duration $secs --server-pid $pid"
  "$loadtest_bin" --url "ws://$addr" --boards 1 --clients "$clients" --rate "$rate" \
    --slow-readers "$slow" --warmup 3 --duration "$secs" --server-pid "$pid" || true
  kill -TERM "$pid"; wait "$pid" || true
  rm -rf "$dir"
done
