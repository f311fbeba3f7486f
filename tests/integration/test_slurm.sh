#!/usr/bin/env bash
# Slurm, with real parts (issue 22): a real local Slurm started by the test itself
# (slurm_lib.sh: a private munged, slurmctld, two slurmd on this host), real salloc, srun and
# sbatch, the real firmware on the simulated board as the meter.
#   hostile_env       outside Slurm: a SLURM_JOB_ID that is not a number, a node list that
#                     is an option or that scontrol refuses: nothing wrong stored, one line
#                     each, the recording goes on
#   record_in_salloc  mw record inside salloc -N2: the job id (as the job's shell sees it),
#                     no step, the cluster, n[1-2] expanded, nodes mapped to channels, a node
#                     no channel measures said on stderr
#   record_in_srun    mw record as a step's task: the step id
#   spank_step        srun --mw-record=DIR --mw-meter=sim over two nodes: the run
#                     DIR/JOB.STEP is complete when srun returns, carries the step's identity,
#                     and its windows cover the tasks' own start and end times
#   spank_no_meter    a meter that cannot be opened: the step runs (exit 0), one line says it
#                     is unrecorded, no run is made; the same for a DIR that is a symbolic
#                     link or writable by others; a plugstack.conf argument we do not know
#                     stops srun
#   plugin_man_page   the plugin is built; its manual page reads without a groff warning
#   spank_late        a recorder that starts after plugstack.conf's wait=: the step runs, the
#                     recording goes on to the step's end and is complete (it died of SIGPIPE)
#   spank_stuck       a recorder that does not end (ignores SIGTERM): srun's exit stops it
#                     after end_wait= (SIGTERM, then SIGKILL 5 s later) and returns
#   spank_srun_killed srun killed with SIGKILL mid-step: the recording still ends and the run
#                     is closed "complete" (its end is tied to a pipe only srun held)
#   jobs_energy       sbatch with two recorded steps, then mw jobs: one job, two steps, per
#                     channel energy equal to the windows' own sum (SQL) and node0's mean
#                     power the simulated board's 156.3 W; --json valid under its schema;
#                     usage errors
# Without root, or where a daemon does not start, the Slurm cases are skipped, saying why.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh
. tests/integration/slurm_lib.sh

SPANK=$(abs "$BUILD/lib/mw_spank.so")

meta() { q "$1" "select value from meta where key='$2'"; }

hostile_env() {
  SLURM_JOB_ID='12;rm -rf' "$MW" record -q -o "$TMP/h1" --meter sim -- true 2>"$TMP/h1.err"
  expect_eq "bad job id: recorded" "$?" 0
  expect_grep "bad job id: said" "SLURM_JOB_ID is not a job id" "$TMP/h1.err"
  expect_eq "bad job id: no slurm key" "$(q "$TMP/h1" "select count(*) from meta where key like 'slurm%'")" 0
  SLURM_JOB_ID=7 SLURM_JOB_NODELIST=--help "$MW" record -q -o "$TMP/h2" --meter sim -- true 2>"$TMP/h2.err"
  expect_eq "option as node list: recorded" "$?" 0
  expect_grep "option as node list: said" "no usable SLURM_JOB_NODELIST" "$TMP/h2.err"
  expect_eq "job id kept" "$(meta "$TMP/h2" slurm_job_id)" 7
  expect_eq "no nodes" "$(q "$TMP/h2" "select count(*) from meta where key='slurm_nodes'")" 0
  SLURM_JOB_ID=8 SLURM_JOB_NODELIST='n[1-3' "$MW" record -q -o "$TMP/h3" --meter sim -- true 2>"$TMP/h3.err"
  expect_eq "bad node list: recorded" "$?" 0
  expect_grep "bad node list: scontrol's word" "node list not expanded (scontrol show hostnames" "$TMP/h3.err"
  expect_eq "bad node list: stored as given" "$(meta "$TMP/h3" slurm_job_nodelist)" 'n[1-3'
  # a cluster name with an escape sequence is not stored
  SLURM_JOB_ID=9 SLURM_CLUSTER_NAME=$'c\e[31m' "$MW" record -q -o "$TMP/h4" --meter sim -- true 2>/dev/null
  expect_eq "escape in cluster name: not stored" "$(q "$TMP/h4" "select count(*) from meta where key='slurm_cluster'")" 0
}

