#!/usr/bin/env bash
# bench/compare.sh: every msptk verb timed as a whole process beside the plain tools that do
# the least the verb must do (cmp, cat/tee, jq pipelines), on generated MSP-shaped transcripts
# (bench/gen.cpp), writing bench/RESULTS.md: machine, inputs, medians, ratios, peak RSS and, per
# target of issues 12 and 19, met or missed by how much. bench/versus.sh puts two builds side by side.
#
#   bench/compare.sh [--quick | --full] [--runs N] [--out FILE] [--bin DIR] [--work DIR]
#
#   --quick  (default, `make bench`, a few minutes) unit 6 MB: inputs of 6, 24 and 96 MB
#   --full   unit 64 MB: inputs of 64, 256 and 1024 MB (about an hour on 2 cores; needs ~12 GB of disk)
#   --unit MB  another unit (e.g. 1 for a smoke run)
#   --wall   judge the targets on wall time instead of CPU time (user + system of every process)
# Ratios are taken at the largest size (16x the unit), each a median of --runs runs (default 3)
# measured in this one run, side by side: absolute times on a shared machine are noise, ratios
# measured together much less so. Peak RSS is /usr/bin/time's maximum resident set size.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mode=quick
clock=cpu
runs=3
out="$here/RESULTS.md"
bin="$root/build/bin"
work="${TMPDIR:-/tmp}/msptk-bench"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --runs) runs="$2"; shift ;;
    --out) out="$2"; shift ;;
    --bin) bin="$2"; shift ;;
    --work) work="$2"; shift ;;
    --unit) unit_override="$2"; shift ;;
    --wall) clock=wall ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
unit=6
[ "$mode" = full ] && unit=64
[ -n "${unit_override:-}" ] && unit=$unit_override
for tool in jq cmp tee /usr/bin/time awk; do
  command -v "$tool" >/dev/null || { echo "compare.sh: $tool is missing (scripts/install-deps installs it)" >&2; exit 3; }
done
for exe in msptk msptk_bench_gen msptk_bench_pingpong; do
  [ -x "$bin/$exe" ] || { echo "compare.sh: $bin/$exe is missing (build first: make build)" >&2; exit 3; }
done
msptk="$bin/msptk"
mkdir -p "$work"
log="$work/measurements.tsv"
: > "$log"

# measure NAME SIZE CMD: runs CMD (a bash command line) $runs times, records in $log the median
# wall time, the median CPU time (user + system, of every process of CMD) and the largest peak
# RSS (MiB, of the largest single process), and prints them.
measure() {
  local name="$1" size="$2" cmd="$3" walls="" cpus="" rss=0 e m u s
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M %U %S' -o "$work/time.out" bash -c "$cmd" >/dev/null 2>"$work/stderr.out" || true
    read -r e m u s < <(tail -1 "$work/time.out")
    walls="$walls $e"
    cpus="$cpus $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')"
    [ "$m" -gt "$rss" ] && rss=$m
  done
  local med='{a[NR]=$1} END {print a[int((NR+1)/2)]}'
  e=$(printf '%s\n' $walls | sort -g | awk "$med")
  u=$(printf '%s\n' $cpus | sort -g | awk "$med")
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$e" "$((rss / 1024))" "$u" >> "$log"
  printf '  %-34s %6s MB  %8.2f s wall  %8.2f s cpu  %6d MiB\n' "$name" "$size" "$e" "$u" "$((rss / 1024))"
}
get() { awk -F'\t' -v n="$1" -v s="$2" -v c="$3" '$1 == n && $2 == s {print $c}' "$log"; }
wall() { get "$1" "$2" 3; }
mib() { get "$1" "$2" 4; }
cpu() { get "$1" "$2" 5; }
# The time a target is judged on: CPU time by default (the machine is shared: under load, wall
# time measures the other jobs), wall time with --wall.
secs() { if [ "$clock" = wall ]; then wall "$1" "$2"; else cpu "$1" "$2"; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.005; printf "%.1f", a / b }'; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
sizes=("$unit" "$((unit * 4))" "$((unit * 16))")
big=${sizes[2]}
echo "compare.sh: $mode mode, inputs ${sizes[*]} MB, $runs runs each, work folder $work" >&2
for s in "${sizes[@]}"; do
  d="$work/$s"
  if [ ! -f "$d/remint/transcript.ndjson" ]; then
    rm -rf "$d"
    echo "generating $s MB inputs" >&2
    "$bin/msptk_bench_gen" --out "$d" --mb "$s" --seed 12
    jq -r 'select(.dir == "client") | .raw' "$d/base/transcript.ndjson" > "$d/client.wire"
  fi
  # Three times as many client requests per MB (each one and its response a twin that holds an id).
  if [ ! -f "$d-rx3/clientinfo/transcript.ndjson" ]; then
    rm -rf "$d-rx3"
    "$bin/msptk_bench_gen" --out "$d-rx3" --mb "$s" --seed 12 --requests-x 3
  fi
