#!/usr/bin/env bash
# What camera picture-in-picture costs on a 1080p30 X11 recording (docs/BENCHMARKS.md, "Camera
# picture-in-picture"): the same `recordctl record` with and without `--camera`, A B A B, each
# ROUND seconds, constant frame rate, no audio. The screen is `rk-testwindow --size 1920x1080
# --counter 30` full screen on the X rig (its top half changes 30 times a second, so every frame
# slot is a changed picture with or without the camera); the camera is the Wayland rig's test
# camera (scripts/wayland-rig.sh camera-start: 320x240 BGRx at 30 fps, restarted before each
# camera run), read from the rig's PipeWire directly, drawn 480x360 bottom-right.
#
#   scripts/benchmark-camera.sh [cpu|perf|stat|x264] [ROUND] [ROUNDS]      (defaults: cpu 12 2)
#
# cpu:  CPU = user + sys of recordctl and its engine (GNU time); prints one line per run (CPU,
#       frames in the file) and the ratio with / without.
# perf: one run of each under `perf record -g` (999 Hz); prints where the CPU went, by thread
#       (comm) and library (dso), and the top symbols, for each; the data stays in $OUT.
# stat: A B A B under `perf stat` (recordctl and its engine): page faults and task clock (CPU
#       time), per recorded frame too, and instructions where the CPU lets perf count them (not
#       in this project's VMs), with the ratios with / without. Page faults and instructions
#       hardly move with the machine's load; CPU time does.
# x264: what x264 alone spends on the corner's content: one recording without the camera, then
#       FFmpeg's libx264 with the recorder's settings (veryfast, CRF 23, a key frame every 2 s)
#       encodes its pictures as they are and with the camera's moving picture overlaid at
#       1414,694 (the clip RK_CAMERA_CONTENT plays), A B A B; CPU of the encoder process.
# RK_CAMERA_CONTENT=1 (cpu only): each round also records, without the camera, the screen with
# the camera's picture already in the corner: ffplay at 1414,694 playing 480x360 of the same
# GStreamer pattern scaled the same way (3 s of it, lossless, looped), whose bottom-right sixth
# is noise that changes in every picture as the camera's does. That is what x264 spends on the
# corner's content, apart from what the camera costs to read and draw.
# RK_CAMERA_PATTERN="videotestsrc properties" (default "pattern=smpte"): the camera's content, for
# the camera runs and for the corner's clip (e.g. "pattern=smpte75 horizontal-speed=4": bars
# that move in every picture, without the smpte pattern's white-noise patch).
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
case $MODE in cpu|perf|stat|x264) ;; *) echo "usage: $0 [cpu|perf|stat|x264] [ROUND] [ROUNDS]" >&2; exit 64 ;; esac
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
VARIANTS=(plain camera)
[ -n "${RK_CAMERA_CONTENT:-}" ] && VARIANTS=(plain content camera)
if [ -n "${RK_CAMERA_CONTENT:-}" ] || [ "$MODE" = x264 ]; then
  read -ra PATTERN <<<"${RK_CAMERA_PATTERN:-pattern=smpte}"
  gst-launch-1.0 -q videotestsrc "${PATTERN[@]}" num-buffers=90 ! video/x-raw,format=BGRx,width=320,height=240,framerate=30/1 \
    ! videoscale ! video/x-raw,width=480,height=360 ! fdsink fd=1 \
    | ffmpeg -v error -f rawvideo -pix_fmt bgr0 -s 480x360 -r 30 -i - -c:v ffv1 -y "$OUT/corner.mkv"