record_in_salloc() {
  salloc -Q -N2 sh -c 'echo "$SLURM_JOB_ID" >"$0/salloc.job"; exec "$1" record -q -o "$0/sa" --meter sim --channels node0@n1,node1,switch -- sleep 1' \
    "$TMP" "$MW" 2>"$TMP/sa.err"
  expect_eq "exit" "$?" 0
  local job; job=$(cat "$TMP/salloc.job")
  expect_num "the job shell's id" "$job" 1 1000000
  expect_eq "slurm_job_id" "$(meta "$TMP/sa" slurm_job_id)" "$job"
  expect_eq "no step in salloc's shell" "$(q "$TMP/sa" "select count(*) from meta where key='slurm_step_id'")" 0
  expect_eq "cluster" "$(meta "$TMP/sa" slurm_cluster)" "$SLURM_CLUSTER"
  expect_eq "node list as given" "$(meta "$TMP/sa" slurm_job_nodelist)" 'n[1-2]'
  expect_eq "nodes expanded" "$(meta "$TMP/sa" slurm_nodes)" n1,n2
  expect_eq "nodes to channels" "$(meta "$TMP/sa" slurm_node_channels)" "n1=node0 n2=-"
  expect_eq "node without channel" "$(meta "$TMP/sa" slurm_nodes_without_channel)" n2
  expect_grep "said" "Slurm job $job: no channel measures node n2 " "$TMP/sa.err"
}

record_in_srun() {
  srun -N1 -w n2 sh -c 'echo "$SLURM_JOB_ID.$SLURM_STEP_ID" >"$0/srun.id"; exec "$1" record -q -o "$0/sr" --meter sim --channels a@n1,b@n2,n2 -- true' \
    "$TMP" "$MW" 2>"$TMP/sr.err"
  expect_eq "exit" "$?" 0
  local id; id=$(cat "$TMP/srun.id")
  expect_eq "job.step" "$(meta "$TMP/sr" slurm_job_id).$(meta "$TMP/sr" slurm_step_id)" "$id"
  expect_eq "the job's node" "$(meta "$TMP/sr" slurm_nodes)" n2
  expect_eq "the step's node" "$(meta "$TMP/sr" slurm_step_nodes)" n2
  expect_eq "two channels of n2 (by host, by name)" "$(meta "$TMP/sr" slurm_node_channels)" "n2=b+n2"
  expect_eq "nothing said" "$(wc -c <"$TMP/sr.err")" 0
}

