#!/bin/sh
# Compares flysim's predictions with published GEMM measurements (docs/validation.md lists
# each source).  Nothing is fitted to these numbers: they are validation data only.
#   bench/validate.sh [--compiled] [FLYSIM]     (default build/flysim)
# Prints a markdown table: the case, the measured time, and for each of flysim's configs
# (the publication's where it gives one, and flysim's own tuned winner) the predicted time
# and the error (predicted - measured) / measured; then the overall rows of those errors.
# A temporary tuning database is used.
# --compiled (needs clang-22): instead, flysim's winner of `tune --compiled 4` (the fastest
# compiled code of the four fastest simulated configs) and its compiled code's simulated time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
compiled=0
if [ "${1:-}" = --compiled ]; then compiled=1; shift; fi
flysim=${1:-$top/build/flysim}
db=$(mktemp /tmp/flysim-validate-XXXXXX.db)
rm -f "$db"
tmp=$(mktemp /tmp/flysim-validate-XXXXXX)
trap 'rm -f "$db" "$db-wal" "$db-shm" "$tmp" "$tmp.e" "$tmp.a"' EXIT

# id | arch | op | dtype | layout | m | n | k | measured us | published config or - | conditions or -
# The conditions are the measurement's (space-separated; docs/validation.md gives each
# source's): `warm` where the benchmark launched the kernel again on the same buffers (predict
# --warm; the default is a cold first launch, as a loop that rotates its buffers gets),
# `device` where the time is the kernel's own on the GPU (a profiler's device time, which leaves
# out the launch: dispatch.launch_overhead_us=0), and S.K=V for an arch key (a fixed clock).
cases='
1|mi355x|gemm|bf16|TN|4096|4096|4096|96.63|-|warm
2|mi355x|gemm|bf16|TN|4096|4096|4096|97.56|tile=256x256x64,waves=2x2,mfma=16x16x32|warm
3a|mi355x|gemm|bf16|TN|4096|4096|8192|178.24|-|warm
3b|mi355x|gemm|bf16|TN|4096|4096|8192|183.79|tile=256x256x64,waves=2x2,mfma=16x16x32|warm
4a|mi355x|gemm|bf16|TN|4096|4096|1024|33.32|tile=256x256x64,waves=2x2,mfma=16x16x32|warm
4b|mi355x|gemm|bf16|TN|4096|4096|2048|54.16|tile=256x256x64,waves=2x2,mfma=16x16x32|warm
4c|mi355x|gemm|bf16|TN|4096|4096|16384|350.16|tile=256x256x64,waves=2x2,mfma=16x16x32|warm
5|mi355x|gemm|bf16|TN|4096|4096|4096|103.53|tile=256x256x64|-
6|mi355x|gemm|bf16|TN|1|4096|4096|9.46|tile=16x16x512|-
7|mi355x|gemm|bf16|TN|1|2048|6144|12.84|tile=32x64,splitk=6|device
8|mi355x|gemm|bf16|TN|1|6144|2048|10.86|tile=16x64x128,splitk=2|device
9|mi355x|gemm|bf16|TN|32|6144|2048|11.33|tile=32x64,splitk=2|device
10|mi355x|gemm|bf16|TN|64|6144|3072|15.78|tile=64x64,splitk=2|device
11|mi355x|gemm|bf16|TN|128|6144|2048|15.89|tile=64x64,splitk=1|device
12|mi355x|gemm|bf16|TN|32|50016|6144|128.20|-|device
13|mi355x|gemm|bf16|TN|1024|6144|3072|62.06|-|device
14|mi355x|gemm|bf16|TN|4096|6144|3072|147.97|tile=256x256|device
15|mi355x|gemm|bf16|TN|8192|6144|3072|245.05|tile=256x256|device
16|mi355x|gemm|bf16|TN|16384|3072|6144|448.64|tile=256x256|device
17|mi355x|gemm|bf16|TN|8192|50016|6144|3931.1|-|device
20|mi355x|gemm|bf16|TN|8192|8192|8192|925|-|warm
23|mi355x|gemm|fp8|TN|4096|4096|16384|159.93|-|warm
24|mi355x|gemm|fp8|TN|4096|4096|4096|46.42|tile=256x256x128,waves=2x4,mfma=16x16x128,kind=pingpong|warm
27|mi300x|gemm|bf16|NN|4096|4864|32896|1848.09|-|device.sustained_clock_ghz=1.207
29|mi300x|gemm|bf16|TN|4096|4096|4096|243.73|tile=256x224x64|-
30|mi300x|gemm|bf16|TN|1|4096|4096|13.72|tile=16x16x512|-
31|mi300x|gemm|fp8|TN|8192|8192|8192|1212.3|-|warm device.sustained_clock_ghz=1.005
'

# case_args OP M N K DTYPE LAYOUT ARCH CONDITIONS: a case's problem arguments and conditions
case_args() {
  a="$1 --m $2 --n $3 --k $4 --dtype $5 --layout $6 --arch $7"
  if [ "$8" != - ]; then
    for c in $8; do
      case $c in
        warm) a="$a --warm" ;;
        device) a="$a --set dispatch.launch_overhead_us=0" ;;
        *) a="$a --set $c" ;;
      esac
    done
  fi
  echo "$a"
}

