#!/usr/bin/env bash
# THE test command (README; .ci/run calls it): install the Debian packages, start the test rig
# (scripts/rig.sh: Xvfb + openbox, PulseAudio with two tones, nginx-rtmp, stunnel4 for RTMPS), build, run every test
# target serially (RK_LANES=2: in two lanes on two rigs; docs/TESTING.md, "The full run"), stop the rigs. Exits with `swift test`'s status.
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
# RK_FUZZ_WHEN_UNDER (fuzz only when the run so far took fewer minutes, default 45), RK_LANES=2 (two lanes),
# RK_SCRATCH_PATH (a SwiftPM --scratch-path), RECORDCTL / RK_TESTWINDOW (binaries to test;
# default: the ones this build produced), RK_E2E_VERBOSE=1 (print measured colours and tones).
# A failing end-to-end test keeps its files in $RK_RIG_DIR/e2e/<test>-<id>/ and prints the path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
export RK_RIG_DIR=${RK_RIG_DIR:-$ROOT/rig-run}
# (Not --disable-index-store: on Linux, `swift build --build-tests` finds the XCTest cases through
# the index store, and fails without it: "index store path does not exist".)
SCRATCH=()
[ -n "${RK_SCRATCH_PATH:-}" ] && SCRATCH=(--scratch-path "$RK_SCRATCH_PATH")

# While apt and pip install (network and disk bound: about 4 minutes on a fresh machine), the
# package dependencies' own code compiles beside them: SwiftNIO's WebSocket closure (the largest
# dependency, which the loopback web server links) needs no Debian package. Its log:
# $RK_RIG_DIR/prebuild.log; a failure there only means the build below does that work (and says why).
prebuild_pid=
if command -v swift >/dev/null 2>&1; then
  mkdir -p "$RK_RIG_DIR"
  ( exec nice -n 5 swift build "${SCRATCH[@]}" --target NIOWebSocket >"$RK_RIG_DIR/prebuild.log" 2>&1 ) &
  prebuild_pid=$!
  trap '[ -n "${prebuild_pid:-}" ] && kill "$prebuild_pid" 2>/dev/null' EXIT
fi
bash scripts/install-deps.sh
if [ -n "$prebuild_pid" ]; then
  wait "$prebuild_pid" || echo "test: the dependencies' early build failed (see $RK_RIG_DIR/prebuild.log); the build below goes on" >&2
  prebuild_pid=
fi

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

