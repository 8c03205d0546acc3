#!/bin/sh
# Result-identity check for changes meant to leave the simulator's results as they are
# (speed work, refactoring): runs a fixed set of simulations with bench/sim_speed, which
# prints every field of a result in exact hexadecimal, one file per run.
#   bench/regress.sh SIM_SPEED OUTDIR        run the set (about 6 s on a 2-CPU host)
#   bench/regress.sh --compare DIR1 DIR2     list the runs whose results differ (exit 1 if any)
# Typical use: build bench/sim_speed before the change and copy it away, run the set with
# both binaries, compare.  The host time line is left out of the files.
set -eu
if [ "${1:-}" = "--compare" ]; then
  [ $# -eq 3 ] || { echo "usage: bench/regress.sh --compare DIR1 DIR2" >&2; exit 2; }
  diff=0
  runs=0
  for f in "$2"/*.txt; do
    runs=$((runs + 1))
    n=$(basename "$f")
    if ! cmp -s "$f" "$3/$n"; then
      diff=1
      printf '%s: %s -> %s  (%s)\n' "$n" "$(sed -n 's/^cycles //p' "$f")" "$(sed -n 's/^cycles //p' "$3/$n" 2>/dev/null)" \
        "$(tail -1 "$f")"
    fi
  done
  [ $diff = 0 ] && echo "all $runs runs identical"
  exit $diff
fi
[ $# -eq 2 ] || { echo "usage: bench/regress.sh SIM_SPEED OUTDIR | --compare DIR1 DIR2" >&2; exit 2; }
mkdir -p "$2"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$(cd "$2" && pwd)
cd "$(dirname "$0")/.."
i=0
run() {
  i=$((i + 1))
  "$bin" "$@" 2>&1 | grep -v '^host' > "$out/$i.txt"
  echo "$*" >> "$out/$i.txt"
}
for f in traces/examples/*.wp bench/edge_phantom.wp bench/edge_top.wp; do
  run --arch mi355x --wp "$f"
  run --arch mi355x --wp "$f" --window 1
done
for f in traces/examples/lds_sweep.wp traces/examples/stream_copy.wp bench/edge_top.wp; do # gfx942 has not the others' MFMAs
  run --arch mi300x --wp "$f"
  run --arch mi300x --wp "$f" --window 1
done
P=tile=128x128x128,waves=4x2,stages=2,mfma=32x32x16,splitk=1,path=direct,c=lds,remap=1,groupm=0,kind=pingpong
Q=tile=128x128x64,waves=2x2,stages=3,mfma=16x16x32,splitk=1,path=registers,c=direct,remap=1,groupm=0,kind=plain
R=tile=256x256x64,waves=2x4,stages=2,mfma=16x16x32,splitk=1,path=direct,c=direct,remap=1,groupm=0,kind=plain
S=tile=64x64x128,waves=2x2,stages=1,mfma=16x16x32,splitk=2,path=registers,c=lds,remap=0,groupm=4,kind=plain
T=tile=32x128x128,waves=1x4,stages=2,mfma=16x16x32,splitk=4,path=direct,c=lds,remap=1,groupm=0,kind=plain
# gfx942 has no 16x16x32 or 32x32x16 BF16 MFMA and 64 KiB of LDS a workgroup: its own configs
P3=tile=128x128x64,waves=4x2,stages=2,mfma=32x32x8,splitk=1,path=direct,c=lds,remap=1,groupm=0,kind=pingpong
Q3=tile=128x128x64,waves=2x2,stages=2,mfma=16x16x16,splitk=1,path=registers,c=direct,remap=1,groupm=0,kind=plain
R3=tile=128x128x32,waves=2x2,stages=2,mfma=16x16x16,splitk=1,path=direct,c=direct,remap=1,groupm=0,kind=plain
S3=tile=64x64x128,waves=2x2,stages=1,mfma=16x16x16,splitk=2,path=registers,c=lds,remap=0,groupm=4,kind=plain
for c in $P $Q $R $S; do
  run --arch mi355x --gemm 2048 2048 2048 "$c"
  run --arch mi355x --gemm 1024 1024 4096 "$c" --sampled
done
for c in $P3 $Q3 $R3 $S3; do
  run --arch mi300x --gemm 1024 2048 1024 "$c"
done
run --arch mi300x --gemm 2048 2048 2048 "$Q3" --sampled
run --arch mi355x --gemm 16 8192 4096 "$T"
run --arch mi355x --gemm 64 4096 8192 "$T" --window 7
run --arch mi355x --gemm 4096 4096 2048 "$Q"
run --arch mi355x --gemm 4096 4096 2048 "$P" --warm
if grep -l -i -E 'error|usage:' "$out"/*.txt >/dev/null 2>&1; then
  echo "runs that did not simulate (a bad config or arch?):" >&2
  grep -l -i -E 'error|usage:' "$out"/*.txt >&2
  exit 1
fi
echo "$i runs in $out"
