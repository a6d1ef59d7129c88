#!/usr/bin/env bash
# Schema drift against the depth of two bundles that differ deep down (issue 24, item 13):
# `msptk staleness` on a corpus whose one scenario is pinned to a bundle that differs from the
# stable one only at the bottom of a chain of DEPTH nested schemas ({"items": {"items": …
# {"type": "string"}}} vs "integer"). Two binaries side by side in one run (OLD, e.g. a build of
# an earlier commit, and NEW), each measured by instructions executed (valgrind's callgrind:
# the same count on a loaded machine as on an idle one) and by wall time; a run over its time
# budget is shown as such. Writes a markdown table to stdout and, with --results, into
# bench/RESULTS.md between the markers <!-- drift-depth --> and <!-- /drift-depth -->.
#
#   bench/drift_depth.sh --new build/bin/msptk [--old OLD/msptk] [--depths "50 100 200 400 1000 10000"]
#                        [--old-depths "50 100 200 400"] [--budget SECONDS] [--callgrind-limit SECONDS] [--results]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
new=""
old=""
depths="50 100 200 400 1000 3000 10000"
old_depths="50 100 200 400 1000"
budget=300
callgrind_limit=20
results=0
while [ $# -gt 0 ]; do
  case "$1" in
    --new) new=$2; shift ;;
    --old) old=$2; shift ;;
    --depths) depths=$2; shift ;;
    --old-depths) old_depths=$2; shift ;;
    --budget) budget=$2; shift ;;
    --callgrind-limit) callgrind_limit=$2; shift ;;
    --results) results=1 ;;
    *) echo "usage: $0 --new MSPTK [--old MSPTK] [--depths LIST] [--old-depths LIST] [--budget S] [--callgrind-limit S] [--results]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$new" ] || { echo "drift_depth: --new MSPTK is required" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "drift_depth: valgrind is required (apt-get install valgrind)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A bundle whose $defs.Deep is a chain of `depth` nested schemas ending in `leaf`.
bundle() {
  local depth=$1 leaf=$2 steps=$(($1 - 3))
  {
    printf '{"methods":{},"notifications":{},"$defs":{"Deep":'
    printf '{"items":%.0s' $(seq "$steps")
    printf '{"type":"%s"}' "$leaf"
    printf '}%.0s' $(seq "$steps")
    printf '}}\n'
  }
}

corpus() {
  local dir=$1 depth=$2 msp="$1/schema/msp"
  mkdir -p "$msp/stable" "$msp/old" "$msp/transcripts/deep"
  printf '{"fingerprint":"sha256:%s"}\n' "$(printf 'b%.0s' $(seq 64))" >"$msp/stable/manifest.json"
  printf '{"fingerprint":"sha256:%s"}\n' "$(printf 'a%.0s' $(seq 64))" >"$msp/old/manifest.json"
  bundle "$depth" integer >"$msp/stable/msp.schema.json"
  bundle "$depth" string >"$msp/old/msp.schema.json"
  printf '{"kind":"mspTranscript","scenario":"deep","fingerprint":"sha256:%s"}\n' "$(printf 'a%.0s' $(seq 64))" \
    >"$msp/transcripts/deep/manifest.json"
  : >"$msp/transcripts/deep/transcript.ndjson"
}

# "instructions seconds" of `msptk staleness` on corpus $2, or "over over" past the budget.
measure() {
  local bin=$1 root=$2 start end ir
  local rc=0
  start=$(date +%s.%N)
  timeout "$budget" "$bin" staleness --root "$root" >"$work/out" 2>&1 || rc=$?
  end=$(date +%s.%N)
  [ "$rc" -eq 124 ] && { echo "over over"; return; }
  grep -q 'retyped' "$work/out" || { echo "drift_depth: $bin did not report the change" >&2; cat "$work/out" >&2; exit 1; }
  local wall
  wall=$(echo "$end - $start" | bc)
  # callgrind runs some 50x slower: past --callgrind-limit seconds of wall time, only the wall time.
  if [ "$(echo "$wall > $callgrind_limit" | bc)" = 1 ]; then
    ir=skipped
  else
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" staleness --root "$root" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  fi
  echo "${ir:-?} $(printf '%.3f' "$wall")"
}

fmt_ir() {
  case "$1" in
    over) echo "over ${budget} s" ;;
    skipped) echo "(not counted: over ${callgrind_limit} s)" ;;
    *) echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' ;;
  esac
}

table="$work/table.md"
{
  echo "| depth | new: instructions | new: wall s | old: instructions | old: wall s | old / new (instructions) |"
  echo "|---|---|---|---|---|---|"
} >"$table"
for depth in $depths; do
  corpus "$work/d$depth" "$depth"
  read -r new_ir new_s <<<"$(measure "$new" "$work/d$depth")"
  old_ir="-" old_s="-" ratio="-"
  if [ -n "$old" ] && [[ " $old_depths " == *" $depth "* ]]; then
    read -r old_ir old_s <<<"$(measure "$old" "$work/d$depth")"
    if [[ "$old_ir" =~ ^[0-9]+$ && "$new_ir" =~ ^[0-9]+$ ]]; then
      ratio=$(echo "scale=1; $old_ir / $new_ir" | bc)
    elif [[ "$old_s" =~ ^[0-9.]+$ && "$new_s" =~ ^[0-9.]+$ ]]; then
      ratio="$(echo "scale=0; $old_s / $new_s" | bc) (wall)"
    fi
    old_ir=$(fmt_ir "$old_ir")
  fi
  echo "| $depth | $(fmt_ir "$new_ir") | $new_s | $old_ir | $old_s | $ratio |" >>"$table"
done
cat "$table"

if [ "$results" = 1 ]; then
  section="$work/section.md"
  {
    echo "<!-- drift-depth -->"
    echo "## Schema drift depth (issue 24, item 13)"
    echo
    echo "Written by \`bench/drift_depth.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC, new: msptk $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo '?')."
    echo "\`msptk staleness\` on one scenario pinned to a bundle that differs from the stable one only at the bottom"
    echo "of DEPTH nested schemas (\`{\"items\": …}\`); instructions by callgrind (repeatable under load), wall time of"
    echo "one plain run (load average when the run began: $(cut -d' ' -f1-3 /proc/loadavg)). Old: the drift walk"
    echo "before issue 24 (each level compared whole before it was walked, the pointer copied per level)."
    echo
    cat "$table"
    echo "<!-- /drift-depth -->"
  } >"$section"
  out="$here/RESULTS.md"
  if grep -q '<!-- drift-depth -->' "$out"; then
    awk -v f="$section" '/<!-- drift-depth -->/{while((getline l < f)>0) print l; skip=1; next} /<!-- \/drift-depth -->/{skip=0; next} !skip' "$out" >"$work/r"
  else
    { cat "$out"; echo; cat "$section"; } >"$work/r"
  fi
  cp "$work/r" "$out"
fi