err() { awk -v p="$1" -v m="$2" 'BEGIN { printf "%+.1f%%", 100 * (p - m) / m }'; }

# median FILE: the median of the numbers in FILE, one a line
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# overall LABEL FIELD TABLE: the summary row of the errors in column FIELD of TABLE's rows (docs/validation.md's
# "Overall": cases, median error, median absolute error, mean absolute error, within +-15%)
overall() {
  grep '^| [0-9]' "$3" | awk -F'|' -v f="$2" '{ gsub(/[ %+]/, "", $f); if ($f ~ /^-?[0-9.]+$/) print $f }' > "$tmp.e"
  n=$(wc -l < "$tmp.e")
  [ "$n" -gt 0 ] || return 0
  awk '{ print $1 < 0 ? -$1 : $1 }' "$tmp.e" > "$tmp.a"
  mean=$(awk '{ s += $1 } END { printf "%.1f", s / NR }' "$tmp.a")
  within=$(awk '$1 <= 15 { w++ } END { print w + 0 }' "$tmp.a")
  printf '| %s | %s | %+.1f%% | %s%% | %s%% | %s of %s |\n' "$1" "$n" "$(median "$tmp.e")" "$(median "$tmp.a")" "$mean" \
    "$within" "$n"
}

# predict CASE-ARGS [CONFIG]: prints "time_us config" or "- reason"
predict() {
  out=$("$flysim" predict "$@" --db "$db" --json 2>&1) || { echo "- $(echo "$out" | head -1)"; return; }
  echo "$out" | awk -F'"' '/"time_us":/ && !t { gsub(/[^0-9.]/, "", $3); t = sprintf("%.1f", $3) } /"config":/ && !c { c = $4 } END { print t, c }'
}

# compiled CASE-ARGS: prints "compiled_us config" of tune --compiled 4's winner, or "- reason"
compiled_winner() {
  out=$("$flysim" tune "$@" --no-db --compiled 4 --json 2>&1) || { echo "- $(echo "$out" | head -1)"; return; }
  echo "$out" | awk -F'"' '/"compiled_us":/ && !s { s = 1; v = $3; if (v ~ /null/) t = "-"; else { gsub(/[^0-9.]/, "", v); t = sprintf("%.1f", v) } } /"config":/ && !c { c = $4 } END { print t, c }'
}

if [ "$compiled" = 1 ]; then
  echo "| # | part | problem | measured µs | flysim tune --compiled 4: compiled code µs | error | config |"
  echo "|---|---|---|---|---|---|---|"
  echo "$cases" | while IFS="|" read -r id arch op dt lay m n k meas cfg conds; do
    [ -n "$id" ] || continue
    # shellcheck disable=SC2046
    won=$(compiled_winner $(case_args "$op" "$m" "$n" "$k" "$dt" "$lay" "$arch" "$conds"))
    c_us=${won%% *}
    c_err=-
    [ "$c_us" = - ] || c_err=$(err "$c_us" "$meas")
    printf '| %s | %s | %s %sx%sx%s %s %s | %s | %s | %s | `%s` |\n' "$id" "$arch" "$op" "$m" "$n" "$k" "$dt" "$lay" \
      "$meas" "$c_us" "$c_err" "${won#* }"
  done | tee "$tmp"
  echo
  echo "| predictions | cases | median error | median absolute error | mean absolute error | within ±15% |"
  echo "|---|---|---|---|---|---|"
  overall "flysim's \`tune --compiled 4\` winner, as compiled" 7 "$tmp"
  exit 0
fi

echo "| # | part | problem | measured µs | published config | flysim, that config µs | error | flysim tuned µs | error | tuned config |"
echo "|---|---|---|---|---|---|---|---|---|---|"
echo "$cases" | while IFS="|" read -r id arch op dt lay m n k meas cfg conds; do
  [ -n "$id" ] || continue
  base=$(case_args "$op" "$m" "$n" "$k" "$dt" "$lay" "$arch" "$conds")
  # shellcheck disable=SC2086
  tuned=$(predict $base)
  t_us=${tuned%% *}
  t_cfg=${tuned#* }
  if [ "$cfg" = - ]; then
    m_us=-; m_err=-
  else
    # shellcheck disable=SC2086
    matched=$(predict $base --config "$cfg")
    m_us=${matched%% *}
    if [ "$m_us" = - ]; then m_err="(${matched#* })"; else m_err=$(err "$m_us" "$meas"); fi
  fi
  t_err=-
  [ "$t_us" = - ] || t_err=$(err "$t_us" "$meas")
  printf '| %s | %s | %s %sx%sx%s %s %s | %s | %s | %s | %s | %s | %s | `%s` |\n' "$id" "$arch" "$op" "$m" "$n" "$k" "$dt" \
    "$lay" "$meas" "$cfg" "$m_us" "$m_err" "$t_us" "$t_err" "$t_cfg"
done | tee "$tmp"
echo
echo "| predictions | cases | median error | median absolute error | mean absolute error | within ±15% |"
echo "|---|---|---|---|---|---|"
overall "flysim's own tuned winner" 10 "$tmp"
overall "the publication's config" 8 "$tmp"
