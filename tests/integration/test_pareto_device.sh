#!/usr/bin/env bash
# test_pareto_device — 'mw pareto RUNDIR... --units COUNTER --per-device': a Khaleghzadeh et
# al. profile whose devices are one node's in-band devices (a RAPL package with its dram, an
# NVML GPU), each one's dynamic energy from its own counter (docs/models.md "Per-device
# profiles from in-band counters").
#  - exact: runs made by mw import of a wall trace (node h1's channel N1: 150 W idle) plus the
#    in-band tables of the run store, written here with powers chosen by hand, 4 windows a
#    second: package 30 W idle / 50 W working, its dram 5 / 7 W, its core (a part, not
#    additive) 10 / 25 W, the GPU 40 W idle / 140 W working (61 W in the together run). The
#    CPU device takes 0.1 s a unit (22 W dynamic: 2.2 J/unit), the GPU 0.02 s (100 W: 2
#    J/unit); the wall rises by the CPU's 22 W + 8 W of the rest and by 1.15 x the GPU's rise
#    (in the together run 30 + 1.15 x 21 W: 541.5 J, rest 111.5 J). A gap in the GPU's windows and a window flagged backwards (0 W) change nothing.
#    Expected by hand: each run's device energies, the wall's rest (wall dynamic - in-band),
#    the profile, the additivity (|220 + 200 - 430| / 430), the front's end-points for n = 300 in closed form (fastest: equal finish
#    times, x_cpu = 300 x 0.02 / 0.12 = 50, t 5 s, E 50 x 2.2 + 250 x 2 = 610 J; least
#    energy: everything on the GPU, t 6 s, 600 J) and the whole front equal to the hand
#    profile's.
#  - recorded: mw record --meter sim:cluster --idle 1 --inband rapl,nvml of mwb-dgemm
#    playing node N2 (600 products), beside a powercap tree that
#    tests/integration/inband_writer.py writes (package 60 W, 100 W while the command runs, its
#    dram 12 W; its log is the truth) and a stand-in NVML GPU at a constant 75 W: the CPU
#    socket alone worked, its dynamic power is what the writer put in over the command less
#    what it put in over the idle baseline; the GPU did not work (75 W idle, no dynamic
#    energy); rest = wall - in-band.
#  - a source named with a blank, '#', ',', '+' and an escape: '_' for each in the profile.
#  - bad input: a run whose devices' power did not rise, a working host without in-band
#    sources, --per-device on a profile file: exit 2, one line.
source "$(dirname "$0")/lib.sh"

