#!/usr/bin/env bash
# THE test command (README; .ci/run calls it): install the Debian packages, start the test rig
# (scripts/rig.sh: Xvfb + openbox, PulseAudio with two tones, nginx-rtmp, stunnel4 for RTMPS), build, run every test
# target serially (the tests share one display), stop the rig. Exits with `swift test`'s status.
#
#   scripts/test.sh                      everything
#   scripts/test.sh --filter RecordToFileTests     extra arguments go to `swift test`
#   scripts/test.sh --fast               the fast tier: every `*UnitTests` target, no rig, no
#                                        servers (no display, audio or network server needed)
#
# The rig is stopped at the end unless it was already running before (someone else's) or
# RK_KEEP_RIG=1. Concurrent runs on one rig dir wait for each other (a lock in the rig dir).
# Environment: RK_RIG_DIR (default ./rig-run), RK_KEEP_RIG=1 (leave the rig running afterwards),
# RK_FUZZ_SECONDS (scripts/fuzz.sh, run after a full test run: seconds per parser, default 30, 0 skips),
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

# The fast tier (docs/TESTING.md): the per-module unit test targets, which need no display, audio
# server or network server, so no rig is started and nothing waits for the rig's lock.
if [ "${1:-}" = --fast ]; then
  shift
  swift build "${SCRATCH[@]}" --build-tests
  status=0
  swift test "${SCRATCH[@]}" --skip-build --filter 'UnitTests\.' "$@" || status=$?
  echo "test: fast tier: swift test exited with status $status" >&2
  exit "$status"
fi

# One test run per rig at a time: the tests share its display, and windows of two runs would
# cover each other. (fd 8 is closed for the rig's servers, so they never hold this lock.)
mkdir -p "$RK_RIG_DIR"
exec 8>"$RK_RIG_DIR/.test-lock"
if ! flock -n 8; then
  echo "test: another test run is using the rig in $RK_RIG_DIR; waiting (up to 1 h)" >&2
  flock -w 3600 8 || { echo "test: gave up waiting for $RK_RIG_DIR/.test-lock" >&2; exit 1; }
fi

# Stop the rig at the end only if this run started it: a rig someone is already using stays up.
started_rig=1
if bash scripts/rig.sh status >/dev/null 2>&1 8>&-; then started_rig=0; fi
cleanup() {
  local rc=$?
  if [ "${RK_KEEP_RIG:-0}" = 1 ] || [ $started_rig = 0 ]; then
    echo "test: rig left running: source $RK_RIG_DIR/env; scripts/rig.sh stop" >&2
  else
    # The servers tests start on first use (S3 and tus, the Wayland session) go with the rig:
    # a run must not leave anything listening (a second run's servers could not bind).
    bash scripts/upload-servers.sh stop "$RK_RIG_DIR/uploads" 8>&- >/dev/null 2>&1 || true
    bash scripts/wayland-rig.sh stop 8>&- >/dev/null 2>&1 || true
    bash scripts/rig.sh stop 8>&- || true
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/rig.sh start 8>&-
# shellcheck disable=SC1091
source "$RK_RIG_DIR/env"
# Work dirs kept by failing tests of earlier runs: drop those older than a day.
[ -d "$RK_RIG_DIR/e2e" ] && find "$RK_RIG_DIR/e2e" -mindepth 1 -maxdepth 1 -mtime +0 -exec rm -rf {} + 2>/dev/null || true

# fd 8 (the lock) stays with this script: a daemon started by a test must not inherit it.
swift build "${SCRATCH[@]}" 8>&-
BIN=$(swift build "${SCRATCH[@]}" --show-bin-path 8>&-)
export RECORDCTL=${RECORDCTL:-$BIN/recordctl}
export RK_TESTWINDOW=${RK_TESTWINDOW:-$BIN/rk-testwindow}

status=0
if [ $# != 0 ]; then
  swift test "${SCRATCH[@]}" "$@" 8>&- || status=$?
  echo "test: swift test exited with status $status" >&2
  exit "$status"
fi

# A full run. The upload tests that record nothing (S3, tus and the upload errors: about 2.5
# minutes, most of it waiting on servers, back-off and a 30 s outage) run after the others, beside
# the fuzzers, so they never share the CPU with a test that records. Their log is printed after.
LANE=(EndToEndTests.S3UploadTests EndToEndTests.UploadErrorTests EndToEndTests.TusAndPresignedTests)
swift test "${SCRATCH[@]}" --skip 'EndToEndTests\.(S3UploadTests|UploadErrorTests|TusAndPresignedTests)/' 8>&- || status=$?
echo "test: swift test exited with status $status" >&2
lane_log="$RK_RIG_DIR/upload-tests.log"
(
  lane_status=0
  for test_case in "${LANE[@]}"; do "$BIN/RecordKitPackageTests.xctest" "$test_case" || lane_status=1; done
  exit "$lane_status"
) >"$lane_log" 2>&1 8>&- &
lane_pid=$!
# The protocol parsers under libFuzzer, 30 s each (docs/TESTING.md, "Fuzzing"). RK_FUZZ_SECONDS=0 skips it.
fuzz_status=0
bash scripts/fuzz.sh 8>&- || fuzz_status=$?
echo "test: scripts/fuzz.sh exited with status $fuzz_status" >&2
lane_status=0
wait "$lane_pid" || lane_status=$?
cat "$lane_log"
echo "test: the upload tests (${LANE[*]}) exited with status $lane_status" >&2
[ "$status" = 0 ] && status=$lane_status
[ "$status" = 0 ] && status=$fuzz_status
# The SDK reference (DocC; a broken symbol link fails it).
docs_status=0
bash scripts/docs.sh 8>&- || docs_status=$?
echo "test: scripts/docs.sh exited with status $docs_status" >&2
[ "$status" = 0 ] && status=$docs_status
exit "$status"
