#!/usr/bin/env bash
# The man pages the build wrote (docs/man/make-man): one per verb of msptk --help plus msptk(1)
# and muse-conformance(1); each renders with `man -l` without a warning, with its NAME, SYNOPSIS
# from --help, every option --help lists, and the reference page's DESCRIPTION.
# Usage: man_test.sh MSPTK BUILD_DIR
set -uo pipefail
msptk=$1 build=$2
man1=$build/share/man/man1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
command -v man >/dev/null || { echo "skipped: man is not installed (scripts/install-deps installs man-db)"; exit 77; }
[ -f "$man1/msptk.1.gz" ] || { echo "FAIL: $man1/msptk.1.gz was not built (help2man missing at configure time?)"; exit 1; }

render() {  # render PAGE: the page as man shows it in the C locale; groff's complaints in $work/warnings
  LC_ALL=C MANWIDTH=100 MANPAGER=cat PAGER=cat man --warnings -l "$1" 2>"$work/warnings" | col -bx
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t verbs < <("$msptk" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
for verb in "${verbs[@]}"; do
  page=$man1/msptk-$verb.1.gz
  [ -f "$page" ] || { fail "no man page msptk-$verb(1)"; continue; }
  text=$(render "$page")
  grep -v 'cannot adjust line\|cannot break line' "$work/warnings" >"$work/w2"
  [ -s "$work/w2" ] && fail "man -l msptk-$verb.1.gz warns: $(head -3 "$work/w2")"
  grep -q '???' <<<"$text" && fail "msptk-$verb(1) shows characters the C locale cannot: $(grep -m1 '???' <<<"$text")"
  grep -q "^NAME" <<<"$text" && grep -Eq "msptk-$verb +- " <<<"$text" || fail "msptk-$verb(1) has no NAME line"
  grep -q "^SYNOPSIS" <<<"$text" || fail "msptk-$verb(1) has no SYNOPSIS"
  grep -q "^DESCRIPTION" <<<"$text" || fail "msptk-$verb(1) has no DESCRIPTION"
  grep -q "^SEE ALSO" <<<"$text" || fail "msptk-$verb(1) has no SEE ALSO"
  # The reference page's first paragraph of prose is in the description.
  first=$(awk 'NR > 1 && /^[A-Za-z]/ && !/^msptk / {print; exit}' "$(dirname "$0")/../../docs/verbs/$verb.md" | tr -d '`*' | awk '{print $1, $2, $3}')
  [ -n "$first" ] && ! grep -qF -- "$first" <<<"$(tr -s ' \n' ' ' <<<"$text")" && fail "msptk-$verb(1) lacks its reference page's prose ('$first')"
  if [ "$verb" != conformance ]; then
    while read -r option; do
      grep -qF -- "$option" <<<"$text" || fail "msptk-$verb(1) does not mention $option"
    done < <("$msptk" "$verb" --help | awk '/^ +-/ { col = $0; sub(/   .*/, "", col)
        while (match(col, /--[a-z0-9][a-z0-9-]*/)) { print substr(col, RSTART, RLENGTH); col = substr(col, RSTART + RLENGTH) } }')
  fi
done
text=$(render "$man1/msptk.1.gz")
grep -q "^NAME" <<<"$text" && grep -q "^SEE ALSO" <<<"$text" || fail "msptk(1) lacks NAME or SEE ALSO"
for verb in "${verbs[@]}"; do grep -q "msptk-$verb(1)" <<<"$(tr -s ' \n' ' ' <<<"$text")" || fail "msptk(1) does not refer to msptk-$verb(1)"; done
(cd "$build/share/man" && render man1/muse-conformance.1.gz) | grep -q "msptk-conformance" ||
  fail "muse-conformance(1) does not show msptk-conformance(1)"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "man: msptk(1), muse-conformance(1) and ${#verbs[@]} verb pages render"
