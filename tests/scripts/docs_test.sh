#!/usr/bin/env bash
# The documentation cannot drift from the program:
#  1. every verb `msptk --help` lists has a reference page docs/verbs/VERB.md;
#  2. the options `msptk VERB --help` lists are exactly those the page's "## Options" table names
#     (first cell of each row), both ways (`--help` itself excepted);
#  3. every relative link in README.md and docs/ resolves: the file exists and, for a link to a
#     heading (`page.md#anchor` or `#anchor`), the page has a heading with that GitHub anchor
#     (a link to ../shared beside the project is checked where that folder is);
#  4. README.md is a front page: at most 250 lines; docs/ARCHITECTURE.md's module rows are short.
# Usage: docs_test.sh MSPTK PROJECT_DIR
set -uo pipefail
msptk=$1
project=$(cd "$2" && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The verbs: the names under "Subcommands:" in msptk --help.
mapfile -t verbs < <("$msptk" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ ${#verbs[@]} -ge 10 ] || { echo "FAIL: could not read the verbs from msptk --help"; exit 1; }

# Option names in the first column of a --help text ("  -j,--jobs UINT   ...").
help_options() {
  awk '/^ +-/ { col = $0; sub(/   .*/, "", col); while (match(col, /--[a-z0-9][a-z0-9-]*/)) {
         print substr(col, RSTART, RLENGTH); col = substr(col, RSTART + RLENGTH) } }' | sort -u | grep -vx -- '--help'
}
# Option names in the first cell of the rows of a page's "## Options" table.
page_options() {
  awk '/^## Options[ \t]*$/ {on = 1; next} on && /^## / {on = 0} on && /^\|/ {
         n = split($0, cells, "|"); cell = cells[2]
         while (match(cell, /--[a-z0-9][a-z0-9-]*/)) { print substr(cell, RSTART, RLENGTH); cell = substr(cell, RSTART + RLENGTH) } }' "$1" |
    sort -u | grep -vx -- '--help'
}

for verb in "${verbs[@]}"; do
  page=$project/docs/verbs/$verb.md
  if [ ! -f "$page" ]; then
    fail "msptk $verb has no reference page docs/verbs/$verb.md"
    continue
  fi
  grep -q '^## Options[[:space:]]*$' "$page" || { fail "docs/verbs/$verb.md has no '## Options' table"; continue; }
  if [ "$verb" = conformance ]; then
    # muse-conformance: the union of its verbs' own options.
    helps=$(for v in validate staleness repin replay regen serve-fixture; do "$msptk" conformance "$v" --help 2>&1; done)
  else
    helps=$("$msptk" "$verb" --help 2>&1)
  fi
  while read -r option; do
    [ -n "$option" ] && fail "'msptk $verb --help' lists $option, which the Options table of docs/verbs/$verb.md does not name"
  done < <(comm -23 <(help_options <<<"$helps") <(page_options "$page"))
  while read -r option; do
    [ -n "$option" ] && fail "the Options table of docs/verbs/$verb.md names $option, which 'msptk $verb --help' does not list"
  done < <(comm -13 <(help_options <<<"$helps") <(page_options "$page"))
done
for page in "$project"/docs/verbs/*.md; do
  name=$(basename "$page" .md)
  case $name in README|*-json) continue ;; esac
  printf '%s\n' "${verbs[@]}" | grep -qx "$name" || fail "docs/verbs/$name.md documents no verb of msptk --help"
done

# GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'.
anchors_of() {
  awk '/^```/ {fence = !fence} !fence && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
    tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}
while IFS= read -r -d '' file; do
  dir=$(dirname "$file")
  rel=${file#"$project"/}
  # [text](target) outside code spans and fences; images too.
  while read -r target; do
    case $target in http://*|https://*|mailto:*) continue ;; esac
    path=${target%%#*}
    anchor=""
    [[ $target == *'#'* ]] && anchor=${target#*#}
    if [ -z "$path" ]; then
      resolved=$file
    else
      resolved=$(realpath -m "$dir/$path")
      # A link out of the project (../shared beside it) is checked where that folder is.
      [[ $resolved == "$project"/* ]] || [ -e "$(dirname "$resolved")" ] || continue
      if [ ! -e "$resolved" ]; then
        fail "$rel links to '$target': $path does not exist"
        continue
      fi
    fi
    if [ -n "$anchor" ] && [[ $resolved == *.md ]]; then
      anchors_of "$resolved" | grep -qx -- "$anchor" || fail "$rel links to '$target': no heading with that anchor"
    fi
  done < <(awk '/^```/ {fence = !fence; next} !fence { line = $0; gsub(/`[^`]*`/, "", line)
                 while (match(line, /\]\([^) ]+\)/)) { print substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH) } }' "$file")
done < <(find "$project/README.md" "$project/docs" -name '*.md' -print0)

version=$("$msptk" --version)
[[ $version =~ ^msptk\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{12}(-dirty)?|unknown)\)$ ]] ||
  fail "msptk --version says '$version', not 'msptk X.Y.Z (commit ABCDEF012345)'"
# muse-conformance names the same build (version and commit), as docs/verbs/conformance.md says.
build_id=${version#msptk }
build_id=${build_id/ (commit /, commit }
conformance_version=$("$msptk" conformance --version)
[ "$conformance_version" = "muse-conformance (msptk $build_id" ] ||
  fail "muse-conformance --version says '$conformance_version', not the build of '$version'"

# docs/ARCHITECTURE.md's module rows say what and who may use it; how is in the module's headers.
while IFS= read -r row; do
  fail "docs/ARCHITECTURE.md: a module row of ${#row} characters (at most 250; move the how into the module's headers): ${row:0:60}..."
done < <(awk '/^\| `/ && length($0) > 250' "$project/docs/ARCHITECTURE.md")

lines=$(wc -l <"$project/README.md")
[ "$lines" -le 250 ] || fail "README.md is $lines lines, more than the front page's 250: move detail to docs/verbs/"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "docs: ${#verbs[@]} verbs, every option documented, every link resolves, README $lines lines"
