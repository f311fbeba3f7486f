#!/usr/bin/env bash
# In-band sources recorded beside the meter (mw record --inband, docs/inband.md), through
# the real readers: RAPL from a powercap tree in a temporary directory (MW_POWERCAP_ROOT)
# that this script writes while mw record runs, NVML from a stand-in libnvidia-ml.so.1
# (tests/integration/nvml_fake.c) found by the real dlopen.
#   rapl_tree      package-0's energy_uj follows 20 W x time from 0 (its first read) and wraps
#                  at 40 J (every 2 s: a wrap is recognised while less than half the range
#                  passes between two good reads), holds garbage once; package-1 is removed
#                  for 0.5 s and made again: package-0's stored energy equals the last value written,
#                  exactly; every wrap is flagged; the garbage and the vanishing are one gap
#                  each and one line each on stderr; core (a part) is not additive
#   nvml_fake      two GPUs, 250 W with an energy counter and 75 W by power samples: the
#                  stored mean powers are those, the windows come at --inband-hz
#   absent         --inband nvml without a library and --inband rapl without a tree: one line
#                  each, the run completes; the default (what is present) says nothing
#   share_simcluster  mw record --meter sim:cluster --idle 2 of a command that keeps node N1
#                  busy (seed 000's levels: 156.30 W idle, 224.72 W working), beside a
#                  powercap tree whose package draws 60 W, 100 W while the command runs, and
#                  dram 12 W (written by this script, which logs what it wrote): mw analyze
#                  --json (valid under its schema) gives N1's in-band power over the idle baseline and the command as
#                  the log says (72 W and 112 W when the machine is quiet), their shares of
#                  the wall, the rest, and the dynamic share; mw plot --kind inband draws
#                  the node's figure, its top band averaging the in-band power; mw report
#                  has the section and the figure
#   align_inband   mw align --inband of a run whose command is busy 1.5 s, idle 1.5 s four
#                  times (the package follows it): N1's wall against its in-band power, an
#                  offset within the simulation's own lags (the cluster's CPU sampling, the
#                  machine's load; the unit test has the exact check); a run without in-band
#                  sources: exit 2
#   bad_options    --inband gpu, --inband rapl,, --inband-hz 0, 101, abc, 0x10, either option
#                  given twice: exit 2, one line, nothing made
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

# domain ROOT DIR NAME ENERGY RANGE
domain() {
  mkdir -p "$1/$2"
  echo "$3" >"$1/$2/name"
  echo "$4" >"$1/$2/energy_uj"
  echo "$5" >"$1/$2/max_energy_range_uj"
}

# put FILE VALUE: replace FILE atomically
put() { printf '%s\n' "$2" >"$1.tmp" && mv -f "$1.tmp" "$1"; }

