#!/bin/sh
# Fuzzes flysim's readers of outside input with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer (tests/fuzz/fuzz.c describes the targets).  By hand, not in `make
# check`: a fuzzing run finds what it finds in the time it is given.
#
#   tools/fuzz.sh [SECONDS [TARGET...]]    SECONDS per target (default 60); TARGETs among
#                                          wprog asm schedule layout config arch (default all)
#   FLYSIM_FUZZ_BUILD   build folder (default build-fuzz); the corpora grow in BUILD/corpus/TARGET
#   FLYSIM_FUZZ_CC      a clang with libFuzzer (default: clang, else clang-14)
#
# A crash leaves its input in BUILD/crashes/TARGET/ and the script exits 1; replay one with
# `BUILD/fuzz_TARGET FILE`.  Needs what tools/setup.sh installs, plus a clang whose compiler-rt
# has libFuzzer (Debian 12: the clang package, clang 14; installed here when missing, as root).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-wprog asm schedule layout config arch}
build=${FLYSIM_FUZZ_BUILD:-build-fuzz}
case $seconds in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
for t in $targets; do
  case $t in
    wprog | asm | schedule | layout | config | arch) ;;
    *) echo "fuzz: unknown target '$t' (wprog asm schedule layout config arch)" >&2; exit 2 ;;
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

# the libraries, and build/flysim (it emits the assembly seed)
tools/setup.sh >/dev/null
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$build"
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
    wprog) n=1 ;; asm) n=2 ;; schedule) n=3 ;; layout) n=4 ;; config) n=5 ;; *) n=6 ;;
  esac
  bin="$build/fuzz_$t"
  # shellcheck disable=SC2086
  "$cc" -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $san -DFUZZ_TARGET=$n -I"$top" -I"$build" \
    tests/fuzz/fuzz.c "$build/libflysim.a" $libs -o "$bin"
  corpus="$build/corpus/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  seeds="$build/seeds/$t"
  rm -rf "$seeds"
  mkdir -p "$seeds"
  case $t in
    wprog) cp traces/examples/*.wp bench/*.wp "$seeds/" ;;
    asm)
      # a small kernel by hand, and an emitted GEMM compiled for gfx950 where clang-22 is here
      printf '\t.text\n\t.globl k\nk:\n\tv_mov_b32 v0, 0\n\tds_read_b128 v[4:7], v0\n\ts_waitcnt lgkmcnt(0)\n\tv_mfma_f32_16x16x32_bf16 a[0:3], v[4:7], v[4:7], a[0:3]\n\tglobal_load_dwordx4 v[8:11], v[0:1], off\n\ts_waitcnt vmcnt(0)\n\ts_barrier\n\ts_cbranch_scc1 .LBB0_1\n.LBB0_1:\n\ts_endpgm\n' >"$seeds/small.s"
      if command -v clang-22 >/dev/null 2>&1 && [ -x build/flysim ]; then
        build/flysim emit gemm --m 256 --n 256 --k 256 --arch mi355x --db /nonexistent/x.db \
          --config tile=128x128x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,groupm=0,kind=plain \
          -o "$build/seed.hip" >/dev/null 2>&1 &&
          clang-22 -x hip --offload-arch=gfx950 -nogpulib -nogpuinc --cuda-device-only -O3 -S \
            -o "$seeds/gemm.s" "$build/seed.hip" 2>/dev/null || true
      fi
      ;;
    schedule)
      cp kernels/schedules/*.sched "$seeds/"
      # the GEMMs again at a size the target plans, executes and simulates
      for f in kernels/schedules/*.sched; do
        grep -q '^m = ' "$f" &&
          sed -e 's/^m = .*/m = 64/' -e 's/^n = .*/n = 256/' -e 's/^k = .*/k = 128/' "$f" >"$seeds/small_$(basename "$f")"
      done
      ;;
    layout)
      i=0
      for x in '(4,2,3):(2,1,8)' 'logical_divide((4,2,3):(2,1,8),4:2)' 'composition(8:2,(2,2):(1,4))' \
        'complement(4:2,16)' 'Swizzle<3,3,3> o (8,64):(64,1)' 'blocked_product((2,2):(1,2),(3,4):(4,1))' \
        'coalesce((2,(1,6)):(1,(6,2)))' 'right_inverse((4,8):(8,1))' '((2,2),4)'; do
        i=$((i + 1)); printf '%s' "$x" >"$seeds/$i"
      done
      ;;
    config)
      printf '%s' 'tile=256x256x64,waves=2x4,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,groupm=0,kind=plain' >"$seeds/1"
      printf '%s' 'tile=16x64x512,waves=1x4,splitk=4,swizzle=3:3:3' >"$seeds/2"
      printf '%s' 'tile=64x64x64,waves=2x2,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,groupm=0,kind=plain' >"$seeds/3"
      printf '%s' 'tile=32x32x128,waves=1x1,stages=2,mfma=16x16x128,splitk=2,path=registers,c=lds,remap=0,groupm=4,kind=plain' >"$seeds/4"
      printf '%s' 'tile=128x64x64,waves=2x2,stages=2,mfma=32x32x16,splitk=1,path=direct,c=lds,remap=1,groupm=0,kind=pingpong' >"$seeds/5"
      ;;
    arch)
      for f in model/arch/*.ini; do
        { echo "memory.l2_ways=8"; cat "$f"; } >"$seeds/$(basename "$f")"
      done
      ;;
  esac
  echo "fuzz: $t for $seconds s"
  # -max_len: the arch files and emitted kernels are longer than libFuzzer's default guess
  if ! "$bin" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=262144 \
    -artifact_prefix="$crashes/" -print_final_stats=1 >"$build/fuzz_$t.log" 2>&1; then
    echo "fuzz: $t FAILED: $(grep -m1 -E 'ERROR|runtime error|fuzz:' "$build/fuzz_$t.log" || tail -1 "$build/fuzz_$t.log")" >&2
    echo "      log $build/fuzz_$t.log, input in $crashes/" >&2
    status=1
  else
    echo "fuzz: $t ok: $(grep -E '^stat::number_of_executed_units' "$build/fuzz_$t.log" | awk '{print $2}') inputs, corpus $(ls "$corpus" | wc -l)"
  fi
done
exit $status