spank_step() {
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
  srun --help 2>&1 | grep -q -- '--mw-record=DIR' || { echo "  FAIL: srun --help lacks --mw-record"; CASE_OK=0; }
  local j=$TMP/jobs1
  srun -N2 --mw-record="$j" --mw-meter=sim \
    sh -c 'date +%s%N >"$0/t0.$SLURM_NODEID"; echo "$SLURM_JOB_ID.$SLURM_STEP_ID" >"$0/step.id"; sleep 1.5; date +%s%N >"$0/t1.$SLURM_NODEID"' \
    "$TMP" 2>"$TMP/sp.err" >"$TMP/sp.out"
  expect_eq "srun's exit" "$?" 0
  local id; id=$(cat "$TMP/step.id")
  local r=$j/$id
  check "run $r made" test -f "$r/trace.db"
  # srun returned after the recorder closed the run
  expect_eq "complete when srun returns" "$(meta "$r" status)" complete
  expect_eq "job.step" "$(meta "$r" slurm_job_id).$(meta "$r" slurm_step_id)" "$id"
  expect_eq "the step's nodes" "$(meta "$r" slurm_nodes)" n1,n2
  expect_eq "the step's command" "$(meta "$r" slurm_step_command)" "sh -c 'date +%s%N >\"\$0/t0.\$SLURM_NODEID\"; echo \"\$SLURM_JOB_ID.\$SLURM_STEP_ID\" >\"\$0/step.id\"; sleep 1.5; date +%s%N >\"\$0/t1.\$SLURM_NODEID\"' $TMP"
  expect_eq "cluster" "$(meta "$r" slurm_cluster)" "$SLURM_CLUSTER"
  # 1.5 s of tasks at 4 Hz: at least 6 windows of channel 1, and every task's own start and
  # end (its date, not ours) inside the windows' span
  expect_num "windows" "$(q "$r" "select count(*) from samples where channel=1")" 6 40
  local t0 t1
  t0=$(cat "$TMP"/t0.* | sort -n | head -1)
  t1=$(cat "$TMP"/t1.* | sort -n | tail -1)
  expect_eq "tasks inside measured time" \
    "$(q "$r" "select min(t0_ns) <= $t0 and max(t1_ns) >= $t1 from samples where channel=1")" 1
  expect_num "node0 mean power (W)" "$(q "$r" "select avg(power_mw)/1000.0 from samples where channel=1")" 154.7 157.9
  expect_eq "the tasks' output untouched" "$(sort "$TMP/sp.out" | tr '\n' ' ')" ""
  # srun started with standard input and error closed: the recording is still made, complete
  # (a guard: this Slurm's srun may reopen them itself before the plugin runs)
  srun -N1 --mw-record="$TMP/closed" --mw-meter=sim sleep 1 0<&- 2>&-
  expect_eq "fds 0 and 2 closed: exit" "$?" 0
  expect_eq "fds 0 and 2 closed: complete" "$(meta "$(ls -d "$TMP"/closed/*.0)" status)" complete
  # the step's command with a ' in it reads back, through sh, as the words given; a command
  # longer than the plugin holds (4 KiB) ends " ..." after its last whole word
  srun -N1 --mw-record="$TMP/quoted" --mw-meter=sim true "it's" 'a b' 2>/dev/null
  local c; c=$(meta "$(ls -d "$TMP"/quoted/*.0)" slurm_step_command)
  expect_eq "quote: stored" "$c" "true 'it'\\''s' 'a b'"
  eval "set -- $c" 2>/dev/null || set -- unreadable
  expect_eq "quote: the words back through sh" "$#|${1-}|${2-}|${3-}" "3|true|it's|a b"
  srun -N1 --mw-record="$TMP/long" --mw-meter=sim true short "$(printf '%5000s' | tr ' ' x)" 2>/dev/null
  expect_eq "long command: cut after a word" "$(meta "$(ls -d "$TMP"/long/*.0)" slurm_step_command)" "true short ..."
  # MW_METER as the default meter; mw found on srun's PATH (no mw= in plugstack.conf)
  echo "required $SPANK" >"$SLURM_PLUGSTACK"
  PATH=$(dirname "$MW"):$PATH MW_METER=sim srun -N1 --mw-record="$j" true 2>"$TMP/sp2.err"
  expect_eq "MW_METER: exit" "$?" 0
  expect_eq "MW_METER: a second run" "$(ls "$j" | wc -l)" 2
}

spank_no_meter() {
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
  srun -N1 --mw-record="$TMP/jobs2" --mw-meter=/nonexistent/ttyACM9 sh -c 'echo ran' \
    >"$TMP/nm.out" 2>"$TMP/nm.err"
  expect_eq "the step runs: exit" "$?" 0
  expect_eq "the step ran" "$(cat "$TMP/nm.out")" ran
  expect_grep "mw record's reason" "/nonexistent/ttyACM9: no such port" "$TMP/nm.err"
  expect_grep "said unrecorded" "the step runs unrecorded" "$TMP/nm.err"
  expect_eq "no run made" "$(ls "$TMP/jobs2" | wc -l)" 0
  # mw not found where plugstack.conf says: the same, with the exec's failure
  echo "required $SPANK mw=/nonexistent/bin/mw" >"$SLURM_PLUGSTACK"
  srun -N1 --mw-record="$TMP/jobs2" sh -c 'echo ran' >"$TMP/nm3.out" 2>"$TMP/nm3.err"
  expect_eq "no mw: the step runs" "$?.$(cat "$TMP/nm3.out")" 0.ran
  expect_grep "no mw: said" "could not start (exit status 127, said above): the step runs unrecorded" "$TMP/nm3.err"
  # a DIR that is a symbolic link (or someone else's, or writable by others): refused
  mkdir -p "$TMP/elsewhere" "$TMP/shared"
  ln -s "$TMP/elsewhere" "$TMP/link"
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
  srun -N1 --mw-record="$TMP/link" --mw-meter=sim sh -c 'echo ran' >"$TMP/nm4.out" 2>"$TMP/nm4.err"
  expect_eq "DIR a symlink: the step runs" "$?.$(cat "$TMP/nm4.out")" 0.ran
  expect_grep "DIR a symlink: said" "link: a symbolic link: the step runs unrecorded" "$TMP/nm4.err"
  expect_eq "DIR a symlink: nothing recorded" "$(ls "$TMP/elsewhere" | wc -l)" 0
  chmod 0777 "$TMP/shared"
  srun -N1 --mw-record="$TMP/shared" --mw-meter=sim true 2>"$TMP/nm5.err"
  expect_grep "DIR writable by others: said" "shared: writable by others" "$TMP/nm5.err"
  expect_eq "DIR writable by others: nothing recorded" "$(ls "$TMP/shared" | wc -l)" 0
  # "mw" is never taken from the current directory, not for an empty or "." PATH entry
  mkdir -p "$TMP/evil"
  printf '#!/bin/sh\ntouch "%s/evil/ran"\n' "$TMP" >"$TMP/evil/mw"
  chmod +x "$TMP/evil/mw"
  echo "required $SPANK" >"$SLURM_PLUGSTACK"
  (cd "$TMP/evil" && PATH=":.:$(dirname "$(command -v srun)"):/usr/bin:/bin" srun -N1 --mw-record="$TMP/jobs6" true 2>"$TMP/nm6.err")
  expect_eq "./mw: the step runs" "$?" 0
  check "./mw: not run" test ! -e "$TMP/evil/ran"
  expect_grep "./mw: said" "no mw in an absolute directory of PATH: the step runs unrecorded" "$TMP/nm6.err"
  echo "required $SPANK mw=bin/mw" >"$SLURM_PLUGSTACK"
  srun -N1 true 2>"$TMP/nm7.err"
  check "mw= a relative path: srun fails" test $? -ne 0
  expect_grep "mw= a relative path: said" "mw=bin/mw: an absolute path or a name on PATH" "$TMP/nm7.err"
  echo "required $SPANK mw=$MW colour=blue" >"$SLURM_PLUGSTACK"
  srun -N1 true 2>"$TMP/nm2.err"
  check "unknown plugstack argument: srun fails" test $? -ne 0
  expect_grep "names it" "unknown argument 'colour=blue'" "$TMP/nm2.err"
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
}

spank_late() {
  # a recorder that starts after wait=1 (mw behind a 2 s sleep): the step runs at once, the
  # recording still runs to the step's end (its sign on a pipe srun keeps open) and is complete
  printf '#!/bin/sh\nsleep 2\nexec "%s" "$@"\n' "$MW" >"$TMP/slow-mw"
  chmod +x "$TMP/slow-mw"
  echo "required $SPANK mw=$TMP/slow-mw wait=1" >"$SLURM_PLUGSTACK"
  srun -N1 --mw-record="$TMP/late" --mw-meter=sim sleep 4 2>"$TMP/late.err"
  expect_eq "late recorder: srun's exit" "$?" 0
  expect_grep "late recorder: said" "did not start within 1 s: the step runs" "$TMP/late.err"
  local r; r=$(ls -d "$TMP"/late/*.0)
  expect_eq "late recorder: complete" "$(meta "$r" status)" complete
  # about 2 s of the step left once the recorder is up (6 to 8 windows on a quiet machine);
  # on a loaded one the board's start takes more of it: some windows, at least one
  expect_num "late recorder: windows of the step's rest" "$(q "$r" "select count(*) from samples where channel=1")" 1 20
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
}

spank_stuck() {
  # a recorder that never ends (a fake mw: it gives the sign, then ignores SIGTERM and its
  # stdin's end): srun's exit waits end_wait=1 s, SIGTERM, 5 s, SIGKILL, and returns
  printf '#!/bin/sh\ntrap "" TERM\necho x >&3\nexec 3>&-\necho $$ >"%s/stuck.pid"\nwhile :; do sleep 0.2; done\n' "$TMP" >"$TMP/stuck-mw"
  chmod +x "$TMP/stuck-mw"
  echo "required $SPANK mw=$TMP/stuck-mw end_wait=1" >"$SLURM_PLUGSTACK"
  local t0 t1
  t0=$(date +%s%N)
  srun -N1 --mw-record="$TMP/stuck" true 2>"$TMP/stuck.err"
  expect_eq "stuck recorder: srun's exit" "$?" 0
  t1=$(date +%s%N)
  expect_num "stuck recorder: srun held (s)" "$(( (t1 - t0) / 1000000000 ))" 5 15
  expect_grep "stuck recorder: SIGTERM said" "has not ended in 1 s: stopping it (SIGTERM)" "$TMP/stuck.err"
  expect_grep "stuck recorder: SIGKILL said" "killed (SIGKILL)" "$TMP/stuck.err"
  check "stuck recorder: gone" test ! -d "/proc/$(cat "$TMP/stuck.pid")"
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
}

spank_srun_killed() {
  echo "required $SPANK mw=$MW" >"$SLURM_PLUGSTACK"
  srun -N1 --mw-record="$TMP/killed" --mw-meter=sim sleep 30 2>/dev/null &
  local sp=$! r s
  # srun is killed once the recording has 4 windows (each wait up to 60 s: a fixed 1.5 s saw
  # fewer where the board was slow to start on a loaded machine)
  for _ in $(seq 600); do r=$(ls -d "$TMP"/killed/*.0 2>/dev/null) && [ -n "$r" ] && break; sleep 0.1; done
  for _ in $(seq 600); do
    [ "$(q "$r" "select count(*) from samples where channel=1" 2>/dev/null || echo 0)" -ge 4 ] 2>/dev/null && break
    sleep 0.1
  done
  { kill -9 "$sp"; wait "$sp"; } 2>/dev/null # (bash's "Killed" line not shown)
  for _ in $(seq 600); do s=$(meta "$r" status); [ "$s" != recording ] && break; sleep 0.1; done
  # the pipe only srun held is closed by the kernel: the recording ends, the run is closed
  expect_eq "srun killed: the run closed" "$s" complete
  expect_num "srun killed: windows until then" "$(q "$r" "select count(*) from samples where channel=1")" 4 20
  scancel --quiet --full --user=root 2>/dev/null
}

jobs_energy() {
  echo "required $SPANK mw=$MW meter=sim" >"$SLURM_PLUGSTACK"
  local j=$TMP/jobs3
  # the channels file names the nodes each channel measures (it reaches the recorder through
  # sbatch's and srun's environment); n3 is no node of the job, the switch none
  printf '1 node0 n1\n2 node1 n2\n3 node2 n3\n5 switch\n' >"$TMP/channels"
  export MW_CHANNELS_FILE=$TMP/channels
  # the site's meter (plugstack.conf meter=sim); two steps of one batch job
  sbatch -Q -W -N2 -o "$TMP/batch.out" --wrap "srun -N2 --mw-record=$j sleep 1; srun -N1 -w n1 --mw-record=$j sleep 1" \
    2>"$TMP/b.err"
  expect_eq "sbatch -W: exit" "$?" 0
  expect_eq "two runs" "$(ls "$j" | wc -l)" 2
  expect_eq "step 0's nodes" "$(meta "$(ls -d "$j"/*.0)" slurm_step_nodes)" n1,n2
  expect_eq "step 1's node (srun -w n1)" "$(meta "$(ls -d "$j"/*.1)" slurm_step_nodes)" n1
  expect_eq "step 1's job's nodes" "$(meta "$(ls -d "$j"/*.1)" slurm_nodes)" n1,n2
  "$MW" jobs "$j" >"$TMP/jobs.txt" 2>"$TMP/jobs.err"
  expect_eq "mw jobs: exit" "$?" 0
  expect_grep "one job, two steps" "^job [0-9]* (cluster $SLURM_CLUSTER): 2 steps" "$TMP/jobs.txt"
  "$MW" jobs --json "$j" >"$TMP/jobs.json"
  expect_eq "mw jobs --json: exit" "$?" 0
  python3 tests/integration/validate_json.py "$TMP/jobs.json" >"$TMP/valid.out" 2>&1
  expect_eq "valid under megawatt.jobs-1.schema.json" "$?" 0
  # independently: each channel's energy is the sum of power_mw x window length (SQL) over
  # the two runs
  local want got r
  for ch in 1 5; do
    want=0
    for r in "$j"/*; do
      want=$(awk -v a="$want" -v b="$(q "$r" "select sum(power_mw*(t1_ns-t0_ns))/1e12 from samples where channel=$ch")" 'BEGIN { printf "%.6f", a + b }')
    done
    got=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['jobs'][0]['channels'][$ch-1]['energy_j'])" "$TMP/jobs.json")
    expect_num "channel $ch energy (J)" "$got" "$(awk -v w="$want" 'BEGIN{print w-0.001}')" "$(awk -v w="$want" 'BEGIN{print w+0.001}')"
  done
  unset MW_CHANNELS_FILE
  python3 - "$TMP/jobs.json" >"$TMP/jobs.check" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"][0]
c = j["channels"][0]
print(len(d["jobs"]), len(j["steps"]), ",".join(j["nodes"]),
      "%.1f" % (c["energy_j"] / j["duration_s"]), abs(c["energy_wh"] * 3600 - c["energy_j"]) < 3e-6,
      j["overlapping_steps"], ",".join(s["step_id"] for s in j["steps"]),
      ",".join(x["name"] for x in j["channels"] if x["job_node"]),
      abs(j["energy_j"]["job_nodes"] - j["channels"][0]["energy_j"] - j["channels"][1]["energy_j"]) < 2e-6,
      abs(j["energy_j"]["all_channels"] - sum(x["energy_j"] for x in j["channels"])) < 5e-6,
      ",".join(j["nodes_without_channel"]) or "-")
EOF
  # node0 of the simulated board draws 156.3 W: energy / recorded time
  read -r njobs nsteps nodes p0 wh overlap steps ofjob sum_nodes sum_all unmeasured <"$TMP/jobs.check"
  expect_eq "jobs" "$njobs" 1
  expect_eq "steps" "$nsteps" 2
  expect_eq "nodes" "$nodes" n1,n2
  expect_num "node0 energy / duration (W)" "$p0" 154.7 157.9
  expect_eq "Wh = J / 3600" "$wh" True
  expect_eq "steps one after the other" "$overlap" False
  expect_eq "step ids" "$steps" 0,1
  expect_eq "channels of the job's nodes" "$ofjob" node0,node1
  expect_eq "total of the job's nodes" "$sum_nodes" True
  expect_eq "total of all channels" "$sum_all" True
  expect_eq "every node measured" "$unmeasured" -
  expect_grep "text: switch measures no node of the job" "^  switch  *switch  *no " "$TMP/jobs.txt"
  # a run whose job id is no number (a hand-edited store) is left out, said, not printed
  mkdir -p "$TMP/hostile"
  cp -r "$(ls -d "$j"/*.0)" "$TMP/hostile/a"
  sqlite3 "$TMP/hostile/a/trace.db" "update meta set value='1'||char(10)||'x' where key='slurm_job_id'"
  cp -r "$(ls -d "$j"/*.1)" "$TMP/hostile/b"
  sqlite3 "$TMP/hostile/b/trace.db" "update channels set name='sw'||char(27)||'[31m' where channel=5; update meta set value='1x' where key='slurm_step_id'"
  "$MW" jobs "$TMP/hostile" >"$TMP/hj.txt" 2>"$TMP/hj.err"
  expect_eq "hostile: exit" "$?" 0
  expect_grep "hostile: job id said" "hostile/a: slurm_job_id is not a job id (left out)" "$TMP/hj.err"
  expect_eq "hostile: one job, one step" "$(grep -c '^job .*: 1 step,' "$TMP/hj.txt")" 1
  expect_eq "hostile: no escape byte printed" "$(grep -c $'\e' "$TMP/hj.txt")" 0
  "$MW" jobs --json "$TMP/hostile" >"$TMP/hj.json" 2>/dev/null
  python3 tests/integration/validate_json.py "$TMP/hj.json" >"$TMP/valid2.out" 2>&1
  expect_eq "hostile: --json valid" "$?" 0
  # usage and not-found
  expect_mw_usage jobs "no DIR" "missing DIR" 
  expect_mw_usage jobs "no such DIR" "neither a run nor a directory of runs" "$TMP/nonexistent"
  mkdir -p "$TMP/plain"
  "$MW" record -q -o "$TMP/plain/r" --meter sim -- true 2>/dev/null
  env -u SLURM_JOB_ID "$MW" jobs "$TMP/plain" >/dev/null 2>"$TMP/nj.err"
  expect_eq "no job run: exit" "$?" 1
  expect_grep "no job run: said" "no run of a Slurm job there (1 run without slurm_job_id)" "$TMP/nj.err"
}

plugin_man_page() {
  check "built" test -f "$SPANK"
  groff -man -ww -z slurm/mw_spank.8 >"$TMP/man.err" 2>&1
  expect_eq "groff reads slurm/mw_spank.8 without a warning" "$(cat "$TMP/man.err")" ""
}

run_case hostile_env
run_case plugin_man_page
if ! slurm_start 2; then
  echo "SKIP record_in_salloc record_in_srun spank_step spank_no_meter spank_srun_killed jobs_energy: $SLURM_SKIP_WHY"
  finish
  exit
fi
run_case record_in_salloc
run_case record_in_srun
run_case spank_step
run_case spank_no_meter
run_case spank_late
run_case spank_stuck
run_case spank_srun_killed
run_case jobs_energy
finish
