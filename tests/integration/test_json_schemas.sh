#!/usr/bin/env bash
# Every JSON document mw writes names its schema first ("schema": "megawatt.COMMAND/1") and
# is valid under docs/schemas/megawatt.COMMAND-1.schema.json, checked by Debian's
# python3-jsonschema (tests/integration/validate_json.py, which also refuses NaN, Infinity and
# bytes that are not UTF-8): mw analyze (one run, several runs, a run with hostile names), mw
# align, mw dvfs, mw stats, mw fit (eeg-mofs runs) and mw pareto (a profile with a linear and a
# measured device, each kind of query), mw export --format json (every table) and --format
# perfetto (its schema in otherData.schema: the trace-event format's top level is fixed). The
# commands that write JSON (--json, or a --format that offers json) are found from their
# --help, so a new one without a schema here fails the test.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
VALIDATE=tests/integration/validate_json.py
PROG=$TMP/mpi_phases
TESTED="align analyze dvfs export fit jobs pareto stats" # mw jobs: validated in test_slurm.sh (it needs Slurm job runs)

# valid FILE...: every file valid under its schema
valid() {
  python3 "$VALIDATE" "$@" >"$TMP/valid.out" 2>&1
  expect_eq "valid: $(basename -a "$@" | tr '\n' ' ')" "$?" 0
  sed 's/^/    /' "$TMP/valid.out"
}

every_json_command_tested() {
  local cmd found=
  for cmd in $("$MW" --help | awk '/^  [a-z]+  / { print $1 }'); do
    "$MW" "$cmd" --help 2>/dev/null | grep -qE -- '--json|--format [a-z|]*json' && found="$found $cmd"
  done
  expect_eq "the commands with --json" "$(echo $found | tr ' ' '\n' | sort | tr '\n' ' ')" "$TESTED "
}

runs() {
  mpicc -O1 -fopenmp -Icollector/probe tests/integration/mpi_phases.c -L"$BUILD/lib" -lmwprobe \
    -Wl,-rpath,"$(pwd)/$BUILD/lib" -o "$PROG" || { echo "  FAIL: cannot build the test program"; CASE_OK=0; return; }
  for r in a b; do
    "$MW" record -q -o "$TMP/$r" --meter sim:cluster -- mpirun --oversubscribe -np 2 "$PROG" >"$TMP/$r.out" 2>&1
    expect_eq "record $r" "$?" 0
  done
  "$MW" analyze --json "$TMP/a" >"$TMP/analyze1.json" &&
    "$MW" analyze --json "$TMP/a" "$TMP/b" >"$TMP/analyze2.json" &&
    "$MW" dvfs "$TMP/a" --freqs 2.5,2.1,1.7 --json >"$TMP/dvfs.json" &&
    "$MW" stats --channel N1 --quantity energy --group x "$TMP/a" "$TMP/b" --group y "$TMP/b" "$TMP/a" \
      --json >"$TMP/stats.json" &&
    "$MW" stats --channel N2 --quantity mean_power --method gmm --group x "$TMP/a" --json >"$TMP/stats1.json"
  expect_eq "the commands ran" "$?" 0
  # mw align exits 1 when it cannot tell (a 2-rank run of a second is too short to test the
  # match against shifted patterns); its document says so with nulls, and is valid too
  "$MW" align "$TMP/a" --json >"$TMP/align.json"
  expect_eq "align: exit (0 told, 1 cannot tell)" "$(( $? <= 1 ))" 1
  valid "$TMP"/analyze1.json "$TMP"/analyze2.json "$TMP"/align.json "$TMP"/dvfs.json \
    "$TMP"/stats.json "$TMP"/stats1.json
  expect_eq "schema first" "$(head -c 28 "$TMP/dvfs.json")" '{"schema": "megawatt.dvfs/1"'
}

export_documents() {
  local w
  for w in samples channels phases gaps meta; do
    "$MW" export "$TMP/a" --format json --what "$w" -o "$TMP/export-$w.json"
    expect_eq "export --what $w: exit" "$?" 0
  done
  "$MW" export "$TMP/a" --format perfetto -o "$TMP/export.perfetto.json"
  expect_eq "export perfetto: exit" "$?" 0
  valid "$TMP"/export-*.json "$TMP/export.perfetto.json"
  expect_eq "export: schema first" "$(head -c 31 "$TMP/export-gaps.json")" '{"schema": "megawatt.export/1",'
  # the same rows as the CSV, and the channels' meters as the store has them
  "$MW" export "$TMP/a" --format csv --what channels -o "$TMP/export-channels.csv"
  expect_eq "channels: JSON rows = CSV rows = the store's" "$(python3 - "$TMP" <<'PY'
import csv, json, sqlite3, sys
t = sys.argv[1]
j = json.load(open(f"{t}/export-channels.json"))["rows"]
c = list(csv.DictReader(open(f"{t}/export-channels.csv", newline="")))
db = sqlite3.connect(f"file:{t}/a/trace.db?mode=ro", uri=True)
want = [(str(ch), n, m, str(mc)) for ch, n, m, mc in db.execute(
    "select c.channel, c.name, m.name, c.meter_channel from channels c join meters m on m.meter = c.meter order by c.channel")]
got_j = [(str(r["channel"]), r["name"], r["meter"], str(r["meter_channel"])) for r in j]
got_c = [(r["channel"], r["name"], r["meter"], r["meter_channel"]) for r in c]
print("same" if want == got_j == got_c and want else f"differ: {want} {got_j} {got_c}")
PY
)" same
}

