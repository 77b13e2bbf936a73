#!/usr/bin/env bash
# Builds and runs scripts/color-conversion-cost.c: libswscale against CColorConversion for one
# 1920x1080 BGR0 -> yuv420p BT.709 picture (thread CPU time, 3 rounds). Needs clang (the Swift
# toolchain's: it vectorizes the converter as SwiftPM's release build does) and libswscale-dev.
#   usage: bash scripts/color-conversion-cost.sh [PICTURES=300]
# Results: docs/ENCODING.md "Colour conversion without libswscale".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${TMPDIR:-/tmp}/color-conversion-cost; mkdir -p "$dir"
clang -O2 -Wall -Wextra -I "$here/../Sources/CColorConversion/include" -o "$dir/color-conversion-cost" \
    "$here/color-conversion-cost.c" "$here/../Sources/CColorConversion/color_conversion.c" \
    $(pkg-config --cflags --libs libswscale libavutil)
"$dir/color-conversion-cost" "${1:-300}"
