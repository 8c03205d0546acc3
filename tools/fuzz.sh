#!/bin/sh
# Fuzzes flysim's readers of outside input with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (tests/fuzz/fuzz.c describes the targets).  By hand, not in `make
# check`: a fuzzing run finds what it finds in the time it is given.
#
#   tools/fuzz.sh [SECONDS [TARGET...]]    SECONDS per target (default 60); TARGETs among
#                                          wprog asm schedule layout config arch db hip
#                                          cli (default all)
#   FLYSIM_FUZZ_BUILD   build folder (default build-fuzz); the corpora grow in BUILD/corpus/TARGET
#   FLYSIM_FUZZ_CC      a clang with libFuzzer (default: clang, else clang-14)
#
# A crash leaves its input in BUILD/crashes/TARGET/ and the script exits 1; replay one with
# `BUILD/fuzz_TARGET FILE`.  Once it is fixed, add the input to tests/fuzz/corpus/TARGET/:
# `make check` runs every target over that folder (tests/fuzz_TARGET).  Needs what tools/setup.sh installs, plus a clang whose compiler-rt
# has libFuzzer (Debian 12: the clang package, clang 14; installed here when missing, as root).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-wprog asm schedule layout config arch db hip cli}
build=${FLYSIM_FUZZ_BUILD:-build-fuzz}
case $seconds in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
for t in $targets; do
  case $t in
    wprog | asm | schedule | layout | config | arch | db | hip | cli) ;;
    *) echo "fuzz: unknown target '$t' (wprog asm schedule layout config arch db hip cli)" >&2; exit 2 ;;
  esac
done
cc=${FLYSIM_FUZZ_CC:-}
if [ -z "$cc" ]; then
  for c in clang clang-14; do command -v "$c" >/dev/null 2>&1 && cc=$c && break; done
fi
if [ -z "$cc" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang >&2 && cc=clang
fi
[ -n "$cc" ] || { echo "fuzz: no clang with libFuzzer found (apt-get install clang)" >&2; exit 2; }

# the packages and libraries flysim builds with (the fuzz build below uses them)
tools/setup.sh >/dev/null
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$build"
build=$(cd "$build" && pwd) # absolute: the cli target runs in a folder of its own
if [ ! -f "$build/Makefile" ] || [ configure -nt "$build/Makefile" ]; then
  (cd "$build" && "$top/configure" -q CC="$cc" CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $san")
fi
make -s -C "$build" -j"$(nproc)" libflysim.a
libs="$(pkg-config --libs gsl sqlite3 inih jansson 2>/dev/null || echo -lgsl -lgslcblas -lsqlite3 -linih -ljansson) -lm -lpthread"

export FLYSIM_ARCH_PATH="$top/model/arch"
export UBSAN_OPTIONS=print_stacktrace=1
status=0
for t in $targets; do
  case $t in
    wprog) n=1 ;; asm) n=2 ;; schedule) n=3 ;; layout) n=4 ;; config) n=5 ;; arch) n=6 ;; db) n=7 ;; hip) n=8 ;; *) n=9 ;;
  esac
  bin="$build/fuzz_$t"
  extra="" # the command line's target links the command's sources, all but its main
  quiet="" # and its commands' reports are not kept (-close_fd_mask=1: their standard output)
  [ "$t" = cli ] && extra=$(ls cli/*.c | grep -v '^cli/flysim\.c$') && quiet=-close_fd_mask=1
  # shellcheck disable=SC2086
  "$cc" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $san -DFUZZ_TARGET=$n -DTU_TOP_SRCDIR="\"$top\"" \
    -I"$top" -I"$build" tests/fuzz/fuzz.c $extra "$build/libflysim.a" $libs -o "$bin"
  corpus="$build/corpus/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  # the seeds: tests/fuzz/corpus/TARGET (make check replays it too) and the repository's inputs
  seeds="$build/seeds/$t"
  rm -rf "$seeds"
  mkdir -p "$seeds"
  cp tests/fuzz/corpus/"$t"/* "$seeds/"
  case $t in
    wprog) cp traces/examples/*.wp bench/*.wp "$seeds/" ;;
    schedule) cp kernels/schedules/*.sched "$seeds/" ;;
    arch) for f in model/arch/*.ini; do { echo "lds.banks=32"; cat "$f"; } >"$seeds/$(basename "$f")"; done ;;
  esac
  echo "fuzz: $t for $seconds s"
  # -max_len: the arch files and emitted kernels are longer than libFuzzer's default guess
  # shellcheck disable=SC2086
  if ! "$bin" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=262144 $quiet \
    -artifact_prefix="$crashes/" -print_final_stats=1 >"$build/fuzz_$t.log" 2>&1; then
    echo "fuzz: $t FAILED: $(grep -m1 -E 'ERROR|runtime error|fuzz:' "$build/fuzz_$t.log" || tail -1 "$build/fuzz_$t.log")" >&2
    echo "      log $build/fuzz_$t.log, input in $crashes/" >&2
    status=1
  else
    echo "fuzz: $t ok: $(grep -E '^stat::number_of_executed_units' "$build/fuzz_$t.log" | awk '{print $2}') inputs, corpus $(ls "$corpus" | wc -l)"
  fi
done
exit $status
