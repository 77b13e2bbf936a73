#!/usr/bin/env bash
# Builds the SDK reference with DocC (the swift-docc-plugin; `docc` ships with the toolchain):
# every public type of RecordKit (the module an extension author imports) and of
# RecordKitExtensionSDK, with the articles in Sources/RecordKit/RecordKit.docc. Warnings (a
# broken symbol link, a missing reference) fail the build. Output: .build/docs/<Module>.doccarchive.
#
#   scripts/docs.sh                 build both archives
#   RK_DOCS_OUT=dir scripts/docs.sh put them elsewhere
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT=${RK_DOCS_OUT:-$PWD/.build/docs}
SCRATCH=()
[ -n "${RK_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$RK_SCRATCH_PATH")
mkdir -p "$OUT"
for target in RecordKit RecordKitExtensionSDK; do
  echo "docs: $target"
  swift package "${SCRATCH[@]}" --allow-writing-to-directory "$OUT" generate-documentation \
    --target "$target" --output-path "$OUT/$target.doccarchive" --warnings-as-errors
  test -f "$OUT/$target.doccarchive/metadata.json" || { echo "docs: no archive for $target" >&2; exit 1; }
done
echo "docs: written to $OUT"
