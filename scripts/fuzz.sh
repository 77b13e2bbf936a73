#!/usr/bin/env bash
# Fuzzes the protocol parsers with libFuzzer for a bounded time each (docs/TESTING.md, "Fuzzing"):
#   rk-fuzz-control    the control protocol (recordd's request lines: parser, id recovery,
#                      URL checks, secret masking; links RecordKitControl only)
#   rk-fuzz-extension  the extension protocol (datagrams between host and extension)
#   rk-fuzz-web        the loopback web server: HTTP request path, WebSocket
#                      handshake and framing, Range (RecordKitWeb on NIO's EmbeddedChannel)
# Builds them with `-sanitize=fuzzer` in a scratch dir of their own (.build-fuzz), starting from
# the seed corpus in Tests/Fuzz/corpus/<name>. A crash, a trap or a failed precondition fails
# the script and leaves the input in $RK_FUZZ_DIR (default .build-fuzz/findings/<name>/),
# reproducible with the plain build: .build/debug/rk-fuzz-<name> <file>.
#
#   scripts/fuzz.sh                 30 s each
#   RK_FUZZ_SECONDS=300 scripts/fuzz.sh
# scripts/test.sh calls it (RK_FUZZ_SECONDS=0 skips it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
SECONDS_EACH=${RK_FUZZ_SECONDS:-30}
[ "$SECONDS_EACH" = 0 ] && { echo "fuzz: skipped (RK_FUZZ_SECONDS=0)"; exit 0; }
SCRATCH=${RK_FUZZ_SCRATCH:-$PWD/.build-fuzz}
FINDINGS=${RK_FUZZ_DIR:-$SCRATCH/findings}
FLAGS=(-c debug --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DRK_FUZZ)

status=0
for name in control extension web; do
  product=rk-fuzz-$name
  echo "fuzz: building $product with libFuzzer" >&2
  nice -n 5 swift build "${FLAGS[@]}" --product "$product" >&2
  bin=$(swift build "${FLAGS[@]}" --show-bin-path)/$product
  work=$(mktemp -d)
  cp Tests/Fuzz/corpus/$name/* "$work"/
  mkdir -p "$FINDINGS/$name"
  echo "fuzz: $product for $SECONDS_EACH s" >&2
  # -max_len: a request line is at most 64 KiB, a datagram too; 4 KiB reaches every branch.
  if "$bin" "$work" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$FINDINGS/$name/" -print_final_stats=1 2> "$FINDINGS/$name/log.txt"; then
    grep -E "stat::number_of_executed_units|cov:" "$FINDINGS/$name/log.txt" | tail -2 >&2 || true
    echo "fuzz: $product: no finding" >&2
  else
    status=1
    tail -40 "$FINDINGS/$name/log.txt" >&2
    echo "fuzz: $product FOUND A FAILURE; inputs in $FINDINGS/$name/" >&2
  fi
  rm -rf "$work"
done
exit $status
