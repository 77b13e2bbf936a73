#!/usr/bin/env bash
# Builds and runs scripts/x264-mbinfo-cost.c (what libx264 spends on a repeated 1080p picture, with
# and without X264_MBINFO_CONSTANT hints). Needs libx264-dev and ffmpeg.
#   usage: bash scripts/x264-mbinfo-cost.sh [RUNS=5] [THREADS="1 0"]   (0 = x264's default)
# Heavy: run it under `flock -o /tmp/rk-heavy.lock`. Writes about 2 GB to ${TMPDIR:-/tmp}/x264-mbinfo-cost
# (the source pictures and the square case's pictures, raw). Results: docs/ARCHITECTURE.md "Frame-rate modes".
set -euo pipefail
runs=${1:-5}; threads=${2:-"1 0"}
dir=${TMPDIR:-/tmp}/x264-mbinfo-cost; mkdir -p "$dir"
here=$(cd "$(dirname "$0")" && pwd)
cc -O2 -Wall -Wextra -o "$dir/x264-mbinfo-cost" "$here/x264-mbinfo-cost.c" $(pkg-config --cflags --libs x264)
src=$dir/testsrc2-1080p-300.yuv
[ -s "$src" ] || ffmpeg -v error -f lavfi -i testsrc2=s=1920x1080:r=30 -frames:v 300 -pix_fmt yuv420p -f rawvideo -y "$src"
for t in $threads; do "$dir/x264-mbinfo-cost" "$src" "$t" "$runs" "$dir"; done
# Each decoded stream against what it should show, frame by frame (min PSNR over the frames):
# the still cases against the source picture, the hinted square against the unhinted square.
psnr() {  # STREAM REFERENCE-INPUT-ARGS...
  local a=$1; shift
  ffmpeg -v error -i "$a" "$@" -lavfi "[0:v]setpts=N/30/TB[d];[1:v]setpts=N/30/TB[r];[d][r]psnr=stats_file=$dir/psnr.log" -f null - </dev/null
  awk '{for(i=1;i<=NF;i++) if($i ~ /^psnr_avg:/){split($i,a,":"); v=a[2]+0; if(n==0||v<m)m=v; n++}} END{printf "%d frames, min PSNR %.2f dB\n", n, m}' "$dir/psnr.log"
}
still=(-f rawvideo -pix_fmt yuv420p -video_size 1920x1080 -framerate 30 -i "$src")
for c in same same-mbi; do
  printf '%-10s %8d bytes vs source picture: ' "$c" "$(stat -c %s "$dir/$c.h264")"
  ffmpeg -v error "${still[@]}" -frames:v 1 -y "$dir/first.png"
  psnr "$dir/$c.h264" -loop 1 -framerate 30 -t 10 -i "$dir/first.png"
done
for c in square square-mbi; do
  printf '%-10s %8d bytes vs its pictures: ' "$c" "$(stat -c %s "$dir/$c.h264")"
  psnr "$dir/$c.h264" -f rawvideo -pix_fmt yuv420p -video_size 1920x1080 -framerate 30 -i "$dir/square.yuv"
done
