#!/usr/bin/env bash
# The camera overlay's per-frame costs alone (docs/BENCHMARKS.md, "Camera picture-in-picture"):
# the bilinear scaling of 595395e, the separable Swift scaling of ba0ddf9 and today's
# CameraPictureScaler (C loops, CColorConversion), and the composite's copies before and after
# drawing in place. Builds scripts/camera-compositing-cost.swift with swiftc -O; no rig.
#
#   scripts/camera-compositing-cost.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d /tmp/rk-camera-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The scaling as it was (ScaledCameraPicture.scaled before CameraPictureScaler), renamed.
git show 595395e:Sources/RecordKitCapture/Camera/ScaledCameraPicture.swift \
  | sed 's/package //g; s/ScaledCameraPicture/OldScaledPicture/g' >"$work/Old.swift"
# The separable scaler in Swift, before its loops went to C, renamed.
git show ba0ddf9:Sources/RecordKitCapture/Camera/CameraPictureScaler.swift \
  | sed 's/CameraPictureScaler/SwiftPictureScaler/g' >"$work/SwiftScaler.swift"
cp Sources/RecordKitCapture/Camera/CameraPictureScaler.swift "$work/"
cp scripts/camera-compositing-cost.swift "$work/main.swift"  # top-level code lives in main.swift
# CColorConversion as SwiftPM builds it (clang -O2), with a module map of its own.
mkdir -p "$work/include"
cp Sources/CColorConversion/include/*.h "$work/include/"
printf 'module CColorConversion {\n  header "bilinear_scaling.h"\n  export *\n}\n' >"$work/include/module.modulemap"
clang -O2 -c -I "$work/include" Sources/CColorConversion/bilinear_scaling.c -o "$work/bilinear_scaling.o"
swiftc -O -module-name CameraCost -I "$work/include" "$work/Old.swift" "$work/SwiftScaler.swift" \
  "$work/CameraPictureScaler.swift" "$work/main.swift" "$work/bilinear_scaling.o" -o "$work/cost"
"$work/cost"
