#!/usr/bin/env bash
# libmwprobe's OMPT tool (collector/probe/probe_ompt.c) on an OpenMP program with known
# parallel regions (tests/integration/omp_phases.c: 100 ms sleep, 150 ms compute, 200 ms
# sleep, 3 threads each), built here with clang -fopenmp (LLVM libomp). The truth is what
# the program was built to do plus the CLOCK_REALTIME stamps it prints just outside each
# region; the spill file must hold the 3 regions, in order, on the encountering thread,
# with their durations (within 20 %) and times (within 20 ms of the program's stamps), and
# names that addr2line maps to the lines of the #pragmas. The tool is found four ways: the
# program linked with -lmwprobe, libmwprobe.so in LD_PRELOAD, in OMP_TOOL_LIBRARIES, and
# libmwprobe.a linked with -u ompt_start_tool. With
# MW_PROBE_OMP_TASKS=1: per-thread implicit-task events. Built with gcc: nothing on libgomp
# (no OMPT), the regions on LLVM's libomp preloaded. Built with ASan/UBSan: no report.
# Without MW_RUN_DIR: no tool, no file.
# Skipped (passing) where clang -fopenmp cannot build a program.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

LIBDIR=$(cd "$BUILD/lib" 2>/dev/null && pwd)
PROBE_SO=$LIBDIR/libmwprobe.so
SRC=tests/integration/omp_phases.c
NOMINAL_MS=(0 100 150 200) # region k lasts NOMINAL_MS[k]

if ! command -v clang >/dev/null ||
  ! echo 'int main(void) { return 0; }' | clang -fopenmp -x c - -o "$TMP/hello" 2>/dev/null; then
  echo "SKIP: clang -fopenmp cannot build a program here (packages clang, libomp-dev)"
  exit 0
fi
if [ ! -e "$PROBE_SO" ]; then echo "missing $BUILD/lib/libmwprobe.so: run make all"; exit 1; fi
clang -std=c11 -O2 -g -fopenmp "$SRC" -o "$TMP/omp_plain" || exit 1
# --no-as-needed: the program calls nothing of libmwprobe, yet must load it
clang -std=c11 -O2 -g -fopenmp "$SRC" -o "$TMP/omp_linked" \
  -L"$LIBDIR" -Wl,--no-as-needed -lmwprobe -Wl,-rpath,"$LIBDIR" || exit 1

# events RUNDIR PREFIX: the kind-4 (omp) events whose name starts with PREFIX, one per line
# "tid t0_ns t1_ns name" in file order (check_regions checks there is one spill file).
events() {
  cat "$1"/probe/*.mwp 2>/dev/null | awk -F'\t' -v p="$2" '$1 == "N" { name[$2] = $3 }
    $1 == "E" && $3 == 4 && index(name[$4], p) == 1 { print $2 "\t" $5 "\t" $6 "\t" name[$4] }'
}

# stamp OUT K FIELD: the program's stamp of region K (FIELD 3: before, 4: after).
stamp() { awk -v k="$2" -v f="$3" '$1 == "region" && $2 == k { print $f }' "$1"; }

# check_regions RUNDIR PROGRAM_OUTPUT BINARY: the 3 "omp parallel" events against the truth.
check_regions() {
  local run=$1 out=$2 bin=$3 ev
  expect_eq "spill files" "$(find "$run/probe" -name '*.mwp' 2>/dev/null | wc -l)" 1
  ev=$(events "$run" "omp parallel")
  expect_eq "program's team size" "$(awk '$1 == "threads" { print $2 }' "$out")" 3
  expect_eq "parallel regions recorded" "$(printf '%s\n' "$ev" | grep -c .)" 3
  expect_eq "all on the encountering (main) thread" "$(printf '%s\n' "$ev" | cut -f1 | sort -u)" 0
  expect_eq "three distinct names" "$(printf '%s\n' "$ev" | cut -f4 | sort -u | grep -c .)" 3
  [ -n "$ev" ] || return
  local pragma_lines k=0 prev_t1=0 t0 t1 name
  pragma_lines=$(grep -n '^#pragma omp parallel' "$SRC" | cut -d: -f1 | tr '\n' ' ')
  while IFS=$'\t' read -r _ t0 t1 name; do
    k=$((k + 1))
    local nom=${NOMINAL_MS[$k]} p0 p1
    p0=$(stamp "$out" "$k" 3)
    p1=$(stamp "$out" "$k" 4)
    # the known duration, unless the machine was too busy to keep it (the program's own
    # stamps say so); the stamps, below, bound the event in any case
    if awk -v d="$((p1 - p0))" -v n="$nom" 'BEGIN { exit !(d >= 0.8 * n * 1e6 && d <= 1.2 * n * 1e6) }'; then
      expect_num "region $k duration (ms)" "$(((t1 - t0) / 1000000))" \
        "$((nom * 8 / 10))" "$((nom * 12 / 10))"
    else
      echo "  NOTE: region $k took $(((p1 - p0) / 1000000)) ms by the program's clock, not $nom (busy machine)"
    fi
    # inside the program's stamps (the point: 0 at least, so no region covers the 40 ms of
    # serial sleep between them), and close to them: within 60 ms (a few ms on a quiet
    # machine; a thread descheduled between its stamp and the runtime's callback on a
    # loaded 2-core one waits some tens of ms; a stamp at the wrong edge of a region is
    # off by its 100-200 ms)
    expect_num "region $k begins after the program's stamp (ms)" \
      "$(awk -v a="$t0" -v b="$p0" 'BEGIN { print (a - b) / 1e6 }')" 0 60
    expect_num "region $k ends before the program's stamp (ms)" \
      "$(awk -v a="$p1" -v b="$t1" 'BEGIN { print (a - b) / 1e6 }')" 0 60
    check "region $k after region $((k - 1))" test "$t0" -ge "$prev_t1"
    prev_t1=$t1
    # "omp parallel @MODULE+0xOFF": addr2line gives the line of the k-th #pragma
    local module=${name#omp parallel @} off line
    off=${module##*+}
    module=${module%+*}
    expect_eq "region $k module" "$module" "$(basename "$bin")"
    if command -v addr2line >/dev/null; then
      line=$(addr2line -e "$bin" "$off" | sed 's/.*://; s/ .*//')
      expect_eq "region $k source line" "$line" "$(echo "$pragma_lines" | cut -d' ' -f$k)"
    fi
  done <<<"$ev"
  expect_eq "regions checked" "$k" 3
}

