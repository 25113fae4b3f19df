#!/usr/bin/env bash
# How long fsync takes on the disk the durable store writes to: appends 16 KiB and fsyncs, in a
# loop, for SECONDS (default 20), in DIR (default a temp dir), and prints percentiles plus every
# fsync slower than 20 ms with the second it happened. A durable commit cannot be acknowledged
# before its fsync returns, so these stalls bound the durable server's fan-out latency whatever
# its load.
#
#   loadtest/scripts/fsync-probe.sh [SECONDS] [DIR]
set -euo pipefail
secs=${1:-20}
if [ -n "${2:-}" ]; then
  dir=$2
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
python3 - "$secs" "$dir" <<'PY'
import os, sys, time
secs, d = float(sys.argv[1]), sys.argv[2]
path = os.path.join(d, "fsync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
buf, off, lat, slow = b"x" * 16384, 0, [], []
t0 = time.time()
while time.time() - t0 < secs:
    os.pwrite(fd, buf, off)
    off = (off + len(buf)) % (4 << 20)
    t = time.perf_counter()
    os.fsync(fd)
    ms = (time.perf_counter() - t) * 1000
    lat.append(ms)
    if ms > 20:
        slow.append(f"{time.time() - t0:.1f}s:{ms:.0f}ms")
os.close(fd)
os.unlink(path)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))]
print(f"fsync of 16 KiB, {len(lat)} in {secs:.0f} s: p50 {q(.5):.2f} p99 {q(.99):.2f} "
      f"p99.9 {q(.999):.2f} max {lat[-1]:.1f} ms; slower than 20 ms: {len(slow)}"
      + (f" ({', '.join(slow[:20])})" if slow else ""))
PY