# make_run NAME X T_CMD CPU_WORKS GPU_W_WORKING [nogpu]: idle 10 s, command T_CMD s, idle 2 s;
# counter 'products' X on host h1 (none when X is 0)
make_run() {
  local name=$1 x=$2 tc=$3 cpu=$4 gpu=$5 nogpu=${6:-}
  python3 - "$TMP/$name" "$tc" "$cpu" "$gpu" "$x" "$nogpu" <<'PY' || return 1
import sys
base, tc, cpu, gpu, x, nogpu = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "1", float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
n = int((12 + tc) * 4)
work = lambda i: 40 <= i < 40 + int(tc * 4)  # window i = [i/4, (i+1)/4) s after the start
with open(base + ".csv", "w") as f:
    f.write("time_s,channel,power_w\n")
    for i in range(n):
        w = 150
        if work(i):
            w += (22 + 8 if cpu else 0) + ((gpu - 40) * 1.15 if gpu != 40 else 0)
        f.write(f"{1000 + (i + 1) * 0.25:.2f},N1,{w:.6f}\n")
srcs = [("rapl:package-0", "rapl", "package", 1, 30, 50 if cpu else 30),
        ("rapl:package-0/core", "rapl", "core", 0, 10, 25 if cpu else 10),
        ("rapl:package-0/dram", "rapl", "dram", 1, 5, 7 if cpu else 5)]
if not nogpu:
    srcs.append(("nvml:gpu0", "nvml", "gpu", 1, 40, gpu))
with open(base + ".sql", "w") as f:
    f.write("""CREATE TABLE IF NOT EXISTS inband_channels (source INTEGER PRIMARY KEY, name TEXT NOT NULL,
 host TEXT NOT NULL, kind TEXT NOT NULL, domain TEXT NOT NULL, device TEXT NOT NULL, range_uj INTEGER NOT NULL,
 additive INTEGER NOT NULL, sampled INTEGER NOT NULL, UNIQUE (host, name));
CREATE TABLE IF NOT EXISTS inband_samples (source INTEGER NOT NULL, seq INTEGER NOT NULL, t0_ns INTEGER NOT NULL,
 t1_ns INTEGER NOT NULL, power_mw INTEGER NOT NULL, energy_uj INTEGER NOT NULL, counter_uj INTEGER NOT NULL,
 flags INTEGER NOT NULL, PRIMARY KEY (source, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS inband_gaps (id INTEGER PRIMARY KEY, source INTEGER NOT NULL, start_ns INTEGER NOT NULL,
 end_ns INTEGER NOT NULL, reason TEXT NOT NULL);
BEGIN;
""")
    for k, (nm, kind, dom, add, idle, busy) in enumerate(srcs, 1):
        f.write(f"INSERT INTO inband_channels VALUES ({k}, '{nm}', 'h1', '{kind}', '{dom}', 'd', 262143328850, {add}, 0);\n")
        e = 0
        for i in range(n):
            # a gap in the GPU's windows during the command, a backwards window in the package
            if nm == "nvml:gpu0" and base.endswith("g500") and 50 <= i < 54:
                continue
            flags, p = 0, busy if work(i) else idle
            if nm == "rapl:package-0" and base.endswith("c200") and i == 60:
                flags, p = 2, 0
            e += p * 250000
            t0 = f"T0 + {i * 250000000}"
            f.write(f"INSERT INTO inband_samples VALUES ({k}, {i}, {t0}, {t0} + 250000000, {p * 1000}, {e}, {e}, {flags});\n")
    f.write("COMMIT;\n")
PY
  "$MW" import --format csv "$TMP/$name.csv" -o "$TMP/$name" --force > /dev/null || return 1
  local db=$TMP/$name/trace.db t0 c0 c1
  t0=$(sqlite3 "$db" "SELECT min(t0_ns) FROM samples")
  c0=$((t0 + 10000000000))
  c1=$(python3 -c "print($c0 + round($tc * 1e9))")
  {
    sed "s/T0/$t0/g" "$TMP/$name.sql"
    echo "UPDATE channels SET host = 'h1' WHERE name = 'N1';"
    echo "INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes) VALUES (-1, 'front', 0, 'mw', 'idle-before', $t0, $c0, 0);"
    echo "INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes) VALUES (-1, 'front', 0, 'mw', 'command', $c0, $c1, 0);"
    echo "INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes) VALUES (-1, 'front', 0, 'mw', 'idle-after', $c1, $((c1 + 2000000000)), 0);"
    [ "$x" = 0 ] || echo "INSERT INTO phases (rank, host, thread, kind, name, start_ns, end_ns, bytes) VALUES (0, 'h1', 0, 'counter', 'products', $c1, $c1, $x);"
  } | sqlite3 "$db"
}

make_all() {
  make_run c100 100 10 1 40 &&  # CPU: 22 W x 10 s = 220 J
    make_run c200 200 20 1 40 && # CPU: 440 J (a window flagged backwards inside)
    make_run g100 100 2 0 140 &&  # GPU: 100 W x 2 s = 200 J
    make_run g500 500 10 0 140 && # GPU: 1000 J (1 s of its windows missing)
    make_run both 200 10 1 61     # together, 100 units each: 220 + 21 x 10 = 430 J
}