# wait_sources RUNDIR: until the recorder has stored its in-band sources (at most 60 s: it
# starts the simulated board first, seconds on a loaded machine)
wait_sources() {
  for _ in $(seq 1200); do
    [ "$(q "$1" "select count(*) from inband_channels" 2>/dev/null)" -gt 0 ] 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# wait_window RUNDIR: until an in-band window is stored: the sampler has read twice (60 s)
wait_window() {
  for _ in $(seq 1200); do
    [ "$(q "$1" "select count(*) from inband_samples" 2>/dev/null)" -gt 0 ] 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

rapl_tree() {
  local root=$TMP/powercap r=$TMP/rapl range=40000000 p_w=20
  domain "$root" intel-rapl:0 package-0 0 $range
  domain "$root" intel-rapl:0:0 core 0 $range
  domain "$root" intel-rapl:1 package-1 777 $range
  # the command ends when the test is done writing (at most 60 s), then 0.5 s later (five
  # reads at 10 Hz see the last value): a fixed sleep ran out on a loaded machine first
  MW_POWERCAP_ROOT=$root "$MW" record -o "$r" --meter sim --inband rapl -- sh -c \
    "for i in \$(seq 1200); do [ -e '$TMP/rapl.stop' ] && break; sleep 0.05; done; sleep 0.5" \
    2>"$TMP/rapl.err" &
  local pid=$!
  check "sources stored" wait_sources "$r"
  check "first window stored" wait_window "$r" # the sampler's origin: package-0 at 0
  # garbage at 1 s, package-1 removed from 1.5 s to 2 s, stop at 3 s: each step in turn,
  # however slow the machine makes the turns
  local t0 e=0
  t0=$(now_ns)
  write_until() { # MS: package-0 at 20 W (wrapping), its core at 10 W, until MS ms
    local now
    while :; do
      now=$(now_ns)
      e=$(((now - t0) * p_w / 1000)) # W x ns / 1000 = uJ
      put "$root/intel-rapl:0/energy_uj" $((e % range))
      put "$root/intel-rapl:0:0/energy_uj" $((e / 2 % range))
      [ $(((now - t0) / 1000000)) -ge "$1" ] && return
      sleep 0.01
    done
  }
  write_until 1000
  put "$root/intel-rapl:0/energy_uj" garbage
  sleep 0.25 # 2.5 reads at 10 Hz
  write_until 1500
  rm -r "$root/intel-rapl:1"
  write_until 2000
  domain "$root" intel-rapl:1 package-1 777 $range
  write_until 3000
  touch "$TMP/rapl.stop"
  wait "$pid"
  expect_eq "exit status" "$?" 0
  local pkg="(select source from inband_channels where name='rapl:package-0')"
  expect_eq "sources" "$(q "$r" "select group_concat(name||':'||domain||':'||additive, ' ') from (select * from inband_channels order by name)")" \
    "rapl:package-0:package:1 rapl:package-0/core:core:0 rapl:package-1:package:1"
  expect_eq "host" "$(q "$r" "select count(distinct host) from inband_channels where host=(select value from meta where key='hostname')")" 1
  # exact: the energy since the first read is the last value written (e, from 0)
  expect_eq "package-0 energy (uJ)" "$(q "$r" "select max(energy_uj) from inband_samples where source=$pkg")" "$e"
  expect_eq "energy = sum of windows" "$(q "$r" "select count(*) from inband_samples a join inband_samples b on b.source=a.source and b.seq=a.seq+1 where b.energy_uj < a.energy_uj or b.t0_ns <> a.t1_ns")" 0
  local wraps=$((e / range))
  check "a wrap at least" [ "$wraps" -ge 1 ]
  expect_eq "wraps flagged" "$(q "$r" "select count(*) from inband_samples where source=$pkg and flags & 1")" "$wraps"
  expect_eq "nothing backwards" "$(q "$r" "select count(*) from inband_samples where flags & 2")" 0
  expect_eq "package-0: one gap (garbage)" "$(q "$r" "select count(*) from inband_gaps where source=$pkg and reason like '%not a number%'")" 1
  expect_eq "package-1: one gap (vanished)" "$(q "$r" "select count(*) from inband_gaps where source=(select source from inband_channels where name='rapl:package-1') and reason like '%No such file%'")" 1
  expect_num "package-1 away (s)" "$(q "$r" "select (end_ns-start_ns)/1e9 from inband_gaps where reason like '%No such file%'")" 0.3 1.5
  expect_eq "package-1 energy" "$(q "$r" "select max(energy_uj) from inband_samples where source=(select source from inband_channels where name='rapl:package-1')")" 0
  expect_num "10 Hz" "$(q "$r" "select count(*)/((max(t1_ns)-min(t0_ns))/1e9) from inband_samples where source=$pkg")" 7 10.5
  expect_eq "stderr: one line per failing source" "$(grep -c 'in-band: rapl:package-[01]: [0-9]* reads\? failed' "$TMP/rapl.err")" 2
  expect_eq "meta inband" "$(q "$r" "select value from meta where key='inband'")" "rapl:package-0,rapl:package-0/core,rapl:package-1"
}

build_fake_nvml() {
  mkdir -p "$TMP/nvml"
  gcc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC tests/integration/nvml_fake.c \
    -o "$TMP/nvml/libnvidia-ml.so.1"
}

nvml_fake() {
  check "fake NVML builds" build_fake_nvml
  local r=$TMP/nvml-run
  LD_LIBRARY_PATH=$TMP/nvml "$MW" record -q -o "$r" --meter sim --inband nvml --inband-hz 50 \
    -- sleep 2 2>"$TMP/nvml.err"
  expect_eq "exit status" "$?" 0
  expect_eq "nothing said" "$(wc -c <"$TMP/nvml.err")" 0
  expect_eq "GPUs" "$(q "$r" "select group_concat(name||':'||device||':'||sampled, ' ') from inband_channels")" \
    "nvml:gpu0:Fake GPU 0:0 nvml:gpu1:Fake GPU 1:1"
  local g0="(select source from inband_channels where name='nvml:gpu0')"
  local g1="(select source from inband_channels where name='nvml:gpu1')"
  # energy / time over the whole recording: the fake's 250 W and 75 W
  expect_num "gpu0 mean power (W)" "$(q "$r" "select max(energy_uj)/((max(t1_ns)-min(t0_ns))/1e3) from inband_samples where source=$g0")" 249.9 250.1
  expect_num "gpu1 mean power (W)" "$(q "$r" "select max(energy_uj)/((max(t1_ns)-min(t0_ns))/1e3) from inband_samples where source=$g1")" 74.99 75.01
  expect_eq "gpu1 windows sampled" "$(q "$r" "select count(*) from inband_samples where source=$g1 and flags & 8 = 0")" 0
  # a deadline the loaded machine made the thread miss is not caught up: fewer, never more
  expect_num "50 Hz" "$(q "$r" "select count(*)/((max(t1_ns)-min(t0_ns))/1e9) from inband_samples where source=$g0")" 35 51
}

absent() {
  local r=$TMP/absent
  MW_NVML_LIBRARY=$TMP/none/libnvidia-ml.so.1 MW_POWERCAP_ROOT=$TMP/none \
    "$MW" record -o "$r" --meter sim --inband rapl,nvml -- true 2>"$TMP/absent.err"
  expect_eq "exit status" "$?" 0
  expect_eq "status" "$(q "$r" "select value from meta where key='status'")" complete
  expect_eq "two lines" "$(grep -c 'in-band' "$TMP/absent.err")" 2
  expect_grep "no rapl" "in-band: rapl: no RAPL domain under $TMP/none" "$TMP/absent.err"
  expect_grep "no nvml" "in-band: nvml: no NVIDIA GPU recorded" "$TMP/absent.err"
  expect_eq "meta inband" "$(q "$r" "select value from meta where key='inband'")" none
  MW_NVML_LIBRARY=$TMP/none/libnvidia-ml.so.1 MW_POWERCAP_ROOT=$TMP/none \
    "$MW" record -o "$r.default" --meter sim -- true 2>"$TMP/default.err"
  expect_eq "default: exit status" "$?" 0
  expect_eq "default: nothing said" "$(grep -c 'in-band' "$TMP/default.err")" 0
  expect_grep "default: noted in the run" "no RAPL domain" <(q "$r.default" "select value from meta where key='inband_notes'")
  "$MW" record -q -o "$r.none" --meter sim --inband none -- true
  expect_eq "none: no meta" "$(q "$r.none" "select count(*) from meta where key like 'inband%'")" 0
}

# power_writer ROOT FLAG STOP LOG: package 60 W (100 W while FLAG exists), dram 12 W, each
# turn logged (tests/integration/inband_writer.py), in the background (its pid in PIDS);
# returns once it has been writing for 0.5 s, so that mw record's first read sees it going
power_writer() {
  python3 tests/integration/inband_writer.py "$@" &
  PIDS+=("$!")
  WRITER=$!
  for _ in $(seq 600); do # (up to 30 s: python's start on a loaded machine)
    [ -s "$4" ] && break
    sleep 0.05
  done
  sleep 0.5
}

# truth_w LOG "A B" ...: the mean in-band power (W) the writer put into the spans [A, B) ns:
# the files hold the last turn's energies until the next turn (a step function)
truth_w() {
  local log=$1; shift
  awk -v spans="$*" '
    { t[NR] = $1; e[NR] = $2 + $3; n = NR }
    function at(x,   i) {
      for (i = n; i >= 1; i--) if (t[i] <= x) return e[i]
      return 0
    }
    END {
      k = split(spans, v, " ")
      for (i = 1; i + 1 <= k; i += 2) { E += at(v[i+1]) - at(v[i]); T += v[i+1] - v[i] }
      printf "%.3f\n", E / T * 1000   # uJ / ns = kW
    }' "$log"
}

# jget JSON FILTER: one value of the analysis (jq)
jget() { jq -r "$2" "$1"; }

share_simcluster() {
  local root=$TMP/pc-share r=$TMP/share
  domain "$root" intel-rapl:0 package-0 0 262143328850
  domain "$root" intel-rapl:0:0 dram 0 65712999613
  power_writer "$root" "$TMP/busy" "$TMP/stop" "$TMP/share.log"
  local wp=$WRITER
  MW_POWERCAP_ROOT=$root MW_INBAND_HOST=N1 "$MW" record -q -o "$r" --meter sim:cluster --idle 2 \
    --inband rapl --inband-hz 50 -- sh -c "touch '$TMP/busy'; timeout 3 sh -c 'while :; do :; done'; rm '$TMP/busy'" \
    2>"$TMP/share.err"
  local rrc=$?
  expect_eq "exit status" "$rrc" 0
  [ "$rrc" = 0 ] || sed 's/^/    /' "$TMP/share.err"
  touch "$TMP/stop"
  wait "$wp"
  "$MW" analyze --json "$r" >"$TMP/share.json"
  expect_eq "analyze: exit" "$?" 0
  check "analyze: valid under its schema" python3 tests/integration/validate_json.py "$TMP/share.json"
  local j=$TMP/share.json n='.runs[0].inband[0]'
  expect_eq "one node" "$(jget "$j" '.runs[0].inband | length')" 1
  expect_eq "its wall" "$(jget "$j" "$n.host + \" \" + $n.wall_channels")" "N1 N1"
  expect_eq "summed" "$(jget "$j" "[$n.sources[] | select(.additive) | .name] | join(\",\")")" "rapl:package-0,rapl:package-0/dram"
  local idle="$n.spans[] | select(.kind == null and .name == \"idle\")"
  local cmd="$n.spans[] | select(.kind == \"mw\" and .name == \"command\")"
  # the truth: what the writer put into each span (its log), against the recorder's phases;
  # an in-band window (20 ms at 50 Hz) across a span's edge is shared pro rata, which moves
  # up to 40 W x 20 ms of energy across the command's edges
  local sp_idle sp_cmd t_idle t_cmd w_idle w_cmd
  sp_idle=$(q "$r" "select group_concat(start_ns || ' ' || end_ns, ' ') from phases where kind='mw' and name like 'idle-%'")
  sp_cmd=$(q "$r" "select start_ns || ' ' || end_ns from phases where kind='mw' and name='command'")
  t_idle=$(truth_w "$TMP/share.log" "$sp_idle")
  t_cmd=$(truth_w "$TMP/share.log" "$sp_cmd")
  expect_num "written: idle (W)" "$t_idle" 71 74
  expect_num "written: command (W)" "$t_cmd" 97 113
  w_idle=$(jget "$j" "$idle | .wall_power_w")
  w_cmd=$(jget "$j" "$cmd | .wall_power_w")
  expect_num "idle: in-band - written (W)" "$(jget "$j" "$idle | .inband_power_w - $t_idle")" -0.7 0.7
  expect_num "command: in-band - written (W)" "$(jget "$j" "$cmd | .inband_power_w - $t_cmd")" -1 1
  expect_num "command: package (W)" "$(jget "$j" "$cmd | .source_power_w[0]")" 85 101
  # the simulated wall: seed 000's levels (156.30 W idle, 224.72 W working) when the machine
  # is not too loaded to run the busy loop and the board; the shares against the written
  # power over the wall the run measured
  expect_num "idle: wall (W)" "$w_idle" 153 165
  expect_num "command: wall (W)" "$w_cmd" 185 228
  expect_num "idle: share - written / wall (%)" "$(jget "$j" "$idle | .share_pct - 100 * $t_idle / $w_idle")" -0.5 0.5
  expect_num "command: share - written / wall (%)" "$(jget "$j" "$cmd | .share_pct - 100 * $t_cmd / $w_cmd")" -0.6 0.6
  expect_num "idle: rest (W)" "$(jget "$j" "$idle | .rest_power_w - ($w_idle - $t_idle)")" -0.7 0.7
  expect_num "command: dynamic share - written / +wall (%)" "$(jget "$j" "$cmd | .dynamic_share_pct - 100 * ($t_cmd - $t_idle) / ($w_cmd - $w_idle)")" -6 6
  expect_eq "rest = wall - in-band" "$(jget "$j" "[$n.spans[] | ((.wall_power_w - .inband_power_w - .rest_power_w) | fabs) < 0.0015] | all")" true
  # the figure: wall and stacked sources on one grid; the top band is the in-band sum
  "$MW" plot "$r" --kind inband -o "$TMP/share-plots" >"$TMP/plot.out" 2>"$TMP/plot.err"
  expect_eq "plot: exit" "$?" 0
  expect_eq "plot: the figure" "$(cat "$TMP/plot.out")" "$TMP/share-plots/inband-N1.png"
  expect_grep "plot: 1200 x 700" "1200 x 700" <(file "$TMP/share-plots/inband-N1.png")
  expect_num "plot: mean of the top band over the run (W)" "$(awk -F'\t' '!/^#/ && NF >= 4 && $4 != "-" { s += $4; n++ } END { print s / n }' "$TMP/share-plots/inband-N1.tsv")" \
    "$(jget "$j" "$n.spans[0].inband_power_w * 0.95")" "$(jget "$j" "$n.spans[0].inband_power_w * 1.05")"
  # the report: the section per node, the figure
  "$MW" report "$r" -o "$TMP/share-report" >/dev/null 2>"$TMP/report.err"
  expect_eq "report: exit" "$?" 0
  expect_grep "report: the section" '<section id="inband">' "$TMP/share-report/index.html"
  expect_grep "report: the node" "<h3>Node N1 (wall: N1)</h3>" "$TMP/share-report/index.html"
  expect_grep "report: the nav" 'href="#inband"' "$TMP/share-report/index.html"
  check "report: the figure" test -s "$TMP/share-report/fig/inband-N1.png"
  "$MW" analyze "$r" >"$TMP/share.txt"
  expect_grep "text: the section" "in-band sources beside the wall" "$TMP/share.txt"
  expect_grep "text: the node" "node N1: wall N1; summed: rapl:package-0 rapl:package-0/dram" "$TMP/share.txt"
}

align_inband() {
  local root=$TMP/pc-align r=$TMP/align
  domain "$root" intel-rapl:0 package-0 0 262143328850
  domain "$root" intel-rapl:0:0 dram 0 65712999613
  rm -f "$TMP/stop"
  power_writer "$root" "$TMP/busy2" "$TMP/stop" "$TMP/align.log"
  local wp=$WRITER
  # 4 x (1.5 s busy, 1.5 s idle): eight edges in both the wall and the in-band power
  MW_POWERCAP_ROOT=$root MW_INBAND_HOST=N1 "$MW" record -q -o "$r" --meter sim:cluster --idle 1 \
    --inband rapl -- sh -c "for i in 1 2 3 4; do touch '$TMP/busy2'; timeout 1.5 sh -c 'while :; do :; done'; rm '$TMP/busy2'; sleep 1.5; done" \
    2>"$TMP/align-rec.err"
  local rrc=$?
  expect_eq "record: exit" "$rrc" 0
  [ "$rrc" = 0 ] || sed 's/^/    /' "$TMP/align-rec.err"
  touch "$TMP/stop"
  wait "$wp"
  "$MW" align "$r" --inband --json >"$TMP/align.json" 2>"$TMP/align.err"
  local st=$?
  # a loaded machine can blur the simulated wall past any estimate: exit 1 with a note
  [ $st = 1 ] && [ "$(jq -r '.inband[0].note' "$TMP/align.json")" != null ] && st=0
  expect_eq "exit status" "$st" 0
  expect_eq "node" "$(jq -r '.inband[0].host + " " + .inband[0].wall' "$TMP/align.json")" "N1 N1"
  check "align: valid under its schema" python3 tests/integration/validate_json.py "$TMP/align.json"
  # the simulation's own lags and the load on the machine blur this one (the cluster's
  # power follows CPU time sampled every 50 ms, and a loaded machine delays both): the unit
  # test (test_inband_align) checks the estimate against offsets set by construction; here
  # an estimate within the search range, over the windows that lie inside the in-band data
  if [ "$(jq -r '.inband[0].note' "$TMP/align.json")" = null ]; then
    expect_num "offset (ms)" "$(jq -r '.inband[0].offset_ms' "$TMP/align.json")" -2000 2000
    expect_num "correlation" "$(jq -r '.inband[0].correlation' "$TMP/align.json")" 0 1
    expect_num "windows" "$(jq -r '.inband[0].windows' "$TMP/align.json")" 20 80
  fi
  "$MW" align "$r" --inband >"$TMP/align.txt"
  expect_grep "text" "node N1: wall N1 against rapl:package-0,rapl:package-0/dram: " "$TMP/align.txt"
  "$MW" record -q -o "$TMP/noinband" --meter sim --inband none -- true
  "$MW" align "$TMP/noinband" --inband >"$TMP/out.txt" 2>"$TMP/err.txt"
  expect_eq "no in-band: exit" "$?" 2
  expect_grep "no in-band: said" "no in-band source in the run" "$TMP/err.txt"
}

bad_options() {
  expect_mw_usage record "--inband gpu" "--inband: 'gpu' is not" -o "$TMP/b1" --inband gpu -- true
  expect_mw_usage record "--inband rapl," "--inband: 'rapl,' is not" -o "$TMP/b2" --inband rapl, -- true
  expect_mw_usage record "--inband-hz 0" "--inband-hz: '0' is out of range (1 to 100 Hz)" -o "$TMP/b3" --inband-hz 0 -- true
  expect_mw_usage record "--inband-hz 101" "--inband-hz: '101' is out of range" -o "$TMP/b4" --inband-hz 101 -- true
  expect_mw_usage record "--inband-hz abc" "--inband-hz: 'abc' is not a number" -o "$TMP/b5" --inband-hz abc -- true
  expect_mw_usage record "--inband-hz 0x10" "--inband-hz: '0x10' is not a number" -o "$TMP/b6" --inband-hz 0x10 -- true
  expect_mw_usage record "--inband twice" "mw record: --inband given twice" -o "$TMP/b7" --inband rapl --inband nvml -- true
  expect_mw_usage record "--inband-hz twice" "mw record: --inband-hz given twice" -o "$TMP/b8" --inband-hz 10 --inband-hz 10 -- true
  expect_eq "nothing made" "$(ls "$TMP" | grep -c '^b[0-9]')" 0
}

run_case rapl_tree
run_case nvml_fake
run_case absent
run_case share_simcluster
run_case align_inband
run_case bad_options
finish
