#!/usr/bin/env bash
# The camera overlay's per-frame costs alone (docs/BENCHMARKS.md, "Camera picture-in-picture"):
# the bilinear scaling of 595395e against CameraPictureScaler, and the composite's copies before
# and after drawing in place. Builds scripts/camera-compositing-cost.swift with swiftc -O; no rig.
#
#   scripts/camera-compositing-cost.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d /tmp/rk-camera-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The scaling as it was (ScaledCameraPicture.scaled before CameraPictureScaler), renamed.
git show 595395e:Sources/RecordKitCapture/Camera/ScaledCameraPicture.swift \
  | sed 's/package //g; s/ScaledCameraPicture/OldScaledPicture/g' >"$work/Old.swift"
cp Sources/RecordKitCapture/Camera/CameraPictureScaler.swift "$work/"
cp scripts/camera-compositing-cost.swift "$work/main.swift"  # top-level code lives in main.swift
swiftc -O -module-name CameraCost "$work/Old.swift" "$work/CameraPictureScaler.swift" \
  "$work/main.swift" -o "$work/cost"
"$work/cost"
