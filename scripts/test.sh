#!/usr/bin/env bash
# THE test command (README; .ci/run calls it): install the Debian packages, start the test rig
# (scripts/rig.sh: Xvfb + openbox, PulseAudio with two tones, nginx-rtmp), build, run every test
# target serially (the tests share one display), stop the rig. Exits with `swift test`'s status.
#
#   scripts/test.sh                      everything
#   scripts/test.sh --filter RecordToFileTests     extra arguments go to `swift test`
#
# Environment: RK_RIG_DIR (default ./rig-run), RK_KEEP_RIG=1 (leave the rig running afterwards),
# RK_SCRATCH_PATH (a SwiftPM --scratch-path), RECORDCTL / RK_TESTWINDOW (binaries to test;
# default: the ones this build produced), RK_E2E_VERBOSE=1 (print measured colours and tones).
# A failing end-to-end test keeps its files in $RK_RIG_DIR/e2e/<test>-<id>/ and prints the path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export RK_RIG_DIR=${RK_RIG_DIR:-$ROOT/rig-run}
SCRATCH=()
[ -n "${RK_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$RK_SCRATCH_PATH")

bash scripts/install-deps.sh

cleanup() {
  local rc=$?
  if [ "${RK_KEEP_RIG:-0}" = 1 ]; then
    echo "test: rig left running (RK_KEEP_RIG=1): source $RK_RIG_DIR/env; scripts/rig.sh stop" >&2
  else
    bash scripts/rig.sh stop || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/rig.sh start
# shellcheck disable=SC1091
source "$RK_RIG_DIR/env"
rm -rf -- "$RK_RIG_DIR/e2e"

swift build "${SCRATCH[@]}"
BIN=$(swift build "${SCRATCH[@]}" --show-bin-path)
export RECORDCTL=${RECORDCTL:-$BIN/recordctl}
export RK_TESTWINDOW=${RK_TESTWINDOW:-$BIN/rk-testwindow}

status=0
swift test "${SCRATCH[@]}" "$@" || status=$?
echo "test: swift test exited with status $status" >&2
exit "$status"