linked() {
  local run=$TMP/linked
  MW_RUN_DIR=$run OMP_TOOL_VERBOSE_INIT=stderr "$TMP/omp_linked" >"$TMP/linked.out" \
    2>"$TMP/linked.err"
  expect_eq "exit status" "$?" 0
  expect_grep "libomp started the tool" "Tool was started and is using the OMPT interface" \
    "$TMP/linked.err"
  check_regions "$run" "$TMP/linked.out" "$TMP/omp_linked"
  expect_eq "no implicit tasks unless asked" "$(events "$run" "omp implicit task" | grep -c .)" 0
}

preloaded() {
  local run=$TMP/preload
  MW_RUN_DIR=$run LD_PRELOAD=$PROBE_SO "$TMP/omp_plain" >"$TMP/preload.out"
  expect_eq "exit status" "$?" 0
  check_regions "$run" "$TMP/preload.out" "$TMP/omp_plain"
}

# libmwprobe.a: the tool is pulled in only when asked for (-u ompt_start_tool).
static_lib() {
  clang -std=c11 -O2 -g -fopenmp "$SRC" -o "$TMP/omp_static" -Wl,-u,ompt_start_tool \
    "$LIBDIR/libmwprobe.a" -pthread
  expect_eq "links with libmwprobe.a" "$?" 0
  MW_RUN_DIR=$TMP/static "$TMP/omp_static" >"$TMP/static.out"
  expect_eq "exit status" "$?" 0
  check_regions "$TMP/static" "$TMP/static.out" "$TMP/omp_static"
}

tool_libraries() {
  local run=$TMP/toollib
  MW_RUN_DIR=$run OMP_TOOL_LIBRARIES=$PROBE_SO "$TMP/omp_plain" >"$TMP/toollib.out"
  expect_eq "exit status" "$?" 0
  check_regions "$run" "$TMP/toollib.out" "$TMP/omp_plain"
}

# MW_PROBE_OMP_TASKS=1: every thread's work in each region (barrier waits left out) as the
# program measured it; region 1 has a barrier inside (omp single): 2 stretches a thread.
implicit_tasks() {
  local run=$TMP/tasks out=$TMP/tasks.out ev
  MW_RUN_DIR=$run MW_PROBE_OMP_TASKS=1 "$TMP/omp_linked" >"$out"
  expect_eq "exit status" "$?" 0
  check_regions "$run" "$out" "$TMP/omp_linked"
  ev=$(events "$run" "omp implicit task")
  expect_eq "threads with implicit tasks" "$(printf '%s\n' "$ev" | cut -f1 | sort -u | grep -c .)" 3
  local k want_n in got want i
  for k in 1 2 3; do
    in=$(printf '%s\n' "$ev" | awk -F'\t' -v a="$(stamp "$out" "$k" 3)" -v b="$(stamp "$out" "$k" 4)" \
      '$2 >= a && $3 <= b')
    want_n=3
    [ "$k" = 1 ] && want_n=6
    expect_eq "region $k: stretches of work" "$(printf '%s\n' "$in" | grep -c .)" "$want_n"
    expect_eq "region $k: threads" "$(printf '%s\n' "$in" | cut -f1 | sort -u | grep -c .)" 3
    # per-thread work, sorted (the probe's thread ids are not OpenMP's thread numbers)
    mapfile -t got < <(printf '%s\n' "$in" | awk -F'\t' '{ w[$1] += $3 - $2 } END { for (t in w) print w[t] / 1e6 }' | sort -g)
    mapfile -t want < <(awk -v k="$k" '$1 == "work" && $2 == k { print $4 / 1e6 }' "$out" | sort -g)
    expect_eq "region $k: threads the program saw" "${#want[@]}" 3
    # within 25 ms of the program's own measure (3 threads on 2 loaded cores: one may be
    # descheduled between its stamp and the runtime's callback for a timeslice or more)
    for i in 0 1 2; do
      expect_num "region $k: work of thread $i in order (ms; program: ${want[$i]:-})" "${got[$i]:-}" \
        "$(awk -v x="${want[$i]:-0}" 'BEGIN { print x - 25 }')" "$(awk -v x="${want[$i]:-0}" 'BEGIN { print x + 25 }')"
    done
  done
}

