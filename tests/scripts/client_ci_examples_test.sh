#!/usr/bin/env bash
# The pytest and node:test examples of docs/client-ci.md, run as written over corpus/ with the
# project's scripted test client: every scenario a test, every one passing.
# Usage: client_ci_examples_test.sh MSPTK FAKE_CLIENT PROJECT_DIR
set -uo pipefail
msptk=$1 fake_client=$2 project=$(cd "$3" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
doc="$project/docs/client-ci.md"
# The body of the first fenced block of language $1.
block() { awk -v lang="$1" '$0 == "```" lang { inside = 1; next } inside && $0 == "```" { exit } inside { print }' "$doc"; }
export MSPTK="$msptk" MSPTK_CORPUS="$project/corpus"
export MSPTK_CLIENT="'$fake_client' --transcript {scenario}/transcript.ndjson -- sh -c {host}"
scenarios=$(find "$project/corpus" -mindepth 2 -maxdepth 2 -name manifest.json | wc -l)
ran=0 failures=0
# Debian's python3-pytest is for Debian's python3, which another python3 on PATH may hide.
python=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import pytest' 2>/dev/null; then python=$p; break; fi
done
if [ -n "$python" ]; then
  block python >"$work/test_corpus.py"
  (cd "$work" && "$python" -m pytest -q -p no:cacheprovider test_corpus.py) >"$work/pytest.log" 2>&1
  if ! grep -q "^$scenarios passed" "$work/pytest.log"; then
    echo "FAIL: pytest example: expected $scenarios passed"; cat "$work/pytest.log"; failures=$((failures + 1))
  fi
  ran=$((ran + 1))
else
  echo "skipped: python3-pytest is not installed (the pytest example)"
fi
if command -v node >/dev/null; then
  block js >"$work/corpus.test.mjs"
  (cd "$work" && node --test corpus.test.mjs) >"$work/node.log" 2>&1
  if ! grep -q "^# pass $scenarios$" "$work/node.log" || ! grep -q "^# fail 0$" "$work/node.log"; then
    echo "FAIL: node:test example: expected $scenarios passing tests"; cat "$work/node.log"; failures=$((failures + 1))
  fi
  ran=$((ran + 1))
else
  echo "skipped: node is not installed (the node:test example)"
fi
if [ "$ran" = 0 ]; then
  echo "skipped: python3-pytest is not installed"
  exit 77
fi
[ "$failures" = 0 ] && echo "client-ci examples: $ran run, $scenarios scenarios each, all passed"
exit $((failures > 0))
