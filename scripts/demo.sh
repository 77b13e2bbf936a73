#!/usr/bin/env bash
# THE main-job command (README): a real 10-second recording with recordctl, then what it wrote.
#
#   scripts/demo.sh                  record the whole screen + app audio + mic for 10 s
#   scripts/demo.sh --region 640x480+0+0    extra arguments go to `recordctl record`
#
# Uses $DISPLAY when it can be opened; otherwise starts the test rig (scripts/rig.sh: a virtual
# 1920x1080 display, PulseAudio with a 440 Hz "app" tone and a 1000 Hz "mic" tone), puts a moving
# test pattern on it, records that, and stops the rig again (RK_KEEP_RIG=1 keeps it).
# Output: $RK_DEMO_DIR (default ./rig-run/demo)/demo-<timestamp>.mp4.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export RK_RIG_DIR=${RK_RIG_DIR:-$ROOT/rig-run}
OUT_DIR=${RK_DEMO_DIR:-$RK_RIG_DIR/demo}

bash scripts/install-deps.sh

started_rig=0
content_pid=
cleanup() {
  local rc=$?
  if [ -n "$content_pid" ] && kill -0 "$content_pid" 2>/dev/null; then
    kill "$content_pid" 2>/dev/null || true
  fi
  if [ $started_rig = 1 ] && [ "${RK_KEEP_RIG:-0}" != 1 ]; then bash scripts/rig.sh stop || true; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ -n "${DISPLAY:-}" ] && timeout 5 xdpyinfo >/dev/null 2>&1; then
  echo "demo: recording display $DISPLAY"
else
  echo "demo: no usable X display (DISPLAY=${DISPLAY:-unset}): using the test rig's virtual display and audio"
  bash scripts/rig.sh start
  # shellcheck disable=SC1091
  source "$RK_RIG_DIR/env"
  started_rig=1
  # Something to watch: a moving test pattern in a window (the tones are already playing).
  SDL_VIDEODRIVER=x11 SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
    ffplay -hide_banner -loglevel error -f lavfi -i testsrc2=size=960x540:rate=30 -an \
    -left 480 -top 270 -window_title rk-demo-pattern </dev/null >"$RK_RIG_DIR/logs/demo-ffplay.log" 2>&1 &
  content_pid=$!
  sleep 1
fi

echo "demo: building recordctl (release)"
swift build -c release --product recordctl
BIN=$(swift build -c release --show-bin-path)/recordctl

mkdir -p "$OUT_DIR"
out=$OUT_DIR/demo-$(date +%Y%m%d-%H%M%S).mp4
echo "demo: recordctl record --duration 10 --output $out $*"
status=0
# Bounded: if it overruns, SIGINT to recordctl only (it finalizes), SIGKILL 15 s later.
timeout --foreground -s INT -k 15 60 "$BIN" record --duration 10 --output "$out" "$@" || status=$?
if [ $status -ne 0 ]; then
  echo "demo: recordctl exited with status $status" >&2
  exit $status
fi
echo
echo "demo: wrote $out ($(du -h "$out" | cut -f1))"
ffprobe -hide_banner "$out" 2>&1 | grep -E '^ *(Input|Duration|Stream)' || true
ffprobe -v error -count_frames -show_entries stream=index,codec_type,codec_name,width,height,pix_fmt,sample_rate,channels,duration,nb_read_frames \
  -of compact=p=0 "$out" || true
