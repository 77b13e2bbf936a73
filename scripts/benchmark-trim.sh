#!/usr/bin/env bash
# How long `recordctl trim` (lossless: re-encodes only to the next key frame) takes against a full
# re-encode of the same span with FFmpeg, on a 60 s 1080p30 movie with two AAC tracks.
#
#   flock -o /tmp/rk-heavy.lock bash scripts/benchmark-trim.sh [MOVIE]
#
# MOVIE defaults to one made here with RecordKit's encoder settings (libx264 veryfast CRF 23,
# a key frame every 2 s, B-frames; testsrc2 moving content; app and mic tones). Cuts 10.5 s to
# 50.0 s (both mid-GOP). Prints wall-clock and CPU seconds of each, and the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/rk-bench-trim.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=${1:-}
if [ -z "$src" ]; then
  src=$work/source.mp4
  ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=1920x1080:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 \
    -f lavfi -i sine=frequency=880:sample_rate=48000 -t 60 -map 0 -map 1 -map 2 -pix_fmt yuv420p \
    -c:v libx264 -preset veryfast -crf 23 -g 60 -keyint_min 60 -sc_threshold 0 -c:a aac -b:a 128k "$src"
fi
swift build --scratch-path .build -c release --product recordctl >/dev/null
swift build --scratch-path .build -c release --product recordctl-engine >/dev/null  # trim runs in it
recordctl=$(swift build --scratch-path .build -c release --show-bin-path)/recordctl
measure() {  # label, command...: prints "label wall cpu"
  local label=$1; shift
  /usr/bin/time -f "$label %e %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
  awk '{printf "%s wall %.2f s cpu %.2f s\n", $1, $2, $3 + $4}' "$work/time"
}
echo "source: $src ($(du -h "$src" | cut -f1))"
t=$(measure trim "$recordctl" trim "$src" --start 10.5 --end 50 --output "$work/trim.mp4")
f=$(measure reencode ffmpeg -nostdin -v error -ss 10.5 -to 50 -i "$src" -map 0 -c:v libx264 -preset veryfast -crf 23 -g 60 \
    -c:a copy "$work/full.mp4")
echo "$t"; echo "$f"
errors=$(ffmpeg -nostdin -v error -i "$work/trim.mp4" -map 0 -f null - 2>&1 | wc -l)
echo "trimmed file: $(ffprobe -v error -select_streams v:0 -show_entries stream=duration,nb_frames -of csv=p=0 "$work/trim.mp4"), decode errors: $errors"
echo "$t $f" | awk '{printf "ratio trim/re-encode: wall %.3f, cpu %.3f\n", $3/$10, $6/$13}'