done

for s in "${sizes[@]}"; do
  d="$work/$s"
  echo "size $s MB" >&2
  measure "diff identical" "$s" "'$msptk' diff '$d/base' '$d/identical'"
  measure "diff clientinfo" "$s" "'$msptk' diff '$d/base' '$d/clientinfo'"
  measure "diff identical (3x requests)" "$s" "'$msptk' diff '$d-rx3/base' '$d-rx3/identical'"
  measure "diff clientinfo (3x requests)" "$s" "'$msptk' diff '$d-rx3/base' '$d-rx3/clientinfo'"
  measure "diff remint" "$s" "'$msptk' diff '$d/base' '$d/remint'"
  measure "diff equivalent" "$s" "'$msptk' diff '$d/base' '$d/equivalent'"
  measure "diff divergent" "$s" "'$msptk' diff '$d/base' '$d/divergent'"
  measure "diff unrelated" "$s" "'$msptk' diff '$d/base' '$d/unrelated'"
  measure "validate" "$s" "'$msptk' validate '$d/base'"
  measure "normalize" "$s" "'$msptk' normalize '$d/base'"
  measure "record" "$s" "rm -rf '$work/rec'; cat '$d/wire.ndjson' | '$msptk' record --out '$work/rec' -- cat"
  measure "serve-fixture" "$s" "'$msptk' serve-fixture --transcript '$d/base' < '$d/client.wire'"
  measure "replay" "$s" "'$msptk' replay --transcript '$d/base' -- '$msptk' serve-fixture --transcript '$d/base'"
  measure "show" "$s" "'$msptk' show '$d/base' --width 0"
  measure "cmp" "$s" "cmp '$d/base/transcript.ndjson' '$d/identical/transcript.ndjson'"
done
d="$work/$big"
echo "references at $big MB" >&2
# Both sides written out whole, then compared (cmp alone would stop both jq at the first difference).
jqdiff="jq -c '.raw|fromjson|del(.id)'"
measure "jq diff pipeline (equivalent)" "$big" \
  "$jqdiff '$d/base/transcript.ndjson' > '$work/j1'; $jqdiff '$d/equivalent/transcript.ndjson' > '$work/j2'; cmp '$work/j1' '$work/j2'"
measure "jq diff pipeline (remint)" "$big" \
  "$jqdiff '$d/base/transcript.ndjson' > '$work/j1'; $jqdiff '$d/remint/transcript.ndjson' > '$work/j2'; cmp '$work/j1' '$work/j2'"
measure "jq diff pipeline (divergent)" "$big" \
  "$jqdiff '$d/base/transcript.ndjson' > '$work/j1'; $jqdiff '$d/divergent/transcript.ndjson' > '$work/j2'; cmp '$work/j1' '$work/j2'"
rm -f "$work/j1" "$work/j2"
measure "jq validate pipeline" "$big" "jq -c '.raw|fromjson' '$d/base/transcript.ndjson'"
measure "jq normalize pipeline" "$big" "jq -c '.raw|fromjson|del(.id)' '$d/base/transcript.ndjson'"
measure "jq show pipeline" "$big" "jq -c '.raw|fromjson|.method' '$d/base/transcript.ndjson'"
measure "tee pipeline" "$big" "cat '$d/wire.ndjson' | tee '$work/f1' | cat | tee '$work/f2'"
rm -f "$work/f1" "$work/f2"

echo "latency: 10000 ping-pong round trips" >&2
direct=$("$bin/msptk_bench_pingpong" --rounds 10000 -- cat)
rm -rf "$work/rec"
recorded=$("$bin/msptk_bench_pingpong" --rounds 10000 -- "$msptk" record --out "$work/rec" -- cat)
p99() { awk '{for (i = 1; i < NF; ++i) if ($i == "p99_us") print $(i + 1)}' <<<"$1"; }
p50() { awk '{for (i = 1; i < NF; ++i) if ($i == "p50_us") print $(i + 1)}' <<<"$1"; }
added_p99=$(awk -v a="$(p99 "$recorded")" -v b="$(p99 "$direct")" 'BEGIN {printf "%.1f", a - b}')

