#!/usr/bin/env bash
# mw dvfs end to end: a run of tests/integration/mpi_phases.c (2 ranks, known phases) recorded
# under mw record on the simulated board; mw dvfs --freqs reads each rank's computation and
# communication times from its phases (compute 200 ms + rest 100 ms + threads 100 ms of
# computation; barriers and the 1 MiB message are communication), picks gears with every
# method, and prints sane figures (text and JSON, no NaN, MaxDist within the oracle's best,
# the gears from the list); bad usage exits 2 naming the option.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
PROG=$TMP/mpi_phases
R=$TMP/run
FREQS=2.5,2.3,2.1,1.9,1.7,1.5,1.3,1.1

record_run() {
  mpicc -O1 -fopenmp -Icollector/probe tests/integration/mpi_phases.c -L"$BUILD/lib" -lmwprobe \
    -Wl,-rpath,"$(pwd)/$BUILD/lib" -o "$PROG" || { echo "  FAIL: cannot build the test program"; CASE_OK=0; return; }
  "$MW" record -q -o "$R" --meter sim -- mpirun --oversubscribe -np 2 "$PROG" >"$TMP/rec.out" 2>&1
  expect_eq "record exit" "$?" 0
}

text_report() {
  "$MW" dvfs "$R" --freqs "$FREQS" >"$TMP/text.out" 2>"$TMP/text.err"
  expect_eq "exit" "$?" 0
  expect_grep "rank table" "T_cp (s)" "$TMP/text.out"
  for m in maxdist edp rr oracle; do expect_grep "method $m" "^$m " "$TMP/text.out"; done
  if grep -qiE 'nan|inf' "$TMP/text.out"; then echo "  FAIL: NaN/inf in the report"; CASE_OK=0; fi
}

json_report() {
  "$MW" dvfs "$R" --freqs "$FREQS" --pd 20 --json >"$TMP/j.json" 2>"$TMP/j.err"
  expect_eq "exit" "$?" 0
  local out
  out=$(python3 - "$TMP/j.json" "$FREQS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
freqs = [float(x) for x in sys.argv[2].split(",")]
bad = []
ranks = d["ranks"]
if len(ranks) != 2: bad.append("ranks %d" % len(ranks))
for r in ranks:
    # compute 0.2 + rest 0.1 + threads 0.1 s of computation; waits are communication
    if not 0.35 <= r["tcp_s"] <= 0.8: bad.append("rank %d tcp %g" % (r["rank"], r["tcp_s"]))
    if not 0 <= r["tcm_s"] <= 0.3: bad.append("rank %d tcm %g" % (r["rank"], r["tcm_s"]))
    if r["pd_w"] != 20 or abs(r["ps_w"] - 4) > 1e-9: bad.append("powers")
m = {x["method"]: x for x in d["methods"]}
if sorted(m) != ["edp", "maxdist", "oracle", "rr"]: bad.append("methods %s" % sorted(m))
for k, x in m.items():
    for f in x["freqs_ghz"]:
        if f not in freqs: bad.append("%s gear %g" % (k, f))
    if abs(x["saving_pct"] - x["degradation_pct"] - x["distance_pct"]) > 1e-6: bad.append(k + " distance")
if m["maxdist"]["distance_pct"] < 0: bad.append("maxdist < 0")
if m["maxdist"]["distance_pct"] > m["oracle"]["distance_pct"] + 1e-9: bad.append("maxdist beats the oracle")
if m["edp"]["edp"] > 1 + 1e-12: bad.append("edp > 1")
print("; ".join(bad) if bad else "ok")
PY
)
  expect_eq "JSON checks" "$out" ok
}

measured_power() {
  # P_d measured from the channels (eq. 3.15), one method
  "$MW" dvfs "$R" --freqs "$FREQS" --method maxdist --json >"$TMP/m.json" 2>"$TMP/m.err"
  expect_eq "exit" "$?" 0
  expect_eq "measured P_d > 0" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(all(r["pd_w"] > 0 and r["pd_source"] == "measured" for r in d["ranks"]) and len(d["methods"]) == 1)' "$TMP/m.json")" True
}

bad_usage() {
  local rc
  "$MW" dvfs --help >"$TMP/h.out"; expect_eq "--help exit" "$?" 0
  expect_grep "--help names --freqs" "--freqs" "$TMP/h.out"
  "$MW" dvfs 2>"$TMP/e1"; expect_eq "no RUNDIR exit" "$?" 2
  expect_grep "names RUNDIR" "RUNDIR" "$TMP/e1"
  "$MW" dvfs "$R" --freqs "$FREQS" --method fastest 2>"$TMP/e2"; expect_eq "bad --method exit" "$?" 2
  expect_grep "names --method" "--method" "$TMP/e2"
  MW_CPUFREQ_FILE=$TMP/none "$MW" dvfs "$R" 2>"$TMP/e3"; expect_eq "no frequency table exit" "$?" 2
  expect_grep "names --freqs" "--freqs" "$TMP/e3"
  "$MW" dvfs "$R" --freqs 2.5,abc 2>"$TMP/e4"; expect_eq "bad --freqs exit" "$?" 2
  expect_grep "names --freqs" "--freqs" "$TMP/e4"
  "$MW" dvfs "$R" --freqs "$FREQS" --pd 0 --ps 0 2>"$TMP/e5"; expect_eq "no power exit" "$?" 2
  expect_grep "names --pd" "--pd" "$TMP/e5"
  "$MW" dvfs "$R" --freqs "$FREQS" --pd 7=3 2>"$TMP/e6"; expect_eq "unknown rank exit" "$?" 2
  expect_grep "names --pd" "--pd" "$TMP/e6"
  "$MW" dvfs "$TMP/nothing" --freqs "$FREQS" 2>"$TMP/e7"; expect_eq "not a run exit" "$?" 2
}

run_case record_run
run_case text_report
run_case json_report
run_case measured_power
run_case bad_usage
finish
