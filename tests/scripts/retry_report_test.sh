#!/usr/bin/env bash
# scripts/ctest-retry-report (what `make test` and .ci/run run ctest through): a fake ctest on
# PATH prints what ctest prints with --repeat until-pass:2, and the report must name exactly the
# tests that failed once and then passed, keep ctest's output and exit status.
# Usage: retry_report_test.sh PROJECT_DIR
set -uo pipefail
project=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

fake() {  # fake OUTPUT_FILE EXIT
  cat >"$work/ctest" <<FAKE
#!/usr/bin/env bash
echo "args: \$*"
cat "$1"
exit $2
FAKE
  chmod +x "$work/ctest"
}

cat >"$work/flaky.out" <<'OUT'
Test project /b
    Start 1: e2e/Replay.Flaky
    Start 2: golden/show/a
1/3 Test #1: e2e/Replay.Flaky ................***Failed    0.05 sec
    Start 1: e2e/Replay.Flaky
2/3 Test #2: golden/show/a ...................   Passed    0.01 sec
    Start 3: unit/Slow.Case
    Test #1: e2e/Replay.Flaky ................   Passed    0.01 sec
3/3 Test #3: unit/Slow.Case ..................***Timeout 120.01 sec
    Start 3: unit/Slow.Case
    Test #3: unit/Slow.Case ..................   Passed    0.02 sec
100% tests passed, 0 tests failed out of 3
OUT
fake "$work/flaky.out" 0
out=$(cd "$work" && PATH=$work:$PATH "$project/scripts/ctest-retry-report" -j 2 --repeat until-pass:2)
rc=$?
[ "$rc" = 0 ] || fail "exit $rc, want ctest's 0"
grep -q '^args: -j 2 --repeat until-pass:2$' <<<"$out" || fail "arguments not passed on: $out"
grep -q '^100% tests passed' <<<"$out" || fail "ctest's output not kept"
grep -q '^passed on retry: 2 test(s)' <<<"$out" || fail "no count of 2: $out"
grep -q '^  e2e/Replay.Flaky (first run: Failed)$' <<<"$out" || fail "flaky test not named: $out"
grep -q '^  unit/Slow.Case (first run: Timeout)$' <<<"$out" || fail "timed-out test not named: $out"
grep -q 'golden/show/a' <<<"$(sed -n '/^passed on retry/,$p' <<<"$out")" && fail "a test that passed first time is listed"

cat >"$work/clean.out" <<'OUT'
1/2 Test #1: a ....   Passed    0.05 sec
2/2 Test #2: b ....***Failed    0.05 sec
    Test #2: b ....***Failed    0.05 sec
50% tests passed, 1 tests failed out of 2
OUT
fake "$work/clean.out" 8
out=$(cd "$work" && PATH=$work:$PATH "$project/scripts/ctest-retry-report")
rc=$?
[ "$rc" = 8 ] || fail "exit $rc, want ctest's 8"
[ "$(tail -n 1 <<<"$out")" = "passed on retry: none" ] || fail "a test failing twice is no retry: $out"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "ctest-retry-report: all cases passed"