hostile_names() {
  # quotes, a newline, an escape sequence and a byte that is not UTF-8 in a run's names
  cp -r "$TMP/a" "$TMP/h"
  sqlite3 "$TMP/h/trace.db" "UPDATE phases SET name = 'x\"y' || char(10) || char(27) || '[31m' || cast(x'ff' AS text) WHERE name = 'compute';
    UPDATE channels SET name = 'N1 ' || cast(x'c0af' AS text) WHERE channel = 1"
  "$MW" analyze --json "$TMP/h" >"$TMP/hostile.json"
  expect_eq "analyze: exit" "$?" 0
  valid "$TMP/hostile.json"
  expect_eq "names as the JSON reads them" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["runs"][0]; print(ascii(sorted({p["name"] for p in d["phases"]} & {"x\"y\n\x1b[31m\ufffd"})), ascii(d["channels"][0]["name"]))' "$TMP/hostile.json")" \
    "['x\"y\\n\\x1b[31m\\ufffd'] 'N1 \\ufffd\\ufffd'"
}

fit_runs() {
  local eeg; eeg=$(abs "$BUILD/bin/eeg-mofs")
  for s in 1 2 3; do
    "$MW" record -q -o "$TMP/s$s" --meter sim --channels n0,n1,n2,switch -- \
      mpirun --oversubscribe -np 3 "$eeg" --patterns 60 --features 240 --individuals 48 \
      --generations 20 --global-every 10 --threads 1 --kmeans-iters 10 --strategy v3 -q \
      --subpops "$s" >"$TMP/s$s.out" 2>&1
    expect_eq "record s$s" "$?" 0
  done
  "$MW" fit --model escobar "$TMP/s1" "$TMP/s2" "$TMP/s3" --json >"$TMP/fit.json" 2>"$TMP/fit.err"
  expect_eq "fit: exit" "$?" 0
  "$MW" fit --model escobar --mode fit "$TMP/s1" "$TMP/s2" "$TMP/s3" --json >"$TMP/fit2.json" 2>>"$TMP/fit.err"
  expect_eq "fit --mode fit: exit" "$?" 0
  valid "$TMP/fit.json" "$TMP/fit2.json"
}

pareto() {
  cat >"$TMP/hand.txt" <<'P'
n 12
static_power 2
device C a=1 b=1
device A a=0.333333333333333333 b=3
device B 4:2 8:4 b=2
P
  "$MW" pareto "$TMP/hand.txt" --json >"$TMP/p0.json" &&
    "$MW" pareto "$TMP/hand.txt" --energy 16 --json >"$TMP/p1.json" &&
    "$MW" pareto "$TMP/hand.txt" --total --time 3 --json >"$TMP/p2.json"
  expect_eq "pareto: exit" "$?" 0
  valid "$TMP/p0.json" "$TMP/p1.json" "$TMP/p2.json"
}

the_validator_refuses() {
  # the validator is not a rubber stamp: a missing key, a wrong type, an unknown version, NaN
  python3 - "$TMP/dvfs.json" "$TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [dict(d), dict(d), dict(d)]
del bad[0]["methods"]
bad[1]["ranks"] = "none"
bad[2]["schema"] = "megawatt.dvfs/999"
for i, b in enumerate(bad):
    json.dump(b, open(f"{sys.argv[2]}/bad{i}.json", "w"))
open(f"{sys.argv[2]}/bad3.json", "w").write(json.dumps(d).replace('"time_old_s": ', '"time_old_s": NaN, "x": '))
PY
  local i
  for i in 0 1 2 3; do
    python3 "$VALIDATE" "$TMP/bad$i.json" >/dev/null 2>&1
    expect_eq "bad$i refused" "$?" 1
  done
}

run_case every_json_command_tested
run_case runs
run_case export_documents
run_case hostile_names
run_case fit_runs
run_case pareto
run_case the_validator_refuses
finish