case_exact() {
  make_all || { CASE_OK=0; return; }
  local R=("$TMP/c100" "$TMP/c200" "$TMP/g100" "$TMP/g500" "$TMP/both")
  "$MW" pareto "${R[@]}" --units products --n 300 --per-device --profile-out "$TMP/prof.txt" \
    > "$TMP/out.txt" 2> "$TMP/err.txt"
  expect_eq "exit" "$?" 0
  expect_eq "stderr" "$(cat "$TMP/err.txt")" ""
  expect_grep "together row" "rapl:package-0,nvml:gpu0 100 " "$TMP/out.txt"
  local prof
  prof=$(python3 - "$TMP/prof.txt" <<'PY'
import sys
out = []
for line in open(sys.argv[1]):
    f = line.split("#")[0].split()
    if not f:
        continue
    nums = lambda toks: " ".join(":".join("%.9g" % float(v) for v in t.split(":")) for t in toks)
    out.append(f[0] + " " + (nums(f[1:]) if f[0] != "device" else f[1] + " " + nums(f[2:])))
print(" | ".join(out))
PY
)
  expect_eq "profile" "$prof" "static_power 75 | device rapl:package-0 100:10:220 200:20:440 | device nvml:gpu0 100:2:200 500:10:1000 | together 100:430 | n 300"
  expect_grep "rest at idle in the profile" "the rest of the node at idle (wall - in-band), 75 W on average" "$TMP/prof.txt"
  "$MW" pareto "${R[@]}" --units products --n 300 --per-device --json --total > "$TMP/runs.json"
  expect_eq "json exit" "$?" 0
  check "valid under its schema" python3 "$(dirname "$0")/validate_json.py" "$TMP/runs.json"
  printf 'n 300\nstatic_power 75\ndevice rapl:package-0 100:10:220 200:20:440\ndevice nvml:gpu0 100:2:200 500:10:1000\ntogether 100:430\n' > "$TMP/hand.txt"
  "$MW" pareto "$TMP/hand.txt" --json --total > "$TMP/hand.json"
  local got
  got=$(python3 - "$TMP/hand.json" "$TMP/runs.json" <<'PY'
import json, sys
h, r = (json.load(open(p)) for p in sys.argv[1:])
out = []
assert r["runs"]["per_device"] is True
for run in r["runs"]["runs"]:
    ib = run["inband"]
    devs = " ".join("%s=%.6g/%.6g/%s" % (d["name"], d["e_dyn_J"], d["idle_W"], "w" if d["worked"] else "-")
                    for d in ib["devices"])
    out.append("%s %s x%.6g %s wall %.6g rest %.6g/%.6g" % (
        run["run"].rsplit("/", 1)[1], run["device"], run["x_units"], devs,
        ib["wall_e_dyn_J"], ib["rest_e_dyn_J"], ib["rest_idle_W"]))
def close(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1, abs(a))
    return a == b
for key in ("front", "total", "additivity", "static_power_W", "devices"):
    if not close(h[key], r[key]):
        out.append("differ: %s" % key)
pts = r["front"]["points"]
ends = sorted((round(p["t_s"], 9), round(p["e_J"], 9), [round(x, 9) for x in p["split"]]) for p in (pts[0], pts[-1]))
out.append("ends %s" % ends)
out.append("additivity %.4f" % r["additivity"]["mean_rel_diff"])
print("\n".join(out))
PY
)
  expect_eq "per run, front" "$got" "c100 rapl:package-0 x100 rapl:package-0=220/35/w nvml:gpu0=0/40/- wall 300 rest 80/75
c200 rapl:package-0 x200 rapl:package-0=440/35/w nvml:gpu0=0/40/- wall 600 rest 160/75
g100 nvml:gpu0 x100 rapl:package-0=0/35/- nvml:gpu0=200/40/w wall 230 rest 30/75
g500 nvml:gpu0 x500 rapl:package-0=0/35/- nvml:gpu0=1000/40/w wall 1150 rest 150/75
both rapl:package-0,nvml:gpu0 x100 rapl:package-0=220/35/w nvml:gpu0=210/40/w wall 541.5 rest 111.5/75
ends [(5, 610, [50, 250]), (6, 600, [0, 300])]
additivity 0.0233"
}

# truth_w LOG START END ...: the mean power (W) the writer put in over the spans
truth_w() {
  local log=$1; shift
  awk -v spans="$*" '
    { t[NR] = $1; e[NR] = $2 + $3; n = NR }
    function at(x,   i) { for (i = n; i >= 1; i--) if (t[i] <= x) return e[i]; return 0 }
    END {
      k = split(spans, v, " ")
      for (i = 1; i + 1 <= k; i += 2) { E += at(v[i+1]) - at(v[i]); T += v[i+1] - v[i] }
      printf "%.4f\n", E / T * 1000
    }' "$log"
}