# GCC: libgomp has no OMPT, so nothing is recorded; the same gcc-built binary run on LLVM's
# libomp (which has libgomp's entry points) records its regions.
gcc_binary() {
  gcc -std=c11 -O2 -g -fopenmp "$SRC" -o "$TMP/omp_gcc"
  expect_eq "gcc -fopenmp builds it" "$?" 0
  MW_RUN_DIR=$TMP/gomp LD_PRELOAD=$PROBE_SO "$TMP/omp_gcc" >"$TMP/gomp.out"
  expect_eq "libgomp: exit status" "$?" 0
  expect_eq "libgomp: omp events" "$(cat "$TMP"/gomp/probe/*.mwp 2>/dev/null | awk -F'\t' '$1 == "E" && $3 == 4' | wc -l)" 0
  local libomp
  libomp=$(ldd "$TMP/omp_plain" | awk '$1 ~ /^libomp/ { print $3 }')
  check "libomp found ($libomp)" test -f "$libomp"
  MW_RUN_DIR=$TMP/gcc-libomp LD_PRELOAD="$libomp $PROBE_SO" "$TMP/omp_gcc" >"$TMP/gcc-libomp.out"
  expect_eq "on libomp: exit status" "$?" 0
  check_regions "$TMP/gcc-libomp" "$TMP/gcc-libomp.out" "$TMP/omp_gcc"
}

# The tool and the probe core compiled into the program with ASan and UBSan (clang): the
# same checks, implicit tasks on, and no report from the sanitizers.
sanitized() {
  clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
    -fno-omit-frame-pointer -fopenmp -pthread -Icollector -Icollector/probe \
    "$SRC" collector/probe/probe.c collector/probe/probe_ompt.c -o "$TMP/omp_asan"
  expect_eq "clang -fsanitize builds it" "$?" 0
  MW_RUN_DIR=$TMP/asan MW_PROBE_OMP_TASKS=1 ASAN_OPTIONS=detect_leaks=1 "$TMP/omp_asan" \
    >"$TMP/asan.out" 2>"$TMP/asan.err"
  expect_eq "exit status" "$?" 0
  check "no sanitizer report" test ! -s "$TMP/asan.err"
  sed 's/^/    /' "$TMP/asan.err" | head -20
  check_regions "$TMP/asan" "$TMP/asan.out" "$TMP/omp_asan"
  expect_eq "implicit-task events" "$(events "$TMP/asan" "omp implicit task" | wc -l)" 12
}

# No MW_RUN_DIR: ompt_start_tool says no, so libomp runs without a tool; nothing written.
inert() {
  mkdir -p "$TMP/inert"
  (cd "$TMP/inert" && env -u MW_RUN_DIR -u MW_PROBE_DIR OMP_TOOL_VERBOSE_INIT=stderr \
    LD_PRELOAD=$PROBE_SO "$TMP/omp_plain" >../inert.out 2>../inert.err)
  expect_eq "exit status" "$?" 0
  expect_eq "program output" "$(grep -c '^region [123] ' "$TMP/inert.out")" 3
  expect_grep "tool declined" "Search for OMP tool in current address space... Failed" \
    "$TMP/inert.err"
  check "no tool started" bash -c "! grep -q 'Tool was started' '$TMP/inert.err'"
  expect_eq "files written" "$(find "$TMP/inert" -mindepth 1 | wc -l)" 0
  (cd "$TMP/inert" && env -u MW_RUN_DIR -u MW_PROBE_DIR "$TMP/omp_linked" >/dev/null)
  expect_eq "linked: exit status" "$?" 0
  expect_eq "linked: files written" "$(find "$TMP/inert" -mindepth 1 | wc -l)" 0
}

run_case linked
run_case preloaded
run_case tool_libraries
run_case static_lib
run_case implicit_tasks
run_case gcc_binary
run_case sanitized
run_case inert
finish
