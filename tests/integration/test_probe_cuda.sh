#!/usr/bin/env bash
# libmwprobe_cuda (collector/probe/probe_cuda.cu, mwprobe_cuda.h): GPU phases from CUDA
# events. tests/integration/cuda_phases.cu is built here with nvcc wherever nvcc is; it puts
# on one stream a 64 MiB copy in, kernels spinning 50, 100 and 150 ms on the GPU's own
# timer, and a 64 MiB copy out, each waited for, and prints the host's CLOCK_REALTIME just
# before queueing each item and just after it finished. On a machine with a GPU
# (`nvidia-smi -L` lists one) the spill file must hold the 5 GPU events in order, with their
# bytes, the kernels' durations (within 20 %), and each event inside the host's interval
# (within the recorded anchor uncertainty + 1 ms); without MW_RUN_DIR no file is written.
# Without a GPU those cases are skipped (saying why) and the API is checked to be harmless:
# no device, no event, no crash. Everywhere the library is also run on a simulated GPU
# (cuda_fake.c) whose true timeline is known, also under ASan/UBSan. Skipped (passing) where
# nvcc is not installed.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

# the same nvcc as the Makefile's; gcc gets the include directory nvcc itself uses
if ! NVCC=$(scripts/nvcc.sh); then echo "SKIP: no nvcc (the CUDA layer is built only with it)"; exit 0; fi
if ! CUDA_INC=$(scripts/nvcc.sh --include); then
  echo "$NVCC --dryrun names no include directory holding cuda_runtime_api.h"; exit 1
fi
LIBDIR=$(cd "$BUILD/lib" 2>/dev/null && pwd)
if [ ! -e "$LIBDIR/libmwprobe_cuda.so" ]; then
  echo "missing $BUILD/lib/libmwprobe_cuda.so: run make all"; exit 1
fi
COPY_BYTES=67108864

builds() {
  "$NVCC" -std=c++17 -O2 -cudart shared -Xcompiler -Wall,-Wextra,-Werror -Icollector/probe \
    tests/integration/cuda_phases.cu -o "$TMP/cuda_phases" \
    -L"$LIBDIR" -lmwprobe_cuda -lmwprobe -Xlinker -rpath,"$LIBDIR" 2>"$TMP/nvcc.err"
  expect_eq "nvcc builds cuda_phases.cu" "$?" 0
  sed 's/^/    /' "$TMP/nvcc.err"
  expect_eq "it calls the API from the library" \
    "$(nm -D --undefined-only "$TMP/cuda_phases" 2>/dev/null | grep -c ' mw_cuda_')" 4
  # a C program can use the header too
  printf '%s\n' '#include "mwprobe_cuda.h"' \
    'int main(void) { mw_cuda_begin("k", 0); mw_cuda_end("k", 0, 0);' \
    '  int n = mw_cuda_collect(); mw_cuda_finish(); return n; }' >"$TMP/nodev.c"
  gcc -std=c11 -Wall -Wextra -Werror -Icollector/probe -I"$CUDA_INC" "$TMP/nodev.c" \
    -o "$TMP/nodev" -L"$LIBDIR" -lmwprobe_cuda -lmwprobe -Wl,-rpath,"$LIBDIR"
  expect_eq "gcc builds a C caller" "$?" 0
}

# No GPU: every call finds no device and returns; nothing is recorded, nothing crashes.
no_device() {
  local run=$TMP/nodev-run
  MW_RUN_DIR=$run "$TMP/nodev"
  expect_eq "exit status (ranges left pending)" "$?" 0
  expect_eq "GPU events" "$(cat "$run"/probe/*.mwp 2>/dev/null | awk -F'\t' '$1 == "E" && $3 == 5' | wc -l)" 0
}

