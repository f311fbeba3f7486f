#!/usr/bin/env bash
# The simulated cluster end to end (--meter sim:cluster, docs/simulated-cluster.md): the real
# firmware on the simulated board, a real Open MPI run, the real collector and analysis.
# Three ranks each run their own busy/idle m-sequence (mwb-pattern): the Pow_idle/Pow_work
# that mw analyze recovers for each node are within 3 % of the configured levels (Escobar et al. 2019
# Table 5), each node's busy phases coincide with its channel's high power (mw align, r >=
# 0.9, lag within +-150 ms), every phase carries the node that ran it as host; an MPI
# all-to-all raises the switch by >= 0.3 W and keeps it below 5 W (scripts/cluster-check.sh).
# A master that waits for its workers' requests by testing and sleeping (eeg-mofs --wait
# sleep: it wakes every millisecond and queues for a core behind the workers) leaves the
# front end N1 near its idle power, as on a node of its own; polling in MPI (--wait spin)
# keeps N1 busy.
# A bad cluster file exits 2 naming file and line, and nothing is created.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
PAT=$(abs "$BUILD/bin/mwb-pattern")
A2A=$(abs "$BUILD/bin/mwb-alltoall")

end_to_end() {
  local p=(--bit-ms 1000 --seconds 24 --threads 1)
  "$MW" record -q -o "$TMP/pat" --meter sim:cluster --idle 2 -- mpirun --oversubscribe \
    -np 1 "$PAT" "${p[@]}" --seed 1 : -np 1 "$PAT" "${p[@]}" --seed 9 : \
    -np 1 "$PAT" "${p[@]}" --seed 77 >"$TMP/pat.out" 2>&1
  expect_eq "pattern run: exit" "$?" 0
  expect_eq "channels" "$(q "$TMP/pat" "SELECT group_concat(name || '@' || ifnull(host, ''), ',')
                                        FROM (SELECT * FROM channels ORDER BY channel)")" \
    "N1@N1,N2@N2,N3@N3,switch@,ch5@"
  expect_eq "names from the cluster, not a --channels nobody gave" \
    "$(q "$TMP/pat" "SELECT value FROM meta WHERE key = 'channels_from'")" "simulated cluster"
  expect_eq "busy phases per node" "$(q "$TMP/pat" "SELECT group_concat(host || ':' || n, ' ') FROM
      (SELECT host, count(DISTINCT pid) AS n FROM phases WHERE name = 'busy' GROUP BY host)")" \
    "N1:1 N2:1 N3:1"
  "$MW" record -q -o "$TMP/a2a" --meter sim:cluster --idle 3 -- mpirun --oversubscribe -np 3 \
    "$A2A" --bytes 4194304 --seconds 5 >"$TMP/a2a.out" 2>&1
  expect_eq "all-to-all run: exit" "$?" 0
  # by kind, mwb-pattern's own idle phases are not busy (phase_class.h): mw align's default
  # selection (kind user) gives the offset that --phases busy gives
  local by_kind
  by_kind=$("$MW" align "$TMP/pat" --channel N2 2>&1 | grep '^offset')
  check "align: an offset by kind" test -n "$by_kind"
  expect_eq "align: default selection is the busy phases" "$by_kind" \
    "$("$MW" align "$TMP/pat" --channel N2 --phases busy 2>&1 | grep '^offset')"
  scripts/cluster-check.sh "$MW" "$TMP/pat" "$TMP/a2a" >"$TMP/check.txt" 2>&1
  local rc=$?
  sed 's/^/    /' "$TMP/check.txt"
  expect_eq "cluster-check: exit" "$rc" 0
}

# n1_epochs RUNDIR: N1's mean power (W) from the last init to the master's last global migration
n1_epochs() {
  q "$1" "WITH s AS (SELECT (SELECT max(end_ns) FROM phases WHERE name = 'init') AS a,
                  (SELECT max(end_ns) FROM phases WHERE rank = 0 AND name = 'global migration') AS b)
          SELECT CASE WHEN count(*) > 0 THEN printf('%.1f', avg(x.power_mw) / 1000.0) END
          FROM samples x, channels c, s
          WHERE x.channel = c.channel AND c.name = 'N1' AND x.t0_ns >= s.a AND x.t1_ns <= s.b"
}

waiting_master() {
  local eeg=(mpirun --oversubscribe -np 3 "$(abs "$BUILD/bin/eeg-mofs")" --strategy v3
    --subpops 2 --patterns 120 --features 900 --individuals 480 --generations 30
    --global-every 10 --threads 1 -q)
  local w
  for w in sleep spin; do
    "$MW" record -q -o "$TMP/eeg-$w" --meter sim:cluster --idle 1 -- "${eeg[@]}" --wait "$w" \
      >"$TMP/eeg-$w.out" 2>&1
    expect_eq "eeg --wait $w: exit" "$?" 0
  done
  local sleep_w spin_w
  sleep_w=$(n1_epochs "$TMP/eeg-sleep")
  spin_w=$(n1_epochs "$TMP/eeg-spin")
  echo "    N1 while the master waits: --wait sleep $sleep_w W, --wait spin $spin_w W (idle 156.30, work 224.72)"
  # idle + 15 % and work - 15 % of the 68.42 W between the levels
  expect_num "sleeping master: N1 near idle" "$sleep_w" 150 166.6
  expect_num "spinning master: N1 busy" "$spin_w" 214.5 235
}

bad_file() {
  printf 'node N1 A1 100 200\nnode N2 A1 100 200\n' >"$TMP/bad.cluster"
  "$MW" record -q -o "$TMP/bad" --meter "sim:cluster=$TMP/bad.cluster" -- true 2>"$TMP/bad.err"
  expect_eq "bad file: exit" "$?" 2
  expect_grep "bad file: message" "bad.cluster:2: pin used twice: 'A1'" "$TMP/bad.err"
  check "bad file: nothing created" test ! -e "$TMP/bad"
}

run_case end_to_end
run_case waiting_master
run_case bad_file
finish
