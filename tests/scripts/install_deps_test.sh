#!/usr/bin/env bash
# Tests of scripts/install-deps and ./msptk-dev that need no network and no root: fake
# dpkg-query, apt-get, id, sudo and make on a PATH that holds nothing else, so each case sees
# exactly the commands a bare Debian would have (bash, apt) and what the case adds.
# Usage: install_deps_test.sh PROJECT_DIR
set -uo pipefail
project=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $case_name: $*"; failures=$((failures + 1)); }

# new_case NAME UID INSTALLED... : a fresh fake bin folder where the given packages are installed.
new_case() {
  case_name=$1 uid=$2
  shift 2
  bin=$work/$case_name/bin log=$work/$case_name/log
  mkdir -p "$bin"
  : >"$log"
  ln -s "$(command -v bash)" "$bin/bash"
  ln -s "$(command -v env)" "$bin/env"
  printf '%s\n' "$@" >"$work/$case_name/installed"
  cat >"$bin/dpkg-query" <<FAKE
#!$(command -v bash)
pkg=\${@: -1}
while read -r p; do [ "\$p" = "\$pkg" ] && { printf 'install ok installed'; exit 0; }; done <"$work/$case_name/installed"
echo "dpkg-query: no packages found matching \$pkg" >&2
exit 1
FAKE
  cat >"$bin/apt-get" <<FAKE
#!$(command -v bash)
echo "apt-get \$*" >>"$log"
FAKE
  cat >"$bin/id" <<FAKE
#!$(command -v bash)
echo $uid
FAKE
  cat >"$bin/make" <<FAKE
#!$(command -v bash)
echo "make \$*" >>"$log"
FAKE
  chmod +x "$bin"/*
}

add_sudo() {
  cat >"$bin/sudo" <<FAKE
#!$(command -v bash)
echo "sudo \$1" >>"$log"
exec "\$@"
FAKE
  chmod +x "$bin/sudo"
}

run() { PATH=$bin "$(command -v bash)" "$@" >"$work/$case_name/out" 2>"$work/$case_name/err"; }

all=(libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev libcli11-dev libfmt-dev
     libgtest-dev cmake g++ make pkg-config)
# The packages install-deps asks for, from its own --list, so the test follows the list.
mapfile -t listed < <("$project/scripts/install-deps" --list | cut -d' ' -f1)
[ ${#listed[@]} -ge ${#all[@]} ] || { echo "FAIL: could not read the package list"; exit 1; }

# 1. Everything installed: nothing is run.
new_case all-installed 1000 "${listed[@]}"
run "$project/scripts/install-deps" || fail "exit $?"
[ -s "$log" ] && fail "ran: $(cat "$log")"

# 2. Root, make and cmake missing: one update, one install of exactly those two.
rest=()
for p in "${listed[@]}"; do [ "$p" = make ] || [ "$p" = cmake ] || rest+=("$p"); done
new_case root-missing 0 "${rest[@]}"
run "$project/scripts/install-deps" || fail "exit $?"
[ "$(grep -c '^apt-get update' "$log")" = 1 ] || fail "apt-get update not run once: $(cat "$log")"
grep -q '^apt-get install .* cmake make$' "$log" || fail "install line: $(cat "$log")"
[ "$(grep -c '^apt-get install' "$log")" = 1 ] || fail "more than one install: $(cat "$log")"

# 3. Not root, no sudo: names the packages and the command, exits 1, installs nothing.
new_case no-sudo 1000 "${rest[@]}"
run "$project/scripts/install-deps"
rc=$?
[ "$rc" = 1 ] || fail "exit $rc, want 1"
grep -q 'missing Debian packages: cmake make' "$work/$case_name/err" || fail "stderr: $(cat "$work/$case_name/err")"
grep -q 'apt-get update && apt-get install -y --no-install-recommends cmake make' "$work/$case_name/err" ||
  fail "no install command in: $(cat "$work/$case_name/err")"
grep -qi 'sudo: .*not found' "$work/$case_name/err" && fail "raw sudo error"
[ -s "$log" ] && fail "ran: $(cat "$log")"

# 4. Not root, with sudo: installs through sudo.
new_case with-sudo 1000 "${rest[@]}"
add_sudo
run "$project/scripts/install-deps" || fail "exit $?"
[ "$(grep -c '^sudo apt-get' "$log")" = 2 ] || fail "not through sudo: $(cat "$log")"

# 5. The entry script on a machine without make: installs make first, then runs the target.
new_case entry-test 0 "${rest[@]}"
mv "$bin/make" "$work/$case_name/make"   # what installing the package `make` puts on PATH
cat >"$bin/apt-get" <<FAKE
#!$(command -v bash)
echo "apt-get \$*" >>"$log"
if [ "\$1" = install ]; then
  $(command -v cp) "$work/$case_name/make" "$bin/make"
  printf '%s\\n' make cmake >>"$work/$case_name/installed"
fi
FAKE
chmod +x "$bin/apt-get"
run "$project/msptk-dev" test -k || fail "exit $?: $(cat "$work/$case_name/err")"
grep -q '^apt-get install .* cmake make$' "$log" || fail "make not installed first: $(cat "$log")"
[ "$(tail -n 1 "$log")" = "make test -k" ] || fail "make not run last: $(cat "$log")"

# 6. The entry script's usage errors.
new_case entry-usage 0 "${listed[@]}"
run "$project/msptk-dev"
[ $? = 2 ] || fail "no target: want exit 2"
grep -q 'usage: ./msptk-dev demo|test' "$work/$case_name/err" || fail "usage: $(cat "$work/$case_name/err")"
run "$project/msptk-dev" --bogus
[ $? = 2 ] || fail "unknown option: want exit 2"

# 7. --list prints the table and installs nothing; --fuzz adds the fuzz tool chain; a bad option is exit 2.
new_case list 0
run "$project/scripts/install-deps" --list || fail "--list: exit $?"
[ -s "$log" ] && fail "--list ran: $(cat "$log")"
grep -qx 'file file' "$work/$case_name/out" || fail "--list lacks 'file file': $(cat "$work/$case_name/out")"
grep -q '^clang ' "$work/$case_name/out" && fail "--list without --fuzz lists clang"
run "$project/scripts/install-deps" --list --fuzz || fail "--list --fuzz: exit $?"
grep -qx 'clang clang++' "$work/$case_name/out" || fail "--list --fuzz lacks clang"
run "$project/scripts/install-deps" --bogus
[ $? = 2 ] || fail "unknown option: want exit 2"
grep -q "unknown option '--bogus'" "$work/$case_name/err" || fail "stderr: $(cat "$work/$case_name/err")"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "install-deps and msptk-dev: all cases passed"
