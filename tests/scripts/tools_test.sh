#!/usr/bin/env bash
# Every external command the build, the tests, the make targets and .ci/run look up is installed
# by scripts/install-deps, or comes with a bare Debian (debootstrap --variant=minbase: the
# Essential and required packages), so `./msptk-dev test` on a fresh machine never fails for a
# tool the README's steps did not install.
#
# 1. The commands looked up are collected from the sources themselves:
#    - shell (tests/**/*.sh, the golden and consumer runners, .ci/run, Makefile, msptk-dev,
#      scripts/, fuzz/run-fuzzers, bench/compare.sh): `command -v NAME`, and
#      `for tool in A B ...; do command -v "$tool"` loops;
#    - C++ tests: `resolve_program("NAME")` and the browser names of find_chromium;
#    - CMake: `find_program(VAR NAME)`;
#    - plus the commands those tools run in turn (INDIRECT below: CPack's DEB generator runs
#      `file` and `dpkg-shlibdeps`; help2man's pages are read with man).
# 2. Each must be a command of a row of `scripts/install-deps --list [--fuzz]`, or in BASE.
# 3. Each row's commands exist on this machine when its package is installed (dpkg-query), so
#    the table cannot name a command its package does not provide.
# Usage: tools_test.sh PROJECT_DIR
set -uo pipefail
project=$(cd "$1" && pwd)
cd "$project" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# On every bare Debian (Essential: yes, or Priority: required, which minbase installs).
BASE=" bash sh env cp mv rm ln mkdir rmdir cat sed grep awk mawk find xargs sort uniq tr head tail
       cut wc date sleep kill id stat readlink realpath mktemp dirname basename tee cmp diff gzip tar
       apt-get apt-cache dpkg dpkg-query dpkg-deb perl mount timeout true false test printf nproc "
# Looked up where present, and never needed: git names the commit in `--version` ("unknown"
# without it, and a clone has it); sudo is what install-deps uses when not root, and says what to
# run without it; the browser names other than Debian's are for other distributions; valgrind is
# for bench/drift_depth.sh, run by hand (docs/development.md).
OPTIONAL=" git sudo chromium-browser google-chrome valgrind "
INDIRECT=(file dpkg-shlibdeps man)

mapfile -t rows < <(scripts/install-deps --list --fuzz)
[ ${#rows[@]} -ge 10 ] || { echo "FAIL: scripts/install-deps --list printed ${#rows[@]} rows"; exit 1; }
declare -A provided=()
for row in "${rows[@]}"; do
  read -r package commands <<<"$row"
  for c in $commands; do [ "$c" = - ] || provided[$c]=$package; done
done

# --- 1. what the sources look up ------------------------------------------------------------
shell_files=$(find tests scripts -type f \( -name '*.sh' -o -name 'run-*' -o -name 'install-deps' -o -name demo \) ;
              printf '%s\n' .ci/run Makefile msptk-dev fuzz/run-fuzzers bench/compare.sh)
looked_up=()
while IFS= read -r f; do
  [ -f "$f" ] && [ "$f" != tests/scripts/tools_test.sh ] || continue
  code=$(grep -v '^[[:space:]]*#' "$f")
  # `command -v NAME` with a literal NAME (not a "$variable")
  while IFS= read -r name; do looked_up+=("$name:$f"); done < <(
    grep -oE 'command -v +[A-Za-z0-9_./+-]+' <<<"$code" | awk '{print $3}' | grep -v '^\$' | sort -u)
  # for tool in A B C; do ... command -v "$tool"
  while IFS= read -r name; do looked_up+=("$name:$f"); done < <(
    tr '\n' ' ' <<<"$code" | grep -oE 'for [a-z_]+ in [^;]+; do +command -v "?\$' |
    sed -E 's/^for [a-z_]+ in ([^;]+);.*/\1/' | tr ' ' '\n' | sed '/^$/d' | sort -u)
done <<<"$shell_files"
while IFS= read -r hit; do
  f=${hit%%:*} name=${hit#*:}
  looked_up+=("$name:$f")
done < <(grep -roE 'resolve_program\("[A-Za-z0-9_.+-]+"\)' tests --include='*.cpp' --include='*.hpp' |
         sed -E 's/resolve_program\("([^"]+)"\)/\1/' | sort -u)
while IFS= read -r name; do looked_up+=("$name:tests/e2e/browser_support.hpp"); done < <(
  grep -oE 'for \(const char\* name : \{[^}]*\}' tests/e2e/browser_support.hpp | grep -oE '"[^"]+"' | tr -d '"')
while IFS= read -r hit; do
  f=${hit%%:*} name=${hit#*:}
  looked_up+=("$name:$f")
done < <(grep -roE 'find_program\([A-Z_0-9]+ +[A-Za-z0-9_.+-]+' --include=CMakeLists.txt --include='*.cmake' . |
         grep -v '^./build' | sed -E 's/find_program\([A-Z_0-9]+ +//' | sort -u)
for name in "${INDIRECT[@]}"; do looked_up+=("$name:(run by cpack/help2man)"); done

# The scan must see what is known to be there, or it has stopped working.
for must in chromium tmux man zsh dpkg-shlibdeps file help2man; do
  printf '%s\n' "${looked_up[@]}" | grep -q "^$must:" || fail "the scan no longer finds '$must' in the sources"
done

# --- 2. each is installed by install-deps or comes with the base system ---------------------
checked=0
declare -A seen=()
for entry in "${looked_up[@]}"; do
  name=${entry%%:*} where=${entry#*:}
  [ -n "${seen[$name]:-}" ] && continue
  seen[$name]=1
  checked=$((checked + 1))
  [[ "$BASE" == *" $name "* ]] && continue
  [[ "$OPTIONAL" == *" $name "* ]] && continue
  [ -n "${provided[$name]:-}" ] && continue
  fail "$where looks up '$name', which scripts/install-deps does not install: add its Debian package to the table there"
done

# --- 3. the table is true on this machine ----------------------------------------------------
for row in "${rows[@]}"; do
  read -r package commands <<<"$row"
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == *"install ok installed"* ]] || continue
  for c in $commands; do
    [ "$c" = - ] && continue
    command -v "$c" >/dev/null || fail "package $package is installed but provides no '$c' (fix the table in scripts/install-deps)"
  done
done

[ -n "${TOOLS_TEST_VERBOSE:-}" ] && printf "%s\n" "${looked_up[@]}" | sort -u
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "tools: ${checked} commands looked up, each installed by scripts/install-deps or on a bare Debian"