# record NAME PRODUCTS: a run of mwb-dgemm on N2 beside the tree and the GPU; the writer's
# dynamic power over it (W) appended to $TMP/truth
record() {
  local root=$TMP/pc-$1 bin d
  bin=$(dirname "$MW")
  for d in "intel-rapl:0 package-0" "intel-rapl:0:0 dram"; do # as inband_writer.py wants
    set -- "$1" "$2" $d
    mkdir -p "$root/$3" && echo "$4" > "$root/$3/name" && echo 0 > "$root/$3/energy_uj" &&
      echo 262143328850 > "$root/$3/max_energy_range_uj" || return 1
  done
  python3 "$(dirname "$0")/inband_writer.py" "$root" "$TMP/busy-$1" "$TMP/stop-$1" "$TMP/$1.log" &
  local wp=$!
  for _ in $(seq 600); do [ -s "$TMP/$1.log" ] && break; sleep 0.05; done # (30 s at most)
  MW_POWERCAP_ROOT=$root MW_INBAND_HOST=N2 MW_NVML_LIBRARY=$TMP/nvml/libnvidia-ml.so.1 \
    FAKE_NVML_POWER_MW=75000 FAKE_NVML_NO_ENERGY=-1 \
    "$MW" record -q -o "$TMP/$1" --meter sim:cluster --idle 1 --inband rapl,nvml --inband-hz 50 \
    -- sh -c "touch '$TMP/busy-$1'; OMPI_COMM_WORLD_RANK=1 '$bin/mwb-dgemm' --n 256 --threads 1 --products $2; rm '$TMP/busy-$1'" \
    > "$TMP/$1.rec" 2>&1
  local rc=$?
  touch "$TMP/stop-$1"
  wait "$wp"
  [ "$rc" = 0 ] || { sed 's/^/    /' "$TMP/$1.rec"; return 1; }
  local db=$TMP/$1/trace.db sp_idle sp_cmd
  sp_idle=$(sqlite3 "$db" "select group_concat(start_ns || ' ' || end_ns, ' ') from phases where kind='mw' and name like 'idle-%'")
  sp_cmd=$(sqlite3 "$db" "select start_ns || ' ' || end_ns from phases where kind='mw' and name='command'")
  echo "$(truth_w "$TMP/$1.log" "$sp_cmd") $(truth_w "$TMP/$1.log" "$sp_idle")" >> "$TMP/truth"
}

case_recorded() {
  mkdir -p "$TMP/nvml"
  check "fake NVML builds" gcc -std=c11 -O2 -shared -fPIC "$(dirname "$0")/nvml_fake.c" -o "$TMP/nvml/libnvidia-ml.so.1"
  # one run: two sizes on a loaded machine may take times in the wrong order, which the
  # profile refuses (test_pareto_runs.sh has that check)
  check "record 600" record r600 600
  "$MW" pareto "$TMP/r600" --units products --n 1000 --per-device --json > "$TMP/rec.json" 2> "$TMP/rec.err"
  expect_eq "exit" "$?" 0
  [ -s "$TMP/rec.err" ] && sed 's/^/    /' "$TMP/rec.err"
  local got
  got=$(python3 - "$TMP/rec.json" "$TMP/truth" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]["runs"]
truth = [tuple(map(float, l.split())) for l in open(sys.argv[2])]
out = []
for run, (cmd_w, idle_w) in zip(runs, truth):
    ib = run["inband"]
    d = {x["name"]: x for x in ib["devices"]}
    cpu, gpu = d["rapl:package-0"], d["nvml:gpu0"]
    dyn_w = cpu["e_dyn_J"] / run["t_s"]
    ok = [run["device"] == "rapl:package-0", not run["together"], cpu["worked"], not gpu["worked"],
          # the writer's own powers, but for what the 20 ms windows at the command's two
          # edges share with the idle spans next to it: 40 W x 2 x 20 ms over the command's
          # time, and over the 2 s of idle (0.8 W), plus 0.2 W for the writer's turns
          abs(cpu["idle_W"] - idle_w) < 1.0,
          abs(dyn_w - (cmd_w - idle_w)) < 1.0 + 1.6 / run["t_s"],
          abs(gpu["idle_W"] - 75) < 0.05, abs(gpu["e_dyn_J"]) < 0.05 * run["t_s"],
          abs(ib["rest_e_dyn_J"] - (ib["wall_e_dyn_J"] - ib["inband_e_dyn_J"])) < 1e-6,
          abs(ib["inband_e_dyn_J"] - cpu["e_dyn_J"] - gpu["e_dyn_J"]) < 1e-6]
    out.append("%s %s" % (run["x_units"], "ok" if all(ok) else "off %s: %s, truth %s" % (ok, run, (cmd_w, idle_w))))
    print("  %s: t %.3f s, socket %.2f W dynamic (written %.2f), idle %.2f W (written %.2f); GPU %.3f J, "
          "rest %.1f J" % (run["x_units"], run["t_s"], dyn_w, cmd_w - idle_w, cpu["idle_W"], idle_w,
                          gpu["e_dyn_J"], ib["rest_e_dyn_J"]), file=sys.stderr)
print(" | ".join(out))
PY
)
  expect_eq "per device" "$got" "600 ok"
}

