#!/usr/bin/env bash
# Measures saving a replay: with the rig running (scripts/rig.sh start), a private
# recordd records the whole screen (a moving 960x540 testsrc2 window on it) into a file with a
# 30 s replay buffer; after 35 s it saves three 30 s clips 3 s apart and prints each save's wall
# time, the capture's dropped frames and the file handler's dropped video before and after, and
# the number of video encoders. Run it through `flock -o /tmp/rk-heavy.lock`.
#   scripts/measure-replay-save.sh [RECORDCTL]     (default .build/debug/recordctl)
set -euo pipefail
cd "$(dirname "$0")/.."
source "${RK_RIG_DIR:-$PWD/rig-run}/env"
R=${1:-.build/debug/recordctl}
WORK=$(mktemp -d /tmp/rk-replay-save.XXXXXX)
mkdir -m 700 "$WORK/rt"
export XDG_RUNTIME_DIR=$WORK/rt XDG_STATE_HOME=$WORK/state
SDL_VIDEODRIVER=x11 SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
  ffplay -hide_banner -loglevel error -f lavfi -i testsrc2=size=960x540:rate=30 -an -noborder -left 0 -top 0 </dev/null >/dev/null 2>&1 &
content=$!
trap 'kill $content 2>/dev/null; "$R" service stop >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
sleep 2
"$R" start --frame-rate-mode constant --output "$WORK/file.mp4" --replay-buffer 30 >/dev/null
sleep 35
counters() {
  "$R" status --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["recording"]["recorder"]
h = {x["name"]: x for x in r["handlers"]}
b = h["replay-buffer"]["serviceInfo"]
print("capture dropped %s, file dropped %s, buffer %s s / %s bytes, video encoders %s" % (
      r["capture"]["framesDropped"], h["file"]["statistics"]["droppedVideo"], b["bufferSeconds"], b["bufferBytes"], r["videoEncoders"]))'
}
echo "before: $(counters)"
for i in 1 2 3; do
  s=$(date +%s.%N); "$R" save-replay --seconds 30 --output "$WORK/clip$i.mp4" >/dev/null; e=$(date +%s.%N)
  echo "save $i: $(python3 -c "print(round($e - $s, 3))") s"
  sleep 3
done
echo "after:  $(counters)"
"$R" stop >/dev/null
ffprobe -v error -select_streams v:0 -count_packets -show_entries stream=width,height,nb_read_packets:format=duration -of compact "$WORK/clip1.mp4"