largest=$(LC_ALL=C awk '{ if (length($0) > m) m = length($0) } END { printf "%.1f", m / 1048576 }' "$d/base/transcript.ndjson")
frames=$(wc -l < "$d/base/transcript.ndjson")
bound=$(awk -v l="$largest" 'BEGIN {printf "%.0f", 32 + 2 * l}')

# target NAME MEASURED GOAL HOW: one row of the targets table. HOW: "max" (measured <= goal) or "min".
rows=""
target() {
  local verdict
  verdict=$(awk -v m="$2" -v g="$3" -v how="$4" 'BEGIN {
    ok = (how == "max") ? (m <= g) : (m >= g);
    if (ok) print "met"; else if (how == "max") printf "missed by %.1fx\n", m / g; else printf "missed by %.1fx\n", g / m }')
  rows="$rows| $1 | $2 | $5 | $verdict |"$'\n'
}
cmp_s=$(secs cmp "$big")
target "diff identical vs cmp (x slower)" "$(ratio "$(secs "diff identical" "$big")" "$cmp_s")" 2 max "<= 2"
target "diff clientinfo vs diff identical (x slower)" "$(ratio "$(secs "diff clientinfo" "$big")" "$(secs "diff identical" "$big")")" 1.5 max "<= 1.5"
target "diff clientinfo vs diff identical, 3x requests per MB (x slower)" "$(ratio "$(secs "diff clientinfo (3x requests)" "$big")" "$(secs "diff identical (3x requests)" "$big")")" 1.5 max "<= 1.5"
target "diff remint vs jq (x faster)" "$(ratio "$(secs "jq diff pipeline (remint)" "$big")" "$(secs "diff remint" "$big")")" 25 min ">= 25"
target "diff equivalent vs jq (x faster)" "$(ratio "$(secs "jq diff pipeline (equivalent)" "$big")" "$(secs "diff equivalent" "$big")")" 25 min ">= 25"
target "diff 1% divergent vs jq (x faster)" "$(ratio "$(secs "jq diff pipeline (divergent)" "$big")" "$(secs "diff divergent" "$big")")" 20 min ">= 20"
target "validate vs jq (x faster)" "$(ratio "$(secs "jq validate pipeline" "$big")" "$(secs validate "$big")")" 10 min ">= 10"
target "normalize vs jq (x faster)" "$(ratio "$(secs "jq normalize pipeline" "$big")" "$(secs normalize "$big")")" 10 min ">= 10"
target "show vs jq (x faster)" "$(ratio "$(secs "jq show pipeline" "$big")" "$(secs show "$big")")" 5 min ">= 5"
target "record vs tee pipeline (x slower)" "$(ratio "$(secs record "$big")" "$(secs "tee pipeline" "$big")")" 2 max "<= 2"
target "record p99 added latency (us)" "$added_p99" 100 max "<= 100"
for v in validate normalize record serve-fixture replay show; do
  target "$v peak RSS (MiB)" "$(mib "$v" "$big")" "$bound" max "<= $bound (32 + 2 x largest frame)"
done
diff_goal=96
[ "$mode" = full ] && diff_goal=256
for v in "diff clientinfo" "diff remint" "diff equivalent" "diff unrelated"; do
  target "$v peak RSS (MiB)" "$(mib "$v" "$big")" "$diff_goal" max "<= $diff_goal"
done

scaling=""
for v in "diff identical" "diff clientinfo" "diff identical (3x requests)" "diff clientinfo (3x requests)" "diff remint" "diff equivalent" "diff divergent" "diff unrelated" validate normalize record serve-fixture replay show cmp; do
  a=$(secs "$v" "${sizes[0]}"); b=$(secs "$v" "${sizes[1]}"); c=$(secs "$v" "${sizes[2]}")
  scaling="$scaling| $v | $a | $b | $c | $(ratio "$c" "$a") | $(wall "$v" "${sizes[2]}") | $(mib "$v" "${sizes[0]}") / $(mib "$v" "${sizes[1]}") / $(mib "$v" "${sizes[2]}") |"$'\n'
done
# record --env-file (issue 24): every step before the host starts, at 100k and 500k lines (each
# past what a new program may be given, ARG_MAX: the run ends at the spawn, refused by the
# system, so the same steps are timed at both sizes). Linear: 500k / 100k is about 5.
envrows=""
for n in 100 500; do
  f="$work/env-$n.env"
  [ -f "$f" ] || awk -v n=$((n * 1000)) 'BEGIN {for (i = 0; i < n; i++) printf "MSPTK_BENCH_VARIABLE_%07d=value-%07d\n", i, i}' > "$f"
  measure "record --env-file" "${n}k" "rm -rf '$work/envrec'; '$msptk' record --out '$work/envrec' --env-file '$f' -- /bin/true </dev/null"
  envrows="$envrows| ${n},000 | $(cpu "record --env-file" "${n}k") | $(wall "record --env-file" "${n}k") | $(mib "record --env-file" "${n}k") |"$'\n'
