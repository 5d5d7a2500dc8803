#!/usr/bin/env bash
# Runs each named fuzz target, as `cargo build` made it (a plain libFuzzer
# binary in target/debug, without coverage instrumentation or sanitizers),
# for SECONDS each from an empty corpus, two at a time: a smoke test that the
# targets still build, start and hold their assertions on the inputs libFuzzer
# mutates. Coverage-guided runs with Address Sanitizer are `cargo fuzz run`,
# as docs/fuzzing.md says.
#
# Usage: fuzz-smoke.sh SECONDS TARGET...
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=$1
shift
out=target/fuzz-smoke
rm -rf "$out"
mkdir -p "$out"

run_one() {
    local target=$1
    mkdir -p "$out/$target/corpus"
    # A fixed seed, so that a failure can be replayed; its input lands in
    # target/fuzz-smoke/<target>/.
    if "target/debug/$target" -seed=1 -max_total_time="$seconds" -rss_limit_mb=2048 \
        -artifact_prefix="$out/$target/" "$out/$target/corpus" >"$out/$target.log" 2>&1; then
        echo "fuzz: $target: $(grep -Eo '#[0-9]+' "$out/$target.log" | tail -1 | tr -d '#') inputs in ${seconds} s, no failure"
    else
        tail -n 40 "$out/$target.log" >&2
        echo "fuzz: $target FAILED (log: $out/$target.log; the input: $out/$target/)" >&2
        return 1
    fi
}

failed=0
set -- "$@"
while [ $# -gt 0 ]; do
    pids=()
    for _ in 1 2; do
        [ $# -gt 0 ] || break
        run_one "$1" &
        pids+=($!)
        shift
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || failed=1
    done
done
exit "$failed"