# Stop the rigs at the end only if this run started them: a rig someone is already using stays up.
# The second rig (lane B, below) lives beside the first: "$RK_RIG_DIR-b", its ports 100 above
# (the upload servers' 300 above: SRT's tests listen on 19611-19614).
LANE_B_RIG=$RK_RIG_DIR-b
lane_b_env() {
  export RK_RIG_DIR=$LANE_B_RIG RK_DISPLAY_NUM=$(( ${RK_DISPLAY_NUM:-99} + 20 ))
  export RK_RTMP_PORT=$(( ${RK_RTMP_PORT:-19350} + 100 )) RK_HTTP_PORT=$(( ${RK_HTTP_PORT:-19380} + 100 ))
  export RK_RTMPS_PORT=$(( ${RK_RTMPS_PORT:-19360} + 100 )) RK_RTMPS_SELFSIGNED_PORT=$(( ${RK_RTMPS_SELFSIGNED_PORT:-19361} + 100 ))
  export RK_RTMPS_WRONGHOST_PORT=$(( ${RK_RTMPS_WRONGHOST_PORT:-19362} + 100 )) RK_UPLOAD_PORT_BASE=$(( ${RK_UPLOAD_PORT_BASE:-19500} + 300 ))
}
started_rig=1
if bash scripts/rig.sh status >/dev/null 2>&1 8>&-; then started_rig=0; fi
started_lane_b=0
cleanup() {
  local rc=$?
  [ -n "${lane_b_pid:-}" ] && { kill "$lane_b_pid" 2>/dev/null || true; }
  [ -n "${docs_pid:-}" ] && { kill "$docs_pid" 2>/dev/null || true; }
  if [ "${RK_KEEP_RIG:-0}" = 1 ] || [ $started_rig = 0 ]; then
    echo "test: rig left running: source $RK_RIG_DIR/env; scripts/rig.sh stop" >&2
  else
    # The servers tests start on first use (S3 and tus, the Wayland session) go with the rig:
    # a run must not leave anything listening (a second run's servers could not bind).
    bash scripts/upload-servers.sh stop "$RK_RIG_DIR/uploads" 8>&- >/dev/null 2>&1 || true
    bash scripts/wayland-rig.sh stop 8>&- >/dev/null 2>&1 || true
    bash scripts/rig.sh stop 8>&- || true
  fi
  if [ $started_lane_b = 1 ] && [ "${RK_KEEP_RIG:-0}" != 1 ]; then
    ( lane_b_env
      bash scripts/upload-servers.sh stop "$RK_RIG_DIR/uploads" 8>&- >/dev/null 2>&1 || true
      bash scripts/rig.sh stop 8>&- || true )
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

# A full run: by default in one lane (`swift test`). RK_LANES=2 runs two lanes side by side
# (docs/TESTING.md, "The full run"): lane A (`swift test`) runs every suite that records in real
# time and checks what it recorded; lane B runs, at nice 10, the suites whose results do not
# depend on keeping up: the unit tests, the uploads (no recording), offline trims, the command
# line and configuration, hooks and hotkeys, metrics and the tutorial's build. Each lane has a
# rig of its own. On a slow 2-core machine lane B's work still made lane A's recordings drop
# frames, so two lanes are for quick machines only. A new suite goes to lane A until named here.
LANE_B='^([A-Za-z]+UnitTests|EndToEndTests\.(AvailabilityTests|ConfigProfileTests|ExtensionServiceTests|ExtensionTutorialTests|HookTests|HotkeyTests|MetricsTests|RigSelfTests|StopToPathTests|ThinClientTests|TrimTests|S3UploadTests|UploadErrorTests|TusAndPresignedTests))([./]|$)'
run_started=$SECONDS
swift build "${SCRATCH[@]}" --build-tests 8>&-
XCTEST="$BIN/RecordKitPackageTests.xctest"
# The test binary's suites (`Module.Suite`) that match the regex $1, as one comma-separated
# argument for running the binary directly.
suites_matching() { "$XCTEST" --list-tests 2>/dev/null | sed -n 's|/.*||p' | sort -u | grep -E "$1" | paste -sd, -; }
lane_b_log="$RK_RIG_DIR/lane-b.log"
lane_b_status=0
docs_status=0
docs_pid=
docs_log="$RK_RIG_DIR/docs.log"
if [ "${RK_LANES:-1}" = 1 ]; then
  # Every target that records (EndToEndTests, RecordKitTests) first, then the `*UnitTests`
  # targets (the fast tier: no rig, nothing real-time) beside the SDK reference's DocC build:
  # the unit tests leave about a third of the two cores idle, DocC takes one. They run the test
  # binary directly (`swift test` would hold the build directory's lock that `swift package
  # generate-documentation` waits for).
  swift test "${SCRATCH[@]}" --skip-build --skip 'UnitTests\.' 8>&- || status=$?
  unit_suites=$(suites_matching '^[A-Za-z]+UnitTests\.')
  [ -n "$unit_suites" ] || { echo "test: the test binary lists no unit test suites" >&2; exit 1; }
  bash scripts/docs.sh >"$docs_log" 2>&1 8>&- &
  docs_pid=$!
  unit_status=0
  "$XCTEST" "$unit_suites" 8>&- || unit_status=$?
  echo "test: the unit tests exited with status $unit_status" >&2
  [ "$status" = 0 ] && status=$unit_status
else
  # The suites of lane B, from the test binary's own list: one argument, comma-separated.
  suites=$(suites_matching "$LANE_B")
  [ -n "$suites" ] || { echo "test: no suites matched lane B's pattern" >&2; exit 1; }
  if ! ( lane_b_env; bash scripts/rig.sh status >/dev/null 2>&1 8>&- ); then started_lane_b=1; fi
  ( lane_b_env; bash scripts/rig.sh start 8>&- )
  (
    lane_b_env
    # shellcheck disable=SC1091
    source "$RK_RIG_DIR/env"
    exec nice -n 10 "$XCTEST" "$suites"
  ) >"$lane_b_log" 2>&1 8>&- &
  lane_b_pid=$!
  echo "test: lane B ($(tr ',' '\n' <<<"$suites" | wc -l) suites) runs beside lane A on $LANE_B_RIG; its log: $lane_b_log" >&2
  swift test "${SCRATCH[@]}" --skip-build --skip "$LANE_B" 8>&- || status=$?
  echo "test: lane A (swift test) exited with status $status" >&2
  wait "$lane_b_pid" || lane_b_status=$?
  lane_b_pid=
  cat "$lane_b_log"
  echo "test: lane B exited with status $lane_b_status" >&2
fi
[ "$status" = 0 ] && status=$lane_b_status
echo "test: the tests took $(( (SECONDS - run_started) / 60 )) min" >&2

# The SDK reference (DocC; a broken symbol link fails it): started beside the unit tests above
# (one lane), or now.
if [ -n "$docs_pid" ]; then
  wait "$docs_pid" || docs_status=$?
  docs_pid=
  cat "$docs_log" >&2
else
  bash scripts/docs.sh 8>&- || docs_status=$?
fi
echo "test: scripts/docs.sh exited with status $docs_status" >&2
[ "$status" = 0 ] && status=$docs_status

# The protocol parsers under libFuzzer, 30 s each (docs/TESTING.md, "Fuzzing"): a build of its own
# with the sanitizer (about 3 minutes on a quick 2-core machine, over 15 on a slow one). It runs
# when the whole run so far took less than RK_FUZZ_WHEN_UNDER minutes (default 45), so that CI
# on a slow machine stays within its time; scripts/fuzz.sh runs it alone. RK_FUZZ_SECONDS=0 skips it.
# The seeds are replayed through the plain build's targets first, in seconds, on every run.
fuzz_status=0
for name in control extension web; do
  "$BIN/rk-fuzz-$name" Tests/Fuzz/corpus/$name/* >&2 || { fuzz_status=1; echo "test: rk-fuzz-$name fails on its seeds" >&2; }
done
if [ "${RK_FUZZ_SECONDS:-30}" = 0 ]; then
  echo "test: fuzzing skipped (RK_FUZZ_SECONDS=0)" >&2
elif (( SECONDS / 60 < ${RK_FUZZ_WHEN_UNDER:-45} )); then
  bash scripts/fuzz.sh 8>&- || fuzz_status=$?
  echo "test: scripts/fuzz.sh exited with status $fuzz_status" >&2
else
  echo "test: fuzzing skipped: this run has taken $(( SECONDS / 60 )) min (RK_FUZZ_WHEN_UNDER=${RK_FUZZ_WHEN_UNDER:-45}); run scripts/fuzz.sh on its own" >&2
fi
[ "$status" = 0 ] && status=$fuzz_status
echo "test: the whole run took $(( SECONDS / 60 )) min" >&2
exit "$status"
