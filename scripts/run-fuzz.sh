#!/usr/bin/env bash
# Runs each libFuzzer target of `make fuzz`:
#   scripts/run-fuzz.sh BUILD_DIR RUNS SECONDS TARGET...
# Each target starts from fuzz/corpus/<target> and fuzz/regressions/<target>,
# grows a working corpus in BUILD_DIR/corpus/<target> (never committed), and
# writes any crashing input to BUILD_DIR/crashes/<target>/. Exits non-zero
# when any target found a crash, a leak or a sanitizer report.
set -uo pipefail
cd "$(dirname "$0")/.."
build=$1 runs=$2 seconds=$3
shift 3
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$PWD/cmake/ubsan.supp
failed=()
for target in "$@"; do
  work=$build/corpus/$target crashes=$build/crashes/$target
  mkdir -p "$work" "$crashes" "fuzz/regressions/$target"
  echo "fuzz: $target ($runs runs, at most ${seconds}s)"
  if ! "$build/bin/fuzz_$target" -runs="$runs" -max_total_time="$seconds" -max_len=65536 \
       -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/" \
       "$work" "fuzz/corpus/$target" "fuzz/regressions/$target" > "$build/$target.log" 2>&1; then
    failed+=("$target")
    echo "fuzz: $target FAILED; the input is in $crashes/, the report in $build/$target.log"
    tail -40 "$build/$target.log"
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/$target.log" \
      | sed "s/^/fuzz: $target /"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failures in ${failed[*]}; keep each input in fuzz/regressions/<target>/ once fixed"
  exit 1
fi
echo "fuzz: no crash, leak or sanitizer report"