# The library on a simulated GPU (tests/integration/cuda_fake.c: 2 devices, clocks 1000 ppm
# fast and 4242 s behind / 777 s ahead): each event's host times must be the true ones
# within the anchor's recorded uncertainty + the drift since that anchor + 200 us (the
# fake reads its two clocks one after the other: a preemption between them on a loaded
# 2-core machine added up to 3 us beyond the former 20 us); a device
# idle for over 1 s is re-anchored; ranges nest, overlap across streams, live on either
# device, are emitted at exit when still pending; an end without a begin and a begin
# without an end leave no event.
fake_gpu() {
  local run=$TMP/fake out=$TMP/fake.out spill
  gcc -std=c11 -O2 -Wall -Wextra -Werror -Icollector/probe -I"$CUDA_INC" \
    tests/integration/cuda_fake.c -o "$TMP/cuda_fake" -rdynamic \
    -L"$LIBDIR" -lmwprobe_cuda -lmwprobe -Wl,-rpath,"$LIBDIR"
  expect_eq "gcc builds cuda_fake.c" "$?" 0
  MW_RUN_DIR=$run "$TMP/cuda_fake" >"$out"
  expect_eq "exit status" "$?" 0
  spill=$(ls "$run"/probe/*.mwp 2>/dev/null | head -1)
  check "a spill file" test -f "$spill"
  [ -f "$spill" ] || return
  expect_eq "GPU events" "$(awk -F'\t' '$1 == "N" { n[$2] = $3 } $1 == "E" && $3 == 5 { print n[$4] }' "$spill" | sort | tr '\n' ' ')" \
    "a40 b20 dev1 inner k1 last late outer p50 "
  expect_num "ranges pending right after p50 ended" "$(awk '$1 == "pending_now" { print $2 }' "$out")" 1 2
  expect_eq "ranges pending 20 ms after p50's end" "$(awk '$1 == "pending_later" { print $2 }' "$out")" 0
  expect_num "anchors taken" "$(awk -F'\t' '$1 == "N" && $3 == "cuda anchor uncertainty ns" { id = $2 }
    $1 == "E" && $3 == 7 && $4 == id { c++ } END { print c + 0 }' "$spill")" 3 4
  # one line per expected event: name, error of t0 and t1 (us), allowed (us), bytes ok, anchor age (ms)
  awk -F'\t' -v drift="$(awk '$1 == "fake_t0" { print $4 }' "$out")" '
    FILENAME != ARGV[1] { split($0, f, " "); if (f[1] == "expect") { want[f[2]] = f[3] " " f[4] " " f[5]; order[++n] = f[2] }; next }
    $1 == "N" { name[$2] = $3 }
    $1 == "E" && $3 == 7 && name[$4] == "cuda anchor uncertainty ns" { at[++na] = $5; unc[na] = $7 }
    $1 == "E" && $3 == 5 { got[name[$4]] = $5 " " $6 " " $7 }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]; split(want[k], w, " "); split(got[k], g, " ")
        a = 0; for (j = 1; j <= na; j++) if (at[j] <= g[1]) a = j
        allow = (a ? unc[a] + drift * 1e-6 * (g[2] - at[a]) : 0) + 200000
        printf "%s %.1f %.1f %.1f %d %.1f\n", k, (g[1] - w[1]) / 1e3, (g[2] - w[2]) / 1e3, allow / 1e3,
          g[3] == w[3], a ? (g[1] - at[a]) / 1e6 : -1
      }
    }' "$spill" "$out" >"$TMP/fake.err"
  expect_eq "expected events" "$(wc -l <"$TMP/fake.err")" 9
  local name e0 e1 allow bytes_ok age
  while read -r name e0 e1 allow bytes_ok age; do
    expect_num "$name: begin error (us)" "$e0" "-$allow" "$allow"
    expect_num "$name: end error (us)" "$e1" "-$allow" "$allow"
    expect_eq "$name: bytes" "$bytes_ok" 1
    [ "$name" = late ] && expect_num "late: re-anchored, anchor age (ms)" "$age" 0 20
  done <"$TMP/fake.err"
}

# The same on the library's code compiled as plain C++ (it is host code only) with the probe
# core, under ASan and UBSan: no report, all 9 events.
fake_gpu_sanitized() {
  local san="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  local inc="-Icollector -Icollector/probe -I$CUDA_INC"
  g++ $san $inc -D_GNU_SOURCE -std=c++17 -Wall -Wextra -Werror -x c++ \
    -c collector/probe/probe_cuda.cu -o "$TMP/probe_cuda_asan.o" &&
    gcc $san $inc -D_GNU_SOURCE -std=c11 -c collector/probe/probe.c -o "$TMP/probe_asan.o" &&
    gcc $san $inc -std=c11 -Wall -Wextra -Werror -c tests/integration/cuda_fake.c -o "$TMP/fake_asan.o" &&
    g++ $san "$TMP/fake_asan.o" "$TMP/probe_cuda_asan.o" "$TMP/probe_asan.o" -o "$TMP/fake_asan" -pthread
  expect_eq "builds with -fsanitize" "$?" 0
  MW_RUN_DIR=$TMP/fake-asan ASAN_OPTIONS=detect_leaks=1 "$TMP/fake_asan" >/dev/null 2>"$TMP/fake-asan.err"
  expect_eq "exit status" "$?" 0
  check "no sanitizer report" test ! -s "$TMP/fake-asan.err"
  sed 's/^/    /' "$TMP/fake-asan.err" | head -20
  expect_eq "GPU events" "$(cat "$TMP"/fake-asan/probe/*.mwp 2>/dev/null | awk -F'\t' '$1 == "E" && $3 == 5' | wc -l)" 9
}

# gpu_events: the truth is the program's design and its host stamps.
gpu_events() {
  local run=$TMP/gpu out=$TMP/gpu.out spill
  MW_RUN_DIR=$run "$TMP/cuda_phases" >"$out" 2>"$TMP/gpu.err"
  expect_eq "exit status" "$?" 0
  sed 's/^/    /' "$TMP/gpu.err"
  spill=$(ls "$run"/probe/*.mwp 2>/dev/null | head -1)
  check "a spill file" test -f "$spill"
  [ -f "$spill" ] || return
  awk -F'\t' '$1 == "N" { n[$2] = $3 } $1 == "E" && $3 == 5 { print n[$4] "\t" $5 "\t" $6 "\t" $7 }' \
    "$spill" >"$TMP/gpu.ev"
  expect_eq "GPU events in order" "$(cut -f1 "$TMP/gpu.ev" | tr '\n' ' ')" "h2d spin50 spin100 spin150 d2h "
  local unc_ms
  unc_ms=$(awk -F'\t' '$1 == "N" { n[$2] = $3 }
    $1 == "E" && $3 == 7 && n[$4] == "cuda anchor uncertainty ns" { if ($7 > m) m = $7; c++ }
    END { if (c) print m / 1e6 }' "$spill")
  expect_num "anchor uncertainty recorded (ms)" "$unc_ms" 0 1
  local name t0 t1 bytes h0 h1
  while IFS=$'\t' read -r name t0 t1 bytes; do
    read -r h0 h1 < <(awk -v n="$name" '$1 == "gpu" && $2 == n { print $3, $4 }' "$out")
    case $name in
    spin*)
      local nom=${name#spin}
      expect_num "$name duration (ms)" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e6 }')" \
        "$nom" "$((nom * 12 / 10))"
      expect_eq "$name bytes" "$bytes" 0 ;;
    *) expect_eq "$name bytes" "$bytes" "$COPY_BYTES"
      check "$name has a duration" test "$t1" -gt "$t0" ;;
    esac
    expect_num "$name starts after it was queued (ms)" \
      "$(awk -v a="$t0" -v h="$h0" 'BEGIN { print (a - h) / 1e6 }')" "-$(awk -v u="${unc_ms:-0}" 'BEGIN { print u + 1 }')" 1000
    expect_num "$name ends before the host saw it end (ms)" \
      "$(awk -v b="$t1" -v h="$h1" 'BEGIN { print (h - b) / 1e6 }')" "-$(awk -v u="${unc_ms:-0}" 'BEGIN { print u + 1 }')" 1000
  done <"$TMP/gpu.ev"
}

gpu_inert() {
  mkdir -p "$TMP/inert"
  (cd "$TMP/inert" && env -u MW_RUN_DIR -u MW_PROBE_DIR "$TMP/cuda_phases" >../inert.out)
  expect_eq "exit status" "$?" 0
  expect_eq "program output" "$(grep -c '^gpu ' "$TMP/inert.out")" 5
  expect_eq "files written" "$(find "$TMP/inert" -mindepth 1 | wc -l)" 0
}

run_case builds
run_case fake_gpu
command -v g++ >/dev/null && run_case fake_gpu_sanitized
if gpus=$(nvidia-smi -L 2>&1) && [ -n "$gpus" ]; then
  echo "GPU: $gpus"
  run_case gpu_events
  run_case gpu_inert
else
  echo "SKIP gpu_events, gpu_inert: no GPU here (nvidia-smi -L: ${gpus:-nothing})"
  run_case no_device
fi
finish
