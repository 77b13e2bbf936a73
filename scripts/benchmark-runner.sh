#!/usr/bin/env bash
# What handing one encoded packet to a live stream costs the thread that releases it: the
# pipeline's HandlerRunner with the real RTMP handler, streaming to the rig's nginx-rtmp
# (Sources/rk-runner-bench; docs/BENCHMARKS.md, "Handing packets to a live stream").
#
#   scripts/benchmark-runner.sh [--rounds 4] [--packets 500000] [--consumer rtmp|queue] [--no-build] [--bin PATH]...
#
# Builds rk-runner-bench in release (unless --no-build), starts the rig if it is not running
# (stopped again at the end), and runs ROUNDS rounds, each streaming PACKETS packets under a
# fresh stream key; prints each round's JSON line and, per binary, the median nanoseconds of
# the releasing thread's CPU per packet and packets per CPU-second. With several --bin the
# rounds alternate between them (A B A B ...), for a before/after ratio from one run. The
# server's recordings of these streams are removed afterwards. `--consumer queue` replaces the RTMP
# handler by a bounded queue drained by a thread (no FFmpeg, no network; no rig needed): the
# runner's own share of the cost, which the network's noise hides.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS=4 PACKETS=500000 BUILD=1 CONSUMER=rtmp
BINS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --packets) PACKETS=$2; shift 2 ;;
    --consumer) CONSUMER=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --bin) BINS+=("$2"); shift 2 ;;
    *) echo "benchmark-runner: unknown argument $1 (see the top of this script)" >&2; exit 64 ;;
  esac
done
if [ ${#BINS[@]} -eq 0 ]; then
  [ $BUILD = 1 ] && swift build -c release --product rk-runner-bench >&2
  BINS=("$(swift build -c release --show-bin-path)/rk-runner-bench")
fi
export RK_RIG_DIR=${RK_RIG_DIR:-$PWD/rig-run}
started=0
RK_RTMP_URL=unused RK_RTMP_REC_DIR=/nonexistent
if [ "$CONSUMER" = rtmp ]; then
  if ! bash scripts/rig.sh status >/dev/null 2>&1; then bash scripts/rig.sh start >&2; started=1; fi
  # shellcheck disable=SC1091
  source "$RK_RIG_DIR/env"
fi
KEY=testkey-runner-bench-$$
cleanup() {
  rm -f "$RK_RTMP_REC_DIR/$KEY"-*.flv 2>/dev/null || true
  if [ $started = 1 ]; then bash scripts/rig.sh stop >&2 || true; fi
}
trap cleanup EXIT
OUT=$(mktemp)
for ((round = 0; round < ROUNDS; round++)); do
  for i in "${!BINS[@]}"; do
    line=$(timeout 300 "${BINS[$i]}" --url "$RK_RTMP_URL/$KEY-$round-$i" --packets "$PACKETS" --consumer "$CONSUMER" 2>/dev/null)
    echo "$i $line" | tee -a "$OUT"
    rm -f "$RK_RTMP_REC_DIR/$KEY-$round-$i"-*.flv
  done
done
python3 - "$OUT" "${BINS[@]}" <<'PY'
import json, statistics, sys
rows = [l.split(" ", 1) for l in open(sys.argv[1]) if l.strip()]
for i, path in enumerate(sys.argv[2:]):
    runs = [json.loads(r) for k, r in rows if int(k) == i]
    ns = statistics.median(r["nanosecondsPerPacket"] for r in runs)
    print(f"{path} ({runs[0]['consumer']}): median {ns:.0f} ns of the releasing thread's CPU per packet "
          f"({1e9 / ns:,.0f} packets per CPU-second) over {len(runs)} rounds of {runs[0]['packets']} packets; "
          f"delivered {sum(r['delivered'] for r in runs)}, dropped video {sum(r['droppedVideo'] for r in runs)}, "
          f"audio {sum(r['droppedAudio'] for r in runs)}")
PY
rm -f "$OUT"
