#!/usr/bin/env bash
# bench/versus.sh: two builds of msptk side by side on the same inputs, in one run: each row of
# compare.sh's table (every diff variant, validate, normalize, record, serve-fixture, replay) is
# run with the OLD and the NEW binary in turn, --runs times each, and printed as a markdown table
# of median CPU seconds (user + system of every process) and peak RSS, with new / old. The runs
# alternate so that both binaries see the same load: on a shared machine, read the ratios.
#
#   bench/versus.sh --old DIR [--new DIR] [--mb N] [--runs N] [--work DIR]
#
#   --old DIR  the bin folder of the build to compare against (e.g. main at the branch point,
#              built in a folder of its own)
#   --new DIR  the bin folder of the build measured (default: this tree's build/bin)
#   --mb N     input size (default 96: compare.sh's 16x of its quick unit); the inputs are
#              compare.sh's (msptk_bench_gen --seed 12), generated into the work folder when absent
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
old=""
new="$root/build/bin"
mb=96
runs=5
work="${TMPDIR:-/tmp}/msptk-bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --old) old="$2"; shift ;;
    --new) new="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --work) work="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "versus.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$old" ] || { echo "versus.sh: --old DIR is required (see --help)" >&2; exit 2; }
for exe in "$old/msptk" "$new/msptk" "$new/msptk_bench_gen"; do
  [ -x "$exe" ] || { echo "versus.sh: $exe is missing (build first)" >&2; exit 3; }
done
command -v /usr/bin/time >/dev/null || { echo "versus.sh: /usr/bin/time is missing" >&2; exit 3; }
d="$work/$mb"
if [ ! -f "$d/remint/transcript.ndjson" ]; then
  rm -rf "$d"
  echo "generating $mb MB inputs" >&2
  "$new/msptk_bench_gen" --out "$d" --mb "$mb" --seed 12
  jq -r 'select(.dir == "client") | .raw' "$d/base/transcript.ndjson" > "$d/client.wire"
fi
if [ ! -f "$d-rx3/clientinfo/transcript.ndjson" ]; then
  rm -rf "$d-rx3"
  "$new/msptk_bench_gen" --out "$d-rx3" --mb "$mb" --seed 12 --requests-x 3
fi

# once BIN CMD: one run of CMD (msptk is $BIN/msptk); prints "cpu rss_mib".
once() {
  local bin="$1" cmd="$2" e m u s
  cmd=${cmd//@msptk/$bin\/msptk}
  /usr/bin/time -f '%e %M %U %S' -o "$work/versus.time" bash -c "$cmd" >/dev/null 2>"$work/versus.stderr" || true
  read -r e m u s < <(tail -1 "$work/versus.time")
  awk -v u="$u" -v s="$s" -v m="$m" 'BEGIN {printf "%.2f %d\n", u + s, m / 1024}'
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

rows=(
  "diff identical|@msptk diff '$d/base' '$d/identical'"
  "diff clientinfo|@msptk diff '$d/base' '$d/clientinfo'"
  "diff identical (3x requests)|@msptk diff '$d-rx3/base' '$d-rx3/identical'"
  "diff clientinfo (3x requests)|@msptk diff '$d-rx3/base' '$d-rx3/clientinfo'"
  "diff remint|@msptk diff '$d/base' '$d/remint'"
  "diff equivalent|@msptk diff '$d/base' '$d/equivalent'"
  "diff divergent|@msptk diff '$d/base' '$d/divergent'"
  "diff unrelated|@msptk diff '$d/base' '$d/unrelated'"
  "validate|@msptk validate '$d/base'"
  "normalize|@msptk normalize '$d/base'"
  "record|rm -rf '$work/versus-rec'; cat '$d/wire.ndjson' | @msptk record --out '$work/versus-rec' -- cat"
  "serve-fixture|@msptk serve-fixture --transcript '$d/base' < '$d/client.wire'"
  "replay|@msptk replay --transcript '$d/base' -- @msptk serve-fixture --transcript '$d/base'"
)
echo "versus.sh: $mb MB, $runs runs each, old $old, new $new, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| row | old cpu s | new cpu s | new / old | old peak RSS MiB | new peak RSS MiB |"
echo "|---|---|---|---|---|---|"
for row in "${rows[@]}"; do
  name=${row%%|*}
  cmd=${row#*|}
  oc=""; nc=""; orss=0; nrss=0
  for _ in $(seq "$runs"); do
    read -r c m < <(once "$old" "$cmd"); oc="$oc $c"; [ "$m" -gt "$orss" ] && orss=$m
    read -r c m < <(once "$new" "$cmd"); nc="$nc $c"; [ "$m" -gt "$nrss" ] && nrss=$m
  done
  o=$(printf '%s\n' $oc | median)
  n=$(printf '%s\n' $nc | median)
  ratio=$(awk -v a="$n" -v b="$o" 'BEGIN { if (b <= 0) b = 0.005; printf "%.2f", a / b }')
  echo "| $name | $o | $n | $ratio | $orss | $nrss |"
done
rm -rf "$work/versus-rec" "$work/versus.time" "$work/versus.stderr"
echo "versus.sh: done, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
