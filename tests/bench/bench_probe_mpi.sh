#!/usr/bin/env bash
# bench_probe_mpi — what libmwprobe's MPI layer costs, as a Markdown section for
# docs/performance.md: the time added per intercepted MPI call on a 0-byte ping-pong
# (2 ranks on this machine, shared memory; each round trip is 2 calls per rank), inert
# (no MW_RUN_DIR) vs recording, and the clock-sync uncertainty the sync reports (every rank
# measured with MW_PROBE_SYNC_ALL=1, on one host: the floor of the method here).
set -u
cd "$(dirname "$0")/../.." || exit 2
BUILD=${MW_BUILD:-build}
T=$(mktemp -d /tmp/mw-bench-mpi-XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
LIB=$(pwd)/$BUILD/lib
mpicc -O2 tests/bench/pingpong.c -o "$T/plain" || exit 1
mpicc -O2 tests/bench/pingpong.c -L"$LIB" -lmwprobe -Wl,-rpath,"$LIB" -o "$T/probe" || exit 1
N=200000
best() { # best of 3 runs, ns per round trip
  for _ in 1 2 3 4 5; do "$@"; done | sort -n | head -1
}
plain=$(best env -u MW_RUN_DIR mpirun -np 2 "$T/plain" $N)
inert=$(best env -u MW_RUN_DIR mpirun -np 2 "$T/probe" $N)
active=$(best mpirun -np 2 -x MW_RUN_DIR="$T/run" "$T/probe" $N)
mkdir -p "$T/sync"
mpicc -O1 -fopenmp -Icollector/probe tests/integration/mpi_phases.c -L"$LIB" -lmwprobe \
  -Wl,-rpath,"$LIB" -o "$T/phases" || exit 1
mpirun --oversubscribe -np 3 -x MW_RUN_DIR="$T/sync" -x MW_PROBE_SYNC_ALL=1 "$T/phases" >/dev/null
unc=$(awk -F'\t' '$1 == "C" && $4 > 0 { print $4 / 1000 }' "$T"/sync/probe/*.mwp | sort -n |
  awk '{ v[NR] = $1 } END { if (NR) printf "%.1f / %.1f µs over %d samples", v[int((NR + 1) / 2)], v[NR], NR; else print "none" }')
echo "## Instrumentation: MPI layer"
echo
echo "\`make bench\` (tests/bench/bench_probe_mpi.sh): 0-byte \`MPI_Send\`/\`MPI_Recv\` ping-pong between 2 ranks on this machine (Open MPI, shared memory), $N round trips, best of 5 runs each; the machine has 2 cores, so differences of a few hundred ns are noise."
echo
echo "| program | ns per round trip | ns added per MPI call |"
echo "|---|---|---|"
echo "| not instrumented | $plain | — |"
awk -v p="$plain" -v i="$inert" -v a="$active" 'BEGIN {
  printf "| libmwprobe linked, inert (no MW_RUN_DIR) | %s | %.1f |\n", i, (i - p) / 2
  printf "| libmwprobe linked, recording | %s | %.1f |\n", a, (a - p) / 2 }'
echo
echo "Clock sync (ping-pong with the reference rank, best of 20 exchanges, at MPI_Init and MPI_Finalize; 3 ranks on one host, all measured): uncertainty median / worst $unc."