fi
CORNER_PID=
show_corner() {
  ffplay -v error -an -loop 0 -noborder -left 1414 -top 694 -x 480 -y 360 "$OUT/corner.mkv" >/dev/null 2>&1 &
  CORNER_PID=$!
  sleep 2
}
hide_corner() { kill "$CORNER_PID" 2>/dev/null; wait "$CORNER_PID" 2>/dev/null || true; CORNER_PID=; }
trap 'kill "$WINDOW_PID" $CORNER_PID 2>/dev/null; bash scripts/wayland-rig.sh camera-stop >/dev/null 2>&1; true' EXIT
if [ "$MODE" = x264 ]; then
  record x264-base -- >/dev/null
  echo "== the recording without the camera: $(summary "$OUT/x264-base.log")"
  encode() {  # NAME: raw pictures on stdin, prints the encoder's CPU seconds
    /usr/bin/time -f "%U %S" -o "$OUT/$1.time" ffmpeg -v error -f rawvideo -s 1920x1080 -pix_fmt yuv420p -r 30 -i - \
      -c:v libx264 -preset veryfast -crf 23 -g 60 -x264-params sync-lookahead=0 -f mp4 -y "$OUT/$1.mp4"
    awk '{print $1 + $2}' "$OUT/$1.time"
  }
  sum_plain=0; sum_corner=0
  for ((i = 1; i <= ROUNDS; i++)); do
    p=$(ffmpeg -v error -i "$OUT/x264-base.mp4" -f rawvideo -pix_fmt yuv420p - | "${LOCK[@]}" bash -c "$(declare -f encode); OUT=$OUT encode x264-plain-$i")
    c=$(ffmpeg -v error -i "$OUT/x264-base.mp4" -stream_loop -1 -i "$OUT/corner.mkv" \
      -filter_complex "[1]format=yuv420p[c];[0][c]overlay=1414:694:shortest=1" -f rawvideo -pix_fmt yuv420p - \
      | "${LOCK[@]}" bash -c "$(declare -f encode); OUT=$OUT encode x264-corner-$i")
    echo "  round $i: x264 CPU $p s as recorded, $c s with the camera's picture in the corner"
    sum_plain=$(echo "$sum_plain + $p" | bc -l); sum_corner=$(echo "$sum_corner + $c" | bc -l)
  done
  printf 'benchmark-camera: x264 on the corner'"'"'s content: %.3fx (%.2f s / %.2f s); load after: %s\n' \
    "$(echo "$sum_corner / $sum_plain" | bc -l)" "$sum_corner" "$sum_plain" "$(uptime | sed 's/.*load average: //')"
  exit 0
fi

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

if [ "$MODE" = stat ]; then
  command -v perf >/dev/null || { echo "benchmark-camera: perf is not installed" >&2; exit 1; }
  # counter NAME FILE: the value perf stat -x, wrote for NAME, or nothing when it was not counted
  # (a VM without hardware counters has no instructions).
  counter() { awk -F, -v e="$1" '$3 ~ "^" e && $1 ~ /^[0-9.]+$/ {print $1}' "$2"; }
  declare -A TOTAL
  for ((i = 1; i <= ROUNDS; i++)); do
    for name in plain camera; do
      args=()
      if [ "$name" = camera ]; then
        bash scripts/wayland-rig.sh camera-start >/dev/null
        args=(--camera rk-test-camera)
      fi
      run=stat-$name-$i
      record "$run" perf stat -x, -e instructions,page-faults,task-clock -o "$OUT/$run.stat" "${CAMERA[@]}" -- "${args[@]}"
      n=$(frames "$OUT/$run.mp4")
      ins=$(counter instructions "$OUT/$run.stat")
      pf=$(counter page-faults "$OUT/$run.stat")
      ms=$(counter task-clock "$OUT/$run.stat")
      printf '  %-6s round %d: %s frames; %s page faults (%.0f a frame), task clock %.2f s; instructions %s; %s\n' \
        "$name" "$i" "$n" "$pf" "$(echo "$pf / $n" | bc -l)" "$(echo "$ms / 1000" | bc -l)" \
        "$([ -n "$ins" ] && printf '%.3f G (%.2f M a frame)' "$(echo "$ins / 1e9" | bc -l)" "$(echo "$ins / $n / 1e6" | bc -l)" || echo 'not counted here')" \
        "$(summary "$OUT/$run.log")"
      [ -n "$ins" ] && TOTAL[$name-ins]=$(echo "${TOTAL[$name-ins]:-0} + $ins" | bc -l)
      TOTAL[$name-pf]=$(echo "${TOTAL[$name-pf]:-0} + $pf" | bc -l)
      TOTAL[$name-ms]=$(echo "${TOTAL[$name-ms]:-0} + $ms" | bc -l)
      TOTAL[$name-n]=$(echo "${TOTAL[$name-n]:-0} + $n" | bc -l)
    done
  done
  printf 'benchmark-camera: with/without the camera: task clock %.3fx (%.2f / %.2f s), page faults %.0f / %.0f a frame' \
    "$(echo "${TOTAL[camera-ms]} / ${TOTAL[plain-ms]}" | bc -l)" "$(echo "${TOTAL[camera-ms]} / 1000" | bc -l)" \
    "$(echo "${TOTAL[plain-ms]} / 1000" | bc -l)" \
    "$(echo "${TOTAL[camera-pf]} / ${TOTAL[camera-n]}" | bc -l)" "$(echo "${TOTAL[plain-pf]} / ${TOTAL[plain-n]}" | bc -l)"
  if [ -n "${TOTAL[camera-ins]:-}" ] && [ -n "${TOTAL[plain-ins]:-}" ]; then
    printf ', instructions %.3fx (%.2f / %.2f M a frame)' "$(echo "${TOTAL[camera-ins]} / ${TOTAL[plain-ins]}" | bc -l)" \
      "$(echo "${TOTAL[camera-ins]} / ${TOTAL[camera-n]} / 1e6" | bc -l)" "$(echo "${TOTAL[plain-ins]} / ${TOTAL[plain-n]} / 1e6" | bc -l)"
  fi
  echo
  echo "benchmark-camera: load after: $(uptime | sed 's/.*load average: //')"
  exit 0
