#!/usr/bin/env bash
# A stand-in for `recordctl record`, built from FFmpeg, for testing the tests: it implements the
# CLI contract (options, exit codes 64/69/70/73, output path on stdout, fragmented MP4 while
# recording, exact duration and CFR at the end) so the end-to-end suite can be checked against a
# recorder known to conform, and mutated copies of it can show that each check catches what it
# should. Not used by scripts/test.sh. Usage (with the rig running and its env sourced):
#   RECORDCTL=$PWD/scripts/stand-in-recordctl.sh swift test --filter EndToEndTests
set -u
[ "${1:-}" = record ] || { echo "usage: recordctl record ..." >&2; exit 64; }; shift
out= dur= fps=30 region= win= fmt=mp4 overwrite=0 cursor=1
while [ $# -gt 0 ]; do
  case $1 in
    --output) out=$2; shift;; --duration) dur=$2; shift;; --fps) fps=$2; shift;;
    --region) region=$2; shift;; --window) win=$2; shift;; --format) fmt=$2; shift;;
    --overwrite) overwrite=1;; --no-cursor) cursor=0;; --no-mic|--no-app-audio|--require-audio) ;;
    *) echo "recordctl: unknown option $1" >&2; exit 64;;
  esac; shift
done
if [ -n "$region" ] && ! [[ $region =~ ^([0-9]+)x([0-9]+)\+([0-9]+)\+([0-9]+)$ ]]; then
  echo "recordctl: malformed --region '$region' (want WxH+X+Y)" >&2; exit 64; fi
[ -n "${DISPLAY:-}" ] || { echo "recordctl: DISPLAY is not set; cannot reach an X server" >&2; exit 69; }
xdpyinfo >/dev/null 2>&1 || { echo "recordctl: cannot open display $DISPLAY" >&2; exit 69; }
size=1920x1080 off=+0,0
if [ -n "$region" ]; then size=${BASH_REMATCH[1]}x${BASH_REMATCH[2]}; off=+${BASH_REMATCH[3]},${BASH_REMATCH[4]}; fi
if [ -n "$win" ]; then
  if [[ $win =~ ^0x ]]; then info=$(xwininfo -id "$win" 2>/dev/null); else info=$(xwininfo -name "$win" 2>/dev/null); fi
  [ -n "$info" ] || { echo "recordctl: no window '$win'" >&2; exit 69; }
  x=$(awk '/Absolute upper-left X/ {print $NF}' <<<"$info"); y=$(awk '/Absolute upper-left Y/ {print $NF}' <<<"$info")
  w=$(awk '/Width:/ {print $NF}' <<<"$info"); h=$(awk '/Height:/ {print $NF}' <<<"$info")
  size=${w}x$h off=+$x,$y
fi
[ -n "$out" ] || out=${XDG_VIDEOS_DIR:-$HOME/Videos}/recording-$(date +%s).$fmt
dir=$(dirname -- "$out")
[ -d "$dir" ] || { echo "recordctl: cannot create $out: directory $dir does not exist" >&2; exit 73; }
if [ -e "$out" ] && [ $overwrite = 0 ]; then echo "recordctl: $out already exists (use --overwrite)" >&2; exit 73; fi
if ! ( : >"$out" ) 2>/dev/null; then echo "recordctl: cannot create $out" >&2; exit 73; fi
tflag=(); [ -n "$dur" ] && tflag=(-t "$(awk -v d="$dur" 'BEGIN { print d + 0.5 }')")
if [ $fmt = mp4 ]; then mux=(-f mp4 -movflags +frag_keyframe+empty_moov+default_base_moof -frag_duration 500000 -max_interleave_delta 500000 -flush_packets 1); else mux=(-f matroska); fi
ffmpeg -nostdin -hide_banner -loglevel error -y -f x11grab -draw_mouse $cursor -framerate "$fps" -video_size "$size" -i "$DISPLAY$off" \
  -f pulse -i app_sink.monitor -f pulse -i mic_sink.monitor -map 0 -map 1 -map 2 \
  -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p -c:a aac -b:a 160k -metadata:s:a:0 title=app -metadata:s:a:1 title=mic \
  "${tflag[@]}" "${mux[@]}" "$out" || exit 70
# Finalize: exact duration and constant frame rate, like a conforming recorder.
[ $fmt = mp4 ] && ofmt=mp4 || ofmt=matroska
ffmpeg -nostdin -loglevel error -y -i "$out" -map 0 -t "${dur:-3600}" -fps_mode cfr -r "$fps" -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p \
  -c:a aac -b:a 160k -af aresample=async=1 -metadata:s:a:0 title=app -metadata:s:a:1 title=mic -f $ofmt "$out.tmp" && mv "$out.tmp" "$out"
echo "$out"
