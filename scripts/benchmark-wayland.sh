#!/usr/bin/env bash
# RecordKit's portal source against GStreamer on the same portal node (docs/BENCHMARKS.md,
# "Wayland"): `recordctl record --source portal` and `pipewiresrc ! videoconvert ! x264enc ! mp4mux`,
# alternating A B A B, each ROUND seconds, on the Wayland rig (scripts/wayland-rig.sh), with the
# same x264 settings (veryfast, quality 23, key frame every 2 s, look-ahead and 3 B-frames: what RecordKit's
# variable frame rate uses). CPU = user + sys of the recorder process (GNU time), frames = decoded
# frames in the file. Prints one line per run and the ratios.
#
#   scripts/benchmark-wayland.sh [moving|still|camera] [ROUND] [ROUNDS]     (defaults: moving 15 2)
#
# moving: GStreamer's videotestsrc (SMPTE bars scrolling) drawn full screen through waylandsink
# (1920x1080 at 30 fps, every pixel changing); still: the rig's solid background.
# camera: the moving screen recorded by recordctl twice per round, without and with the camera
# picture-in-picture (`--camera`: the rig's test camera, 320x240 at 30 fps, into a 480x360
# corner), A B A B; prints the CPU with the camera over the CPU without.
# Needs a release build (swift build -c release) and root (the rig's user runs the recorders).
# CPU is measured under flock /work/coord/bench.lock when that file's directory exists.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
MODE=${1:-moving}
ROUND=${2:-15}
ROUNDS=${3:-2}
export RK_RIG_DIR=${RK_RIG_DIR:-$ROOT/rig-run}
BIN=${RK_RELEASE_BIN:-$ROOT/.build/release}
[ -x "$BIN/recordctl" ] || { echo "benchmark-wayland: no release build in $BIN (swift build -c release)" >&2; exit 1; }
bash scripts/wayland-rig.sh start >/dev/null
WL=$(sed -n 's/^RK_WAYLAND_DIR=//p' "$RK_RIG_DIR/wayland.env")
OUT=$WL/bench
rm -rf "$OUT"
mkdir -p "$OUT/bin"
cp "$BIN/recordctl" "$BIN/recordctl-engine" "$OUT/bin/"
cp scripts/wayland/portal-cast.py "$OUT/bin/"
chown -R "$(sed -n 's/^RK_WAYLAND_UID=//p' "$RK_RIG_DIR/wayland.env")" "$OUT"
run() { bash scripts/wayland-rig.sh run "$@"; }

CONTENT_PID=
if [ "$MODE" = moving ] || [ "$MODE" = camera ]; then
  # Its own session: the trap ends the whole group (the user's gst-launch under setpriv too).
  setsid bash scripts/wayland-rig.sh run gst-launch-1.0 -q videotestsrc pattern=smpte horizontal-speed=8 is-live=true \
    ! video/x-raw,width=1920,height=1080,framerate=30/1 ! waylandsink >/dev/null 2>&1 &
  CONTENT_PID=$!
  sleep 3
fi
trap '[ -n "$CONTENT_PID" ] && kill -- "-$CONTENT_PID" 2>/dev/null; true' EXIT

LOCK=()
[ -d /work/coord ] && LOCK=(flock -o /work/coord/bench.lock)

ours() {
  local name=$1; shift
  "${LOCK[@]}" bash scripts/wayland-rig.sh run /usr/bin/time -f "cpu %U %S" "$OUT/bin/recordctl" record --source portal \
    --duration "$ROUND" --no-mic --no-app-audio --output "$OUT/ours-$name.mp4" "$@" 2>&1 | grep '^cpu' | tail -1
}
gstreamer() {
  # -e: SIGINT becomes end-of-stream, so the MP4 is finalized. On a still screen the compositor
  # sends one frame; pipewiresrc's keepalive-time resends the last one every half second, as
  # RecordKit repeats it, so GStreamer writes a playable file of the same length too.
  local keepalive=
  [ "$MODE" = still ] && keepalive="keepalive-time=500"
  "${LOCK[@]}" bash scripts/wayland-rig.sh run /usr/bin/python3 "$OUT/bin/portal-cast.py" \
    /usr/bin/time -f "cpu %U %S" timeout -s INT "$ROUND" gst-launch-1.0 -q -e pipewiresrc fd={fd} path={node} $keepalive \
    ! video/x-raw,format=BGRx ! videoconvert ! video/x-raw,format=I420 \
    ! x264enc speed-preset=veryfast pass=qual quantizer=23 key-int-max=60 bframes=3 \
    ! mp4mux ! filesink location="$OUT/gst-$1.mp4" 2>&1 | grep '^cpu' | tail -1
}
# A file GStreamer could not finalize (no frame reached its muxer) counts 0 frames.
frames() { local n; n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1" 2>/dev/null) || n=0; [[ $n =~ ^[0-9]+$ ]] || n=0; echo "$n"; }

echo "benchmark-wayland: $MODE, $ROUNDS x ${ROUND} s each, load: $(uptime | sed 's/.*load average: //')"
if [ "$MODE" = camera ]; then
  bash scripts/wayland-rig.sh camera-start >/dev/null
  trap '[ -n "$CONTENT_PID" ] && kill -- "-$CONTENT_PID" 2>/dev/null; bash scripts/wayland-rig.sh camera-stop >/dev/null 2>&1; true' EXIT
  sum_plain=0; sum_cam=0; f_plain=0; f_cam=0
  for ((i = 1; i <= ROUNDS; i++)); do
    read -r _ u s < <(ours "plain-$i")
    c=$(echo "$u + $s" | bc -l); n=$(frames "$OUT/ours-plain-$i.mp4")
    echo "  recordctl           round $i: cpu ${c} s, frames $n"
    sum_plain=$(echo "$sum_plain + $c" | bc -l); f_plain=$((f_plain + n))
    read -r _ u s < <(ours "camera-$i" --camera rk-test-camera)
    c=$(echo "$u + $s" | bc -l); n=$(frames "$OUT/ours-camera-$i.mp4")
    echo "  recordctl --camera  round $i: cpu ${c} s, frames $n"
    sum_cam=$(echo "$sum_cam + $c" | bc -l); f_cam=$((f_cam + n))
  done
  printf 'benchmark-wayland: camera: with/without the camera CPU %.3fx; frames %d vs %d; load after: %s\n' \
    "$(echo "$sum_cam / $sum_plain" | bc -l)" "$f_cam" "$f_plain" "$(uptime | sed 's/.*load average: //')"
  exit 0
fi
sum_ours=0; sum_gst=0; f_ours=0; f_gst=0
for ((i = 1; i <= ROUNDS; i++)); do
  read -r _ u s < <(ours "$i")
  c=$(echo "$u + $s" | bc -l); n=$(frames "$OUT/ours-$i.mp4")
  echo "  recordctl  round $i: cpu ${c} s, frames $n"
  sum_ours=$(echo "$sum_ours + $c" | bc -l); f_ours=$((f_ours + n))
  read -r _ u s < <(gstreamer "$i")
  c=$(echo "$u + $s" | bc -l); n=$(frames "$OUT/gst-$i.mp4")
  echo "  gstreamer  round $i: cpu ${c} s, frames $n"
  sum_gst=$(echo "$sum_gst + $c" | bc -l); f_gst=$((f_gst + n))
done
printf 'benchmark-wayland: %s: recordctl/gstreamer CPU %.2fx; frames %d vs %d; load after: %s\n' "$MODE" \
  "$(echo "$sum_ours / $sum_gst" | bc -l)" "$f_ours" "$f_gst" "$(uptime | sed 's/.*load average: //')"
