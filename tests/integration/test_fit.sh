#!/usr/bin/env bash
# mw fit --model escobar (Escobar et al., eq. 3-9) end to end: three short eeg-mofs v3 runs (3 MPI
# ranks, N_Spop 1, 2, 3: 1, 1 and 2 rounds of chunks of 48, 24, 16 individuals) recorded on the simulated board with a switch channel; predict mode
# (each run's own parameters, then one run as --calibration) and fit mode exit 0 with one
# row per run, the NRMSE line with the paper's values, finite predicted times within a
# generous factor of the measured ones, a plot table with a header and 3 rows, JSON without
# NaN/inf; bad usage exits 2 naming the option, a run without the program's counters exits
# 2 naming the missing parameter, a fit with too few runs exits 2 saying so.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

EEG=$(abs "$BUILD/bin/eeg-mofs")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
SMALL=(--patterns 60 --features 240 --individuals 48 --generations 20 --global-every 10
       --threads 1 --kmeans-iters 10 --strategy v3 -q)

record() { # record NAME SUBPOPS
  "$MW" record -q -o "$TMP/$1" --meter sim --channels n0,n1,n2,switch -- \
    mpirun --oversubscribe -np 3 "$EEG" "${SMALL[@]}" --subpops "$2" >"$TMP/$1.out" 2>&1
}

setup() {
  for s in 1 2 3; do
    record "s$s" "$s"
    expect_eq "record s$s: exit" "$?" 0
  done
  RUNS=("$TMP/s1" "$TMP/s2" "$TMP/s3")
}

# ratios TABLE: every predicted time finite and within [1/5, 5] of the measured one
ratios_ok() {
  awk '!/^#/ { n++; if ($3 <= 0 || $4 <= 0 || $4 / $3 > 5 || $3 / $4 > 5 || $6 <= 0) bad++ }
       END { exit !(n == 3 && !bad) }' "$1"
}

predict_own() {
  "$MW" fit --model escobar "${RUNS[@]}" --table "$TMP/p.tab" >"$TMP/p.txt" 2>"$TMP/p.err"
  expect_eq "predict: exit" "$?" 0
  expect_eq "predict: rows" "$(grep -c '^v3 .* [0-9.]* *[0-9.]*  /.*/s[123]$' "$TMP/p.txt")" 6
  expect_grep "predict: N_Spop 3 row, 2 rounds" "^v3 *3 *48 *2 " "$TMP/p.txt"
  expect_eq "predict: table rows" "$(grep -vc '^#' "$TMP/p.tab")" 3
  expect_grep "predict: NRMSE with the paper's" "^v3 *3 .* 0.787 .* 0.744" "$TMP/p.txt"
  expect_grep "predict: table header" "^# version n_spop t_measured_s t_predicted_s" "$TMP/p.tab"
  check "predict: times within a factor 5, energies > 0" ratios_ok "$TMP/p.tab"
  cat "$TMP/p.txt"
}

predict_json() {
  "$MW" fit --model escobar "${RUNS[@]}" --json >"$TMP/j.json" 2>"$TMP/j.err"
  expect_eq "json: exit" "$?" 0
  expect_eq "json: runs" "$(grep -c '"run": ' "$TMP/j.json")" 3
  expect_grep "json: nrmse" '"paper_time": 0.787' "$TMP/j.json"
  expect_grep "json: the switch" '"switch": {"channel": "switch"' "$TMP/j.json"
  expect_eq "json: no NaN/inf" "$(grep -ciE 'nan|inf' "$TMP/j.json")" 0
}

predict_calibrated() {
  "$MW" fit --model escobar "${RUNS[@]}" --calibration "$TMP/s2" --table "$TMP/c.tab" \
    >"$TMP/c.txt" 2>&1
  expect_eq "calibrated: exit" "$?" 0
  check "calibrated: times within a factor 5" ratios_ok "$TMP/c.tab"
}

fit_mode() {
  "$MW" fit --model escobar --mode fit "${RUNS[@]}" --table "$TMP/f.tab" >"$TMP/f.txt" 2>&1
  expect_eq "fit: exit" "$?" 0
  expect_grep "fit: parameters" "^fitted parameters, v3 (3 runs, 1 dof" "$TMP/f.txt"
  expect_grep "fit: t_cpu_s with an interval" "^  t_cpu_s .*\[" "$TMP/f.txt"
  check "fit: times within a factor 5" ratios_ok "$TMP/f.tab"
  cat "$TMP/f.txt"
  "$MW" fit --model escobar --mode fit "$TMP/s1" >/dev/null 2>"$TMP/f1.err"
  expect_eq "fit, one run: exit" "$?" 2
  expect_grep "fit, one run: says why" "the fit needs at least 2" "$TMP/f1.err"
}

bad_usage() {
  "$MW" fit "${RUNS[@]}" >/dev/null 2>"$TMP/u1.err"
  expect_eq "no --model: exit" "$?" 2
  expect_grep "no --model: named" "missing --model" "$TMP/u1.err"
  "$MW" fit --model amdahl "$TMP/s2" >/dev/null 2>"$TMP/u2.err"
  expect_eq "unknown model: exit" "$?" 2
  expect_grep "unknown model: named" "\-\-model 'amdahl'" "$TMP/u2.err"
  "$MW" fit --model escobar --mode guess "$TMP/s2" >/dev/null 2>"$TMP/u3.err"
  expect_eq "bad --mode: exit" "$?" 2
  expect_grep "bad --mode: named" "\-\-mode 'guess'" "$TMP/u3.err"
  "$MW" fit --model escobar >/dev/null 2>"$TMP/u4.err"
  expect_eq "no runs: exit" "$?" 2
  "$MW" fit --model escobar "$TMP/nothing" >/dev/null 2>"$TMP/u5.err"
  expect_eq "not a run: exit" "$?" 2
  expect_grep "not a run: named" "not a run" "$TMP/u5.err"
  # a run of another program: no eeg counters -> the missing parameter is named
  "$MW" record -q -o "$TMP/true" --meter sim -- true >/dev/null 2>&1
  "$MW" fit --model escobar "$TMP/true" >/dev/null 2>"$TMP/u6.err"
  expect_eq "no counters: exit" "$?" 2
  expect_grep "no counters: the parameter" "missing parameter the version: no counter 'eeg version'" "$TMP/u6.err"
  "$MW" fit --help >"$TMP/help.txt"
  expect_eq "--help: exit" "$?" 0
  expect_grep "--help: usage" "usage: mw fit --model escobar" "$TMP/help.txt"
}

run_case setup
run_case predict_own
run_case predict_json
run_case predict_calibrated
run_case fit_mode
run_case bad_usage
finish