fi

BUILDS=(new)
[ -n "${RK_BASELINE_BIN:-}" ] && BUILDS+=(baseline)
declare -A SUM
for ((i = 1; i <= ROUNDS; i++)); do
  for build in "${BUILDS[@]}"; do
    RECORDER_BIN=$BIN
    [ "$build" = baseline ] && RECORDER_BIN=$RK_BASELINE_BIN
    for name in "${VARIANTS[@]}"; do
      args=()
      if [ "$name" = camera ]; then
        bash scripts/wayland-rig.sh camera-start >/dev/null
        args=(--camera rk-test-camera)
      fi
      [ "$name" = content ] && show_corner
      run=$build-$name-$i
      record "$run" /usr/bin/time -f "cpu %U %S" -o "$OUT/$run.time" "${CAMERA[@]}" -- "${args[@]}"
      read -r _ u s <"$OUT/$run.time"
      c=$(echo "$u + $s" | bc -l)
      printf '  %-8s %-6s round %d: cpu %5.2f s (%s user + %s sys), frames %s; %s\n' "$build" "$name" "$i" "$c" "$u" "$s" \
        "$(frames "$OUT/$run.mp4")" "$(summary "$OUT/$run.log")"
      SUM[$build-$name]=$(echo "${SUM[$build-$name]:-0} + $c" | bc -l)
      [ "$name" = content ] && hide_corner
    done
  done
done
for build in "${BUILDS[@]}"; do
  printf 'benchmark-camera: %s build (%s): with/without the camera CPU %.3fx (%.2f s / %.2f s)\n' "$build" \
    "$([ "$build" = baseline ] && echo "$RK_BASELINE_BIN" || echo "$BIN")" \
    "$(echo "${SUM[$build-camera]} / ${SUM[$build-plain]}" | bc -l)" "${SUM[$build-camera]}" "${SUM[$build-plain]}"
  [ -n "${SUM[$build-content]:-}" ] && printf 'benchmark-camera: %s build: the corner'"'"'s content without the camera %.3fx; the camera over that content %.3fx\n' \
    "$build" "$(echo "${SUM[$build-content]} / ${SUM[$build-plain]}" | bc -l)" "$(echo "${SUM[$build-camera]} / ${SUM[$build-content]}" | bc -l)"
done
echo "benchmark-camera: load after: $(uptime | sed 's/.*load average: //')"
