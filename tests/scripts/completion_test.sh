#!/usr/bin/env bash
# Shell completion, driven the way bash drives it: the script `msptk completions bash` prints
# (the one the build installs) is sourced, COMP_WORDS/COMP_CWORD are set as bash sets them for a
# command line, and the completion function's COMPREPLY is checked. zsh's script must parse.
# Usage: completion_test.sh MSPTK BUILD_DIR
set -uo pipefail
msptk=$1 build=$2
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus/scen-a" "$work/corpus/scen-b" "$work/corpus/b-notes"
: >"$work/corpus/scen-a/manifest.json"
: >"$work/corpus/scen-b/manifest.json"
: >"$work/corpus/a-readme.txt"
: >"$work/corpus/m-session.ndjson"

"$msptk" completions bash >"$work/msptk.bash" || fail "msptk completions bash: exit $?"
cmp -s "$work/msptk.bash" "$build/share/bash-completion/completions/msptk" ||
  fail "the installed bash completion differs from 'msptk completions bash'"

# complete LINE: the candidates bash offers for the last word of LINE (a trailing space: a new word),
# sorted; ordered LINE: the same in the order the function gives them (bash shows them so: nosort).
ordered() {
  (cd "$work" && bash -c '
    source ./msptk.bash
    read -r -a COMP_WORDS <<<"$1"
    [[ $1 == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE=$1 COMP_POINT=${#1}
    _msptk
    printf "%s\n" "${COMPREPLY[@]}"' _ "$1")
}
complete_line() { ordered "$1" | sort; }
expect() {  # expect LINE WORD...: each WORD is among the candidates
  local line=$1 got
  shift
  got=$(complete_line "$line")
  for word in "$@"; do
    grep -qx -- "$word" <<<"$got" || fail "'$line<TAB>' does not offer '$word' (got: $(tr '\n' ' ' <<<"$got"))"
  done
}
refuse() {  # refuse LINE WORD...: no WORD is among the candidates
  local line=$1 got
  shift
  got=$(complete_line "$line")
  for word in "$@"; do
    grep -qx -- "$word" <<<"$got" && fail "'$line<TAB>' offers '$word'"
  done
}

# Every verb of msptk --help, after the program name.
mapfile -t verbs < <("$msptk" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
expect "msptk " "${verbs[@]}"
expect "msptk re" record replay review regen repin
refuse "msptk re" diff validate
# A verb's options, its option values from their choices, paths elsewhere.
expect "msptk diff --" --format --mask --side --color --path
expect "msptk diff --format " text json html
refuse "msptk diff --mask " html
expect "msptk diff --mask " unify erase
expect "msptk coverage --format " text json html
expect "msptk check --sh" --shard
expect "msptk check corpus/s" corpus/scen-a corpus/scen-b
# The choices of a positional argument: `msptk completions <TAB>`.
expect "msptk completions " bash zsh
refuse "msptk completions " corpus
# After a flag (no value), options still complete, and paths after it.
expect "msptk serve-fixture --keep-going --" --transcript --follow-minted
expect "msptk record --force --" --out --script
expect "msptk check --update --" --junit --host
expect "msptk check --update " corpus
expect "msptk diff --side client --" --format --mask
# Paths: scenario folders (manifest.json) and .ndjson files first, then other folders and files.
got=$(ordered "msptk diff corpus/" | head -n 3 | tr '\n' ' ')
[ "$got" = "corpus/m-session.ndjson corpus/scen-a corpus/scen-b " ] ||
  fail "'msptk diff corpus/<TAB>' does not offer the scenario folders and .ndjson files first: $(ordered "msptk diff corpus/" | tr '\n' ' ')"
expect "msptk diff corpus/" corpus/b-notes corpus/a-readme.txt
got=$(ordered "msptk serve-fixture --transcript corpus/" | head -n 3 | tr '\n' ' ')
[ "$got" = "corpus/m-session.ndjson corpus/scen-a corpus/scen-b " ] ||
  fail "'msptk serve-fixture --transcript corpus/<TAB>' offers '$got' first"
expect "msptk serve-fixture --transcript corpus/" corpus/scen-a corpus/scen-b
refuse "msptk validate --" --shard
# Every option of every verb is offered after "msptk VERB --".
for verb in "${verbs[@]}"; do
  [ "$verb" = conformance ] && continue
  mapfile -t options < <("$msptk" "$verb" --help | awk '/^ +-/ { col = $0; sub(/   .*/, "", col)
      while (match(col, /--[a-z0-9][a-z0-9-]*/)) { print substr(col, RSTART, RLENGTH); col = substr(col, RSTART + RLENGTH) } }')
  expect "msptk $verb --" "${options[@]}"
done

# zsh: the script parses, and compinit would take it (#compdef first).
"$msptk" completions zsh >"$work/_msptk" || fail "msptk completions zsh: exit $?"
head -n 1 "$work/_msptk" | grep -qx '#compdef msptk' || fail "_msptk does not start with #compdef msptk"
if command -v zsh >/dev/null; then
  zsh -n "$work/_msptk" || fail "zsh -n _msptk: the zsh completion does not parse"
  grep -q "^    '1:shell:(bash zsh)'" "$work/_msptk" || fail "_msptk does not complete 'msptk completions' with bash and zsh"
  grep -q "_files -g '\*.ndjson(-.)'" "$work/_msptk" || fail "_msptk does not offer .ndjson files first"
  for verb in "${verbs[@]}"; do
    grep -q "^_msptk_${verb//-/_}()" "$work/_msptk" || fail "_msptk has no function for $verb"
  done
else
  echo "note: zsh is not installed: the zsh script's syntax was not checked"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "completion: ${#verbs[@]} verbs, their options and option values complete in bash; zsh parses"
