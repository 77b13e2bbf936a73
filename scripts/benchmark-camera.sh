#!/usr/bin/env bash
# What camera picture-in-picture costs on a 1080p30 X11 recording (docs/BENCHMARKS.md, "Camera
# picture-in-picture"): the same `recordctl record` with and without `--camera`, A B A B, each
# ROUND seconds, constant frame rate, no audio. The screen is `rk-testwindow --size 1920x1080
# --counter 30` full screen on the X rig (its top half changes 30 times a second, so every frame
# slot is a changed picture with or without the camera); the camera is the Wayland rig's test
# camera (scripts/wayland-rig.sh camera-start: 320x240 BGRx at 30 fps, restarted before each
# camera run), read from the rig's PipeWire directly, drawn 480x360 bottom-right.
#
#   scripts/benchmark-camera.sh [cpu|perf] [ROUND] [ROUNDS]      (defaults: cpu 12 2)
#
# cpu:  CPU = user + sys of recordctl and its engine (GNU time); prints one line per run (CPU,
#       frames in the file) and the ratio with / without.
# perf: one run of each under `perf record -g` (999 Hz); prints where the CPU went, by thread
#       (comm) and library (dso), and the top symbols, for each; the data stays in $OUT.
# RK_BASELINE_BIN=DIR (cpu only): each round also records both with the recordctl in DIR (e.g. a
# copy of an older release build), and the ratio of each build is printed: before and after a
# change, measured under the same load.
# Needs a release build (swift build -c release), root (the Wayland rig), perf for `perf`.
# Runs are under flock /work/coord/bench.lock when that directory exists. Uses the rigs of
# RK_RIG_DIR (started if they are not running; left running).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
MODE=${1:-cpu}
ROUND=${2:-12}
ROUNDS=${3:-2}
case $MODE in cpu|perf) ;; *) echo "usage: $0 [cpu|perf] [ROUND] [ROUNDS]" >&2; exit 64 ;; esac
export RK_RIG_DIR=${RK_RIG_DIR:-$ROOT/rig-run}
BIN=${RK_RELEASE_BIN:-$ROOT/.build/release}
[ -x "$BIN/recordctl" ] || { echo "benchmark-camera: no release build in $BIN (swift build -c release)" >&2; exit 1; }
scripts/rig.sh start >/dev/null
bash scripts/wayland-rig.sh start >/dev/null
eval "$(scripts/rig.sh env)"
WL=$(sed -n 's/^RK_WAYLAND_DIR=//p' "$RK_RIG_DIR/wayland.env")
OUT=$RK_RIG_DIR/bench-camera
rm -rf "$OUT"
mkdir -p "$OUT"

"$BIN/rk-testwindow" --size 1920x1080 --position 0,0 --counter 30 >"$OUT/testwindow.log" 2>&1 &
WINDOW_PID=$!
trap 'kill "$WINDOW_PID" 2>/dev/null; bash scripts/wayland-rig.sh camera-stop >/dev/null 2>&1; true' EXIT
for _ in $(seq 50); do grep -q '^counter start' "$OUT/testwindow.log" && break; sleep 0.2; done

LOCK=()
[ -d /work/coord ] && LOCK=(flock -o /work/coord/bench.lock)
CAMERA=(env PIPEWIRE_REMOTE="$WL/run/pipewire-0" RECORDKIT_CAMERA_PORTAL=0)

# record NAME [WRAPPER...] -- [recordctl options...]   (with the recordctl in $RECORDER_BIN)
RECORDER_BIN=$BIN
record() {
  local name=$1; shift
  local wrap=()
  while [ "$1" != -- ]; do wrap+=("$1"); shift; done
  shift
  "${LOCK[@]}" "${wrap[@]}" "$RECORDER_BIN/recordctl" record --duration "$ROUND" --frame-rate-mode constant \
    --no-mic --no-app-audio --output "$OUT/$name.mp4" "$@" >"$OUT/$name.log" 2>&1
}
# What the recorder says at the end ("N frames captured, M dropped, K late ticks"): a run whose
# encoder dropped frames (a loaded machine) measured less work, not less cost.
summary() { sed -n 's/^recordctl: recorded [^:]*: //p' "$1" | tail -1; }
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1" 2>/dev/null || echo 0; }

echo "benchmark-camera: $MODE, ${ROUND} s each, load: $(uptime | sed 's/.*load average: //')"
if [ "$MODE" = perf ]; then
  command -v perf >/dev/null || { echo "benchmark-camera: perf is not installed" >&2; exit 1; }
  for name in plain camera; do
    args=()
    if [ "$name" = camera ]; then
      bash scripts/wayland-rig.sh camera-start >/dev/null
      args=(--camera rk-test-camera)
    fi
    record "perf-$name" perf record -F 999 -g -o "$OUT/$name.perf" "${CAMERA[@]}" -- "${args[@]}"
    # sed, not head: perf report must not die of SIGPIPE under pipefail.
    echo "== $name: $(frames "$OUT/perf-$name.mp4") frames ($(summary "$OUT/perf-$name.log")), $(perf report -i "$OUT/$name.perf" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): //p' | sed -n 1p | awk '{printf "%.2f", $1 / 1e9}') CPU-s sampled (cpu-clock)"
    for keys in comm dso comm,dso comm,sym; do
      echo "-- by $keys (percent of all samples)"
      perf report -i "$OUT/$name.perf" --no-children --sort "$keys" --stdio 2>/dev/null | grep -E '^ +[0-9]' | sed -n '1,20p'
    done
  done
  exit 0
fi

BUILDS=(new)
[ -n "${RK_BASELINE_BIN:-}" ] && BUILDS+=(baseline)
declare -A SUM
for ((i = 1; i <= ROUNDS; i++)); do
  for build in "${BUILDS[@]}"; do
    RECORDER_BIN=$BIN
    [ "$build" = baseline ] && RECORDER_BIN=$RK_BASELINE_BIN
    for name in plain camera; do
      args=()
      if [ "$name" = camera ]; then
        bash scripts/wayland-rig.sh camera-start >/dev/null
        args=(--camera rk-test-camera)
      fi
      run=$build-$name-$i
      record "$run" /usr/bin/time -f "cpu %U %S" -o "$OUT/$run.time" "${CAMERA[@]}" -- "${args[@]}"
      read -r _ u s <"$OUT/$run.time"
      c=$(echo "$u + $s" | bc -l)
      printf '  %-8s %-6s round %d: cpu %5.2f s (%s user + %s sys), frames %s; %s\n' "$build" "$name" "$i" "$c" "$u" "$s" \
        "$(frames "$OUT/$run.mp4")" "$(summary "$OUT/$run.log")"
      SUM[$build-$name]=$(echo "${SUM[$build-$name]:-0} + $c" | bc -l)
    done
  done
done
for build in "${BUILDS[@]}"; do
  printf 'benchmark-camera: %s build (%s): with/without the camera CPU %.3fx (%.2f s / %.2f s)\n' "$build" \
    "$([ "$build" = baseline ] && echo "$RK_BASELINE_BIN" || echo "$BIN")" \
    "$(echo "${SUM[$build-camera]} / ${SUM[$build-plain]}" | bc -l)" "${SUM[$build-camera]}" "${SUM[$build-plain]}"
done
echo "benchmark-camera: load after: $(uptime | sed 's/.*load average: //')"