done
envratio=$(ratio "$(cpu "record --env-file" 500k)" "$(cpu "record --env-file" 100k)")

refs=""
for v in "jq diff pipeline (equivalent)" "jq diff pipeline (remint)" "jq diff pipeline (divergent)" "jq validate pipeline" "jq normalize pipeline" "jq show pipeline" "tee pipeline" cmp; do
  refs="$refs| $v | $(cpu "$v" "$big") | $(wall "$v" "$big") | $(mib "$v" "$big") |"$'\n'
done

cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
{
  echo "# msptk bench results"
  echo
  echo "Written by \`bench/compare.sh --$mode\` on $(date -u '+%Y-%m-%d %H:%M UTC'), msptk $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo
  echo "- Machine: $(nproc) cores ($cpu), $mem, $(uname -sr); shared with other jobs, so read ratios, not seconds."
  echo "- Inputs: \`msptk_bench_gen --seed 12\` at ${sizes[*]} MB (the unit, 4x, 16x); at $big MB the base transcript has"
  echo "  $frames frames, the largest line is $largest MiB. Variants: identical copy; equivalent (client ids"
  echo "  re-minted, other clientInfo, members reordered in 1% of server frames); divergent (the equivalent copy"
  echo "  with 1% of frames carrying another value); unrelated (another session of the same size); clientinfo (only"
  echo "  line 1 differs: another clientInfo version); remint (every client request id re-minted, the responses accordingly)."
  echo "- Each time is the median of $runs runs of the whole process (\`/usr/bin/time\`), peak RSS the largest of them."
  echo "  Targets are judged on $clock time (cpu: user + system of every process of the command; load average"
  echo "  when the run began: $load)."
  echo "- record: \`cat wire | msptk record --out R -- cat\` vs \`cat wire | tee f1 | cat | tee f2\`; serve-fixture: the"
  echo "  base scenario's client lines on stdin; replay: the base scenario against \`msptk serve-fixture\` of itself."
  echo
  echo "## Targets (issues 12, 19, 21 and 31), at $big MB"
  echo
  echo "| target | measured | goal | verdict |"
  echo "|---|---|---|---|"
  printf '%s' "$rows"
  echo
  echo "Latency over 10,000 ping-pong round trips (\`msptk_bench_pingpong\`): direct \`cat\`: $direct;"
  echo "through \`msptk record -- cat\`: $recorded; added p99: $added_p99 us (p50: $(p50 "$direct") -> $(p50 "$recorded") us)."
  echo
  echo "## Every verb at 1x, 4x, 16x ($clock seconds; peak RSS in MiB)"
  echo
  echo "| verb | ${sizes[0]} MB | ${sizes[1]} MB | ${sizes[2]} MB | 16x / 1x | wall at ${sizes[2]} MB | peak RSS 1x / 4x / 16x |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s' "$scaling"
  echo
  echo "## References at $big MB"
  echo
  echo "| command | cpu seconds | wall seconds | peak RSS MiB |"
  echo "|---|---|---|---|"
  printf '%s' "$refs"
  echo
  echo "## record --env-file: every step before the host starts (issue 24)"
  echo
  echo "\`msptk record --out R --env-file F -- /bin/true\`, F holding N lines \`NAME=VALUE\` (35 bytes each; both sizes are"
  echo "past ARG_MAX, so the run ends at the spawn: the env file, the plan, the host's environment, the manifest and"
  echo "the environment block are what is timed). 500k / 100k cpu: $envratio (linear: about 5; it was quadratic)."
  echo
  echo "| lines | cpu seconds | wall seconds | peak RSS MiB |"
  echo "|---|---|---|---|"
  printf '%s' "$envrows"
  if [ -f "$here/analysis.md" ]; then
    echo
    cat "$here/analysis.md"
  fi
  # The section bench/drift_depth.sh writes is kept (it measures another thing, by instructions).
  if [ -f "$out" ] && grep -q '<!-- drift-depth -->' "$out"; then
    echo
    sed -n '/<!-- drift-depth -->/,/<!-- \/drift-depth -->/p' "$out"
  fi
} > "$out.new"
mv "$out.new" "$out"
echo "compare.sh: wrote $out" >&2
