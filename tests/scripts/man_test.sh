#!/usr/bin/env bash
# The man pages the build wrote (docs/man/make-man): one per verb of msptk --help plus msptk(1)
# and muse-conformance(1); each renders with `man -l` without a warning, with its NAME, SYNOPSIS
# from --help, every option --help lists, and the reference page's DESCRIPTION. Rendered as a
# person reads them:
#  - in the C locale too: the roff is plain ASCII (other characters are glyph escapes with an
#    ASCII stand-in), so groff neither warns nor man prints `?` for a character;
#  - code blocks keep their indentation: the GitHub Actions YAML of msptk-check(1), cut out of the
#    rendered page, is the reference page's block line for line (and parses, with python3-yaml);
#  - no image markup; SEE ALSO names the other pages, not the page itself;
#  - msptk(1)'s verb table lists every verb of msptk --help, under its header row;
#  - muse-conformance(1) renders with `man -l` from any folder.
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
# check_common NAME PAGE TEXT: what every page must hold (TEXT: PAGE rendered in the C locale).
check_common() {
  local name=$1 page=$2 text=$3 other see
  other=$(zcat "$page" | LC_ALL=C grep -n -m1 -P '[^\x00-\x7f]') &&
    fail "$name(1): the roff holds a character beyond ASCII (man shows '?' for it in the C locale): $other"
  grep -q '??' <<<"$text" && fail "$name(1) shows '??': $(grep -m1 '??' <<<"$text")"
  grep -qE '!\[|\]\(' <<<"$text" && fail "$name(1) shows image or link markup: $(grep -m1 -E '!\[|\]\(' <<<"$text")"
  see=$(awk '/^SEE ALSO/ {on = 1; next} /^[A-Z]/ {on = 0} on' <<<"$text" | tr -s ' \n' ' ')
  [ -n "$see" ] || fail "$name(1) has no SEE ALSO"
  grep -qF "$name(1)" <<<"$see" && fail "$name(1)'s SEE ALSO names the page itself"
}
mapfile -t verbs < <("$msptk" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
for verb in "${verbs[@]}"; do
  page=$man1/msptk-$verb.1.gz
  [ -f "$page" ] || { fail "no man page msptk-$verb(1)"; continue; }
  text=$(render "$page")
  grep -v 'cannot adjust line\|cannot break line' "$work/warnings" >"$work/w2"
  [ -s "$work/w2" ] && fail "man -l msptk-$verb.1.gz warns: $(head -3 "$work/w2")"
  check_common "msptk-$verb" "$page" "$text"
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
check_common msptk "$man1/msptk.1.gz" "$text"
for verb in "${verbs[@]}"; do grep -q "msptk-$verb(1)" <<<"$(tr -s ' \n' ' ' <<<"$text")" || fail "msptk(1) does not refer to msptk-$verb(1)"; done
# The verb table: its header row (in italics), then a row per verb of msptk --help.
description=$(awk '/^DESCRIPTION/ {on = 1; next} /^[A-Z]/ {on = 0} on' <<<"$text")
zcat "$man1/msptk.1.gz" | grep -qx '\\fIverb\\fR' || fail "msptk(1)'s verb table has no header row"
for verb in "${verbs[@]}"; do
  grep -Eq "^       $verb( |\$)" <<<"$description" || fail "msptk(1)'s verb table does not list $verb"
done

# A code block as written: msptk-check(1)'s GitHub Actions YAML, cut out of the rendered page.
awk '/^```yaml/ {on = 1; next} on && /^```/ {exit} on' "$(dirname "$0")/../../docs/verbs/check.md" >"$work/expected.yaml"
if [ -s "$work/expected.yaml" ]; then
  rows=$(wc -l <"$work/expected.yaml")
  render "$man1/msptk-check.1.gz" | awk -v rows="$rows" '/^ +jobs:$/ && !n { match($0, /^ */); indent = RLENGTH; n = 1 }
      n && n <= rows { print substr($0, indent + 1); n++ }' | sed 's/ *$//' >"$work/rendered.yaml"
  diff -u --label docs/verbs/check.md --label msptk-check.1 "$work/expected.yaml" "$work/rendered.yaml" >"$work/yaml.diff" ||
    fail "msptk-check(1) does not show the YAML block as written: $(head -n 12 "$work/yaml.diff")"
  if python3 -c 'import yaml' 2>/dev/null; then
    python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d["jobs"]["check"]["strategy"]["matrix"]["shard"] and d["jobs"]["report"]["needs"] == "check"' \
      "$work/rendered.yaml" 2>"$work/yaml.err" || fail "msptk-check(1)'s YAML does not parse as the workflow: $(tail -n 1 "$work/yaml.err")"
  fi
else
  fail "docs/verbs/check.md has no \`\`\`yaml block any more: update this test"
fi

# muse-conformance(1): a page of its own, rendered from anywhere (no .so to resolve).
text=$(cd / && render "$man1/muse-conformance.1.gz")
grep -Eq "muse-conformance +- " <<<"$text" || fail "muse-conformance(1) has no NAME line: $(head -n 5 <<<"$text")"
grep -q -- "--muse-bin\|SUBCOMMAND" <<<"$text" || fail "muse-conformance(1) does not show its command line"
grep -q "msptk-conformance(1)" <<<"$text" || fail "muse-conformance(1) does not refer to msptk-conformance(1)"
check_common muse-conformance "$man1/muse-conformance.1.gz" "$text"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "man: msptk(1), muse-conformance(1) and ${#verbs[@]} verb pages render"