expect_usage() { expect_mw_usage pareto "$@"; }

case_bad_input() {
  make_run c100 100 10 1 40 && make_run flat 100 10 0 40 && make_run nogpu 100 10 1 40 nogpu || { CASE_OK=0; return; }
  # the same runs without in-band tables: the wall alone
  make_run plain 100 10 1 40 && sqlite3 "$TMP/plain/trace.db" "DROP TABLE inband_samples; DROP TABLE inband_channels; DROP TABLE inband_gaps;"
  expect_usage "no device worked" "flat: --per-device: no in-band device's power rose by 1 W and 5 % of its idle power during the command (rapl:package-0, nvml:gpu0)" "$TMP/flat" --units products --n 5 --per-device
  expect_usage "no in-band source" "plain: --per-device: host 'h1', where counter 'products' was counted, has no additive in-band source" "$TMP/plain" --units products --n 5 --per-device
  echo "n 3" > "$TMP/file.txt"
  expect_usage "profile file" "--per-device is for run directories" "$TMP/file.txt" --per-device
  # without --per-device the same runs are the wall's: one device N1
  "$MW" pareto "$TMP/c100" --units products --n 5 --json > "$TMP/wall.json"
  expect_eq "wall mode" "$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs']; print(r['per_device'], r['runs'][0]['device'], r['runs'][0]['e_dyn_J'], r['runs'][0]['inband'])" "$TMP/wall.json")" "False N1 300 None"
}

# a source named with a blank, '#', ',', '+' and an escape (sysfs names are data): the
# device's name in the profile has '_' for each, and the profile parses
case_hostile_name() {
  make_run c100 100 10 1 40 && make_run c200 200 20 1 40 && make_run g100 100 2 0 140 &&
    make_run g500 500 10 0 140 || { CASE_OK=0; return; }
  local r
  for r in c100 c200 g100 g500; do
    sqlite3 "$TMP/$r/trace.db" "UPDATE inband_channels SET name = 'nvml:gpu 0#,+' || char(27) || '[31m' WHERE name = 'nvml:gpu0'"
  done
  "$MW" pareto "$TMP/c100" "$TMP/c200" "$TMP/g100" "$TMP/g500" --units products --n 300 --per-device \
    --profile-out "$TMP/hp.txt" > "$TMP/h.out" 2> "$TMP/h.err"
  expect_eq "exit" "$?" 0
  expect_eq "stderr" "$(cat "$TMP/h.err")" ""
  expect_grep "the name in the profile" "^device nvml:gpu_0____\[31m 100:2:200 500:10:1000" "$TMP/hp.txt"
  expect_eq "no escape byte in the output" "$(grep -c $'\x1b' "$TMP/h.out")" 0
}

run_case case_exact
run_case case_recorded
run_case case_bad_input
run_case case_hostile_name
finish
