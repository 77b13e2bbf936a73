#!/usr/bin/env bash
# Pictures the portal's stream brought against frames captured (docs/BENCHMARKS.md, "Every
# picture the compositor sent"): the service records `weston-presentation-shm` (a window that
# redraws at the output's refresh) through the portal on the Wayland rig for SECONDS, then
# `status --json` gives the pictures received (damage.grabs) and the frames captured that are not
# repeats; prints both, the difference, the drops and the frames in the file.
#
#   scripts/count-portal-pictures.sh [BINDIR] [SECONDS] [variable|constant]   (defaults: .build/release 10 variable)
#
# Needs root (the rig's user runs the recorder) and a build in BINDIR (recordctl, recordctl-engine, recordd).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=$(realpath "${1:-.build/release}")
SECONDS_=${2:-10}
MODE=${3:-variable}
export RK_RIG_DIR=${RK_RIG_DIR:-$PWD/rig-run}
[ -x "$BIN/recordctl" ] || { echo "count-portal-pictures: no recordctl in $BIN" >&2; exit 1; }
bash scripts/wayland-rig.sh start >/dev/null
WL=$(sed -n 's/^RK_WAYLAND_DIR=//p' "$RK_RIG_DIR/wayland.env")
RIG_UID=$(sed -n 's/^RK_WAYLAND_UID=//p' "$RK_RIG_DIR/wayland.env")
OUT=$WL/count-pictures
rm -rf "$OUT"; mkdir -p "$OUT/bin"
cp "$BIN/recordctl" "$BIN/recordctl-engine" "$BIN/recordd" "$OUT/bin/"
chown -R "$RIG_UID" "$OUT"
run() { timeout 120 bash scripts/wayland-rig.sh run "$@"; }
setsid bash scripts/wayland-rig.sh run weston-presentation-shm >/dev/null 2>&1 &
MOTION=$!
trap 'kill -- "-$MOTION" 2>/dev/null; run "$OUT/bin/recordctl" service stop >/dev/null 2>&1; true' EXIT
sleep 1
run "$OUT/bin/recordctl" start --source portal --no-mic --no-app-audio --frame-rate-mode "$MODE" --output "$OUT/x.mp4" >/dev/null
sleep "$SECONDS_"
run "$OUT/bin/recordctl" status --json >"$OUT/status.json"
run "$OUT/bin/recordctl" stop >/dev/null
frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$OUT/x.mp4")
python3 - "$OUT/status.json" "$frames" "$BIN" "$MODE" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["recording"]["recorder"]
c = r["capture"]; d = c["damage"]
pictures = c["framesCaptured"] - d["repeatedFrames"]
print(f"{sys.argv[3]} ({sys.argv[4]}), {r['recordedSeconds']:.1f} s: {d['grabs']} pictures received, {pictures} captured "
      f"(+{d['repeatedFrames']} repeats), {d['grabs'] - pictures} missing, {c['framesDropped']} dropped, "
      f"{c['lateTicks']} late ticks; {sys.argv[2]} frames in the file")
PY
