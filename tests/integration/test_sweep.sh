#!/usr/bin/env bash
# mw sweep end to end on the simulated board (docs/sweep.md): a 2 x 2 grid with 2 repetitions
# gives 8 valid runs, placeholders substituted in CMD's words (the command writes them into
# its run directory), interleaved order (every repetition 1 before any repetition 2, round 2
# rotated by one configuration), each run's energy over its command = the board's total
# load (478.7 W, Escobar et al. 2019 Table 5 + switch) x the command's time; mw analyze and mw fit take
# the sweep directory for its runs; a failing command is marked failed and the sweep goes
# on (exit 1); SIGINT after the 2nd run stops the sweep (exit 130) and the same command
# resumes it: only the 6 remaining runs execute, the 2 finished ones are untouched; the
# precision rule stops a constant command at the minimum of 3 repetitions, and a target
# no measurement can meet at --max-reps; bad usage exits 2 and creates nothing.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

IDLE=$(abs "$BUILD/bin/mwb-idle")
# CMD: writes "$0 $1" (the substituted {s} {k}) into its run directory, then idles $0 s
SHCMD=(sh -c 'echo "$0 $1" >"$MW_RUN_DIR/args"; exec "$2" --seconds "$0"')
LOAD_W=478.7 # 156.3 + 146.1 + 172.8 + 3.5: the simulated board's loads

sweep_grid() { # sweep_grid DIR [options...]: s = 0.05,0.1; k = x,y; 2 repetitions
  local d=$1; shift
  "$MW" sweep -o "$d" --param s=0.05,0.1 --param k=x,y --reps 2 --meter sim "$@" -- \
    "${SHCMD[@]}" {s} {k} "$IDLE"
}
qs() { sqlite3 -readonly "$1/sweep.db" "$2"; }

grid() {
  local d=$TMP/grid
  sweep_grid "$d" >"$TMP/grid.out" 2>"$TMP/grid.err"
  expect_eq "exit" "$?" 0
  expect_eq "runs done" "$(qs "$d" "select count(*) from runs where status='done' and exit_code=0")" 8
  expect_eq "run directories" "$(ls "$d/runs" | wc -l)" 8
  expect_eq "labels" "$(qs "$d" "select group_concat(label, ' ') from (select label from configs order by id)")" \
    "s=0.05,k=x s=0.05,k=y s=0.1,k=x s=0.1,k=y"
  # every run: parameter values in the index, in its run's command line, and as CMD saw them
  local bad=0 n=0
  while IFS='|' read -r dir s k; do
    n=$((n + 1))
    [ "$(cat "$d/$dir/args")" = "$s $k" ] || { echo "  $dir: args $(cat "$d/$dir/args")"; bad=1; }
    [ "$(q "$d/$dir" "select value from meta where key='status'")" = complete ] || bad=1
    q "$d/$dir" "select value from meta where key='command'" | grep -q -- " $s $k " || bad=1
    case $dir in "runs/s=${s}_k=${k}-r"[12]) ;; *) echo "  name $dir"; bad=1 ;; esac
  done < <(qs "$d" "select r.dir, s.value, k.value from runs r
                    join config_values s on s.config = r.config and s.param = 's'
                    join config_values k on k.config = r.config and k.param = 'k'")
  expect_eq "runs checked" "$n" 8
  expect_eq "values, args, command lines, names" "$bad" 0
  "$MW" ls "$d"/runs/* >"$TMP/grid.ls"
  expect_eq "mw ls: exit" "$?" 0
  expect_eq "mw ls: complete runs" "$(grep -c complete "$TMP/grid.ls")" 8
  # order: round 1 = configurations 1 2 3 4, round 2 rotated = 2 3 4 1
  expect_eq "interleaved order" \
    "$(qs "$d" "select group_concat(config || 'r' || rep, ' ') from (select * from runs order by started_ns)")" \
    "1r1 2r1 3r1 4r1 2r2 3r2 4r2 1r2"
  # energy over the command = the loads x its time, within 2 %
  expect_eq "energy = 478.7 W x command time" \
    "$(qs "$d" "select count(*) from runs where cmd_s > 0.04 and abs(energy_j / cmd_s - $LOAD_W) < 0.02 * $LOAD_W")" 8
  expect_eq "wall time recorded" "$(qs "$d" "select count(*) from runs where wall_s >= cmd_s")" 8
  expect_eq "stop reasons" "$(qs "$d" "select count(*) from configs where stop_reason='reps'")" 4
  expect_eq "meta status" "$(qs "$d" "select value from meta where key='status'")" complete
  expect_eq "summary rows with 2 done" "$(grep -cE '^s=0\.[01]5?,k=[xy] +2 +0 ' "$TMP/grid.out")" 4
  expect_eq "progress lines" "$(grep -cE '^mw sweep: \[[1-8]/8\] .* r[12] done in [0-9.]+ s, ETA' "$TMP/grid.err")" 8
  # readers take the sweep directory for its runs
  "$MW" analyze "$d" >"$TMP/an.txt" 2>"$TMP/an.err"
  expect_eq "mw analyze SWEEPDIR: exit" "$?" 0
  expect_grep "mw analyze: across the 8 runs" "across 8 runs" "$TMP/an.txt"
  expect_eq "mw analyze: the runs" "$(grep -c "^run .*$d/runs/s=" "$TMP/an.txt")" 8
  "$MW" fit --model escobar "$d" >/dev/null 2>"$TMP/fit.err"
  expect_eq "mw fit SWEEPDIR: exit (no eeg-mofs runs)" "$?" 2
  expect_grep "mw fit: reads the sweep's runs" "$d/runs/s=0.05_k=x-r1" "$TMP/fit.err"
  # a sweep of the same command and parameters again: nothing left to run
  local before; before=$(qs "$d" "select group_concat(started_ns) from runs")
  sweep_grid "$d" >/dev/null 2>"$TMP/grid2.err"
  expect_eq "again: exit" "$?" 0
  expect_eq "again: nothing rerun" "$(qs "$d" "select group_concat(started_ns) from runs")" "$before"
  expect_eq "again: no run started" "$(grep -c started "$TMP/grid2.err")" 0
}

failing() {
  local d=$TMP/fail
  "$MW" sweep -o "$d" --param c=0,3 --reps 1 --meter sim -- sh -c 'exit $0' {c} '{}' '{1}{a b}x{' \
    >/dev/null 2>"$TMP/fail.err"
  expect_eq "exit" "$?" 1
  expect_eq "braces that are no placeholder left alone" \
    "$(q "$d/runs/c=3-r1" "select value from meta where key='command'")" "sh -c 'exit \$0' 3 '{}' '{1}{a b}x{'"
  expect_eq "statuses" "$(qs "$d" "select group_concat(c.label || ':' || r.status || ':' || r.exit_code, ' ')
                                   from runs r join configs c on c.id = r.config")" "c=0:done:0 c=3:failed:3"
  expect_grep "reported" "c=3 r1 FAILED (exit 3)" "$TMP/fail.err"
  expect_eq "meta status" "$(qs "$d" "select value from meta where key='status'")" failed
  # a sweep with no finished run cannot stand for runs
  "$MW" sweep -o "$TMP/fail2" --param c=4 --reps 1 --meter sim -- sh -c 'exit $0' {c} \
    >/dev/null 2>&1
  expect_eq "all failed: exit" "$?" 1
  "$MW" analyze "$TMP/fail2" >/dev/null 2>"$TMP/fail2.err"
  expect_eq "analyze a sweep without a finished run: exit" "$?" 2
  expect_grep "analyze: says why" "no finished run" "$TMP/fail2.err"
}

resume() {
  local d=$TMP/resume
  # in the background, mw itself (not a subshell, which would ignore SIGINT) gets the signal
  "$MW" sweep -o "$d" --param s=0.05,0.1 --param k=x,y --reps 2 --meter sim -- \
    "${SHCMD[@]}" {s} {k} "$IDLE" >/dev/null 2>"$TMP/res1.err" &
  local pid=$!
  # until the second run is done: up to 60 s (20 s, two runs on a loaded machine, could pass
  # first and the interrupt then came in the wrong run)
  for _ in $(seq 1200); do
    grep -q '\[2/8\] .* done' "$TMP/res1.err" 2>/dev/null && break
    sleep 0.05
  done
  kill -INT "$pid"
  wait "$pid"
  expect_eq "interrupted: exit" "$?" 130
  expect_eq "interrupted: done" "$(qs "$d" "select group_concat(config || 'r' || rep, ' ') from runs where status='done'")" "1r1 2r1"
  expect_eq "interrupted: none running" "$(qs "$d" "select count(*) from runs where status not in ('done', 'planned')")" 0
  expect_eq "interrupted: meta status" "$(qs "$d" "select value from meta where key='status'")" interrupted
  expect_grep "interrupted: says how to resume" "resumes the sweep" "$TMP/res1.err"
  local before mt1 mt2
  before=$(qs "$d" "select group_concat(started_ns) from runs where status='done'")
  mt1=$(stat -c %y "$d/runs/s=0.05_k=x-r1/trace.db" "$d/runs/s=0.05_k=y-r1/trace.db")
  sweep_grid "$d" >/dev/null 2>"$TMP/res2.err"
  expect_eq "resumed: exit" "$?" 0
  expect_eq "resumed: runs executed" "$(grep -c ' started$' "$TMP/res2.err")" 6
  expect_eq "resumed: first two not rerun" "$(grep -cE '(s=0.05,k=x|s=0.05,k=y) r1 started' "$TMP/res2.err")" 0
  expect_eq "resumed: all done" "$(qs "$d" "select count(*) from runs where status='done'")" 8
  expect_eq "resumed: finished runs untouched (started_ns)" \
    "$(qs "$d" "select group_concat(started_ns) from runs where config in (1, 2) and rep = 1")" "$before"
  mt2=$(stat -c %y "$d/runs/s=0.05_k=x-r1/trace.db" "$d/runs/s=0.05_k=y-r1/trace.db")
  expect_eq "resumed: finished runs untouched (mtime)" "$mt2" "$mt1"
  expect_eq "resumed: the interrupted run redone, complete" \
    "$(q "$d/runs/s=0.1_k=x-r1" "select value from meta where key='status'")" complete
  expect_eq "resumed: interleaved" \
    "$(qs "$d" "select group_concat(config || 'r' || rep, ' ') from (select * from runs order by started_ns)")" \
    "1r1 2r1 3r1 4r1 2r2 3r2 4r2 1r2"
}

# Precision. The rule after n >= 3 repetitions: stop when t(0.975, n-1) s / sqrt(n) <= 2.5 %
# of the mean, for the command's time and for its energy alike. A constant command (mwb-idle
# 0.3 s; mw record sees its end at the next 250 ms window, so its time is 0.5 s to a few ms)
# has s far below 1 % of the mean, so it stops at the minimum: t(0.975, 2) s / sqrt(3) = 2.48
# s <= 2.5 % of the mean needs s <= 1.0 % of it. That analytic expectation is asserted
# whenever the first 3 times and energies spread over at most 1.7 % of their mean (then s <=
# 1.0 % by arithmetic; on a heavily loaded machine the recorder can see an end one window
# late, and the rule then rightly asks for more runs); in every case
# the number of repetitions must be the first n at which the rule, recomputed here from the
# index's figures (Student-t quantiles from a table), is met, or --max-reps. 0.001 % needs
# s <= 0.0004 % (2 us in 0.5 s): not met, so --max-reps 3 stops it.
expected_stop() { # cmd_s|energy_j lines in repetition order -> the n the rule stops at
  awk -F'|' 'BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", t, " ") }
    { x[NR] = $1; y[NR] = $2 }
    function rel(v, n,   i, m, s) {
      m = 0; for (i = 1; i <= n; i++) m += v[i]; m /= n
      s = 0; for (i = 1; i <= n; i++) s += (v[i] - m) ^ 2; s = sqrt(s / (n - 1))
      return t[n - 1] * s / sqrt(n) / m
    }
    END { for (n = 3; n <= NR; n++) if (rel(x, n) <= 0.025 && rel(y, n) <= 0.025) { print n; exit }
          print "none" }'
}

precision() {
  local d=$TMP/prec
  "$MW" sweep -o "$d" --param s=0.3 --precision 2.5% --max-reps 5 --meter sim -- "$IDLE" \
    --seconds {s} >"$TMP/prec.out" 2>"$TMP/prec.err"
  expect_eq "exit" "$?" 0
  local n figures spread want
  n=$(qs "$d" "select count(*) from runs where status='done'")
  figures=$(qs "$d" "select cmd_s, energy_j from runs where status='done' order by rep")
  # relative spread (max - min) / mean of the first 3 times and energies, the larger
  spread=$(qs "$d" "select max((max(cmd_s) - min(cmd_s)) / avg(cmd_s),
                               (max(energy_j) - min(energy_j)) / avg(energy_j)) * 100
                    from runs where rep <= 3")
  want=$(echo "$figures" | expected_stop)
  if [ "$want" = none ]; then
    expect_eq "rule never met: --max-reps runs" "$n" 5
    expect_eq "rule never met: stopped at max reps" "$(qs "$d" "select stop_reason from configs")" max-reps
  else
    expect_eq "stops where the rule is first met" "$n" "$want"
    expect_eq "stopped: precision met" "$(qs "$d" "select stop_reason from configs")" precision
    expect_eq "time and energy within 2.5 %" \
      "$(qs "$d" "select time_rel <= 0.025 and energy_rel <= 0.025 and time_rel > 0 from configs")" 1
    expect_grep "summary" "precision (time" "$TMP/prec.out"
  fi
  # 3 values spread over d have s <= d / sqrt(3), so d <= 1.7 % of the mean gives s <= 1.0 %:
  # then the rule holds at 3, by arithmetic
  if awk -v x="$spread" 'BEGIN { exit !(x <= 1.7) }'; then
    expect_eq "constant command: stops at the minimum of 3" "$n" 3
  else
    echo "  (the first 3 runs spread over $spread % of their mean: a loaded machine; $n runs)"
  fi
  expect_eq "meta" "$(qs "$d" "select group_concat(value, ' ') from (select value from meta where key in ('mode', 'precision_rel', 'min_reps', 'max_reps') order by key)")" \
    "5 3 precision 0.025"
  d=$TMP/prec2
  "$MW" sweep -o "$d" --param s=0.05 --precision 0.001% --max-reps 3 --meter sim -- "$IDLE" \
    --seconds {s} >/dev/null 2>&1
  expect_eq "unmet: exit" "$?" 0
  expect_eq "unmet: 3 runs" "$(qs "$d" "select count(*) from runs where status='done'")" 3
  expect_eq "unmet: stopped at max reps" "$(qs "$d" "select stop_reason from configs")" max-reps
}

bad_usage() {
  local d=$TMP/bad n=0
  while IFS= read -r line; do
    eval "set -- $line"
    "$MW" sweep -o "$d" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
    local rc=$?
    n=$((n + 1))
    [ "$rc" = 2 ] || { echo "  FAIL: '$line': exit $rc"; CASE_OK=0; }
    [ "$(wc -l <"$TMP/bad.err")" = 1 ] || { echo "  FAIL: '$line': not one line:"; cat "$TMP/bad.err"; CASE_OK=0; }
    [ ! -e "$d" ] || { echo "  FAIL: '$line': created $d"; CASE_OK=0; rm -rf "$d"; }
  done <<'EOF'
--param s=1,2 -- echo {s} {t}
--param s=1,2 -- echo {s}x {S}
--param s=1,2 --param t=a -- echo {s}
--param s=1,2 echo {s}
--param s=1,2
--param s=1,2 --
--param s -- echo {s}
--param 9s=1 -- echo {9s}
--param s=1,,2 -- echo {s}
--param s=1,1 -- echo {s}
--param s=1 --param s=2 -- echo {s}
--param s=1 --reps 0 -- echo {s}
--param s=1 --reps 2.5 -- echo {s}
--param s=1 --precision 2 -- echo {s}
--param s=1 --precision 0% -- echo {s}
--param s=1 --reps 3 --precision 2% -- echo {s}
--param s=1 --max-reps 5 -- echo {s}
--param s=1 --precision 2% --max-reps 2 -- echo {s}
--param s=1 --idle -1 -- echo {s}
--param s=1 --bogus -- echo {s}
-- echo {s}
EOF
  expect_eq "cases" "$n" 21
  "$MW" sweep --param s=1 -- echo {s} 2>"$TMP/bad.err"
  expect_eq "no -o: exit" "$?" 2
  # an existing sweep of other parameters or another command: refused, left as it was
  local g=$TMP/grid sum; sum=$(md5sum <"$g/sweep.db")
  sweep_grid "$g" --param u=1 2>"$TMP/bad.err" >/dev/null
  expect_eq "a sweep with another parameter: exit" "$?" 2
  "$MW" sweep -o "$g" --param s=0.05,0.2 --param k=x,y --reps 2 --meter sim -- \
    "${SHCMD[@]}" {s} {k} "$IDLE" 2>"$TMP/bad.err"
  expect_eq "other values: exit" "$?" 2
  expect_grep "other values: says so" "another command or other parameters" "$TMP/bad.err"
  expect_grep "other values: suggests a new -o" "choose a new -o" "$TMP/bad.err"
  "$MW" sweep -o "$g" --param s=0.05,0.1 --param k=x,y --reps 2 --meter sim -- \
    "${SHCMD[@]}" {s} {k} "$IDLE" extra 2>"$TMP/bad.err"
  expect_eq "other command: exit" "$?" 2
  expect_eq "index unchanged" "$(md5sum <"$g/sweep.db")" "$sum"
  # a directory that is not a sweep
  mkdir -p "$TMP/notsweep" && touch "$TMP/notsweep/file"
  "$MW" sweep -o "$TMP/notsweep" --param s=1 -- echo {s} 2>"$TMP/bad.err"
  expect_eq "not a sweep directory: exit" "$?" 2
  expect_eq "not a sweep directory: untouched" "$(ls "$TMP/notsweep")" file
  # a meter that cannot be used: mw record's exit 2, nothing left behind
  "$MW" sweep -o "$d" --param s=1 --meter /dev/mw-no-such-port -- echo {s} 2>"$TMP/bad.err"
  expect_eq "no meter: exit" "$?" 2
  expect_eq "no meter: nothing created" "$(ls -d "$d" 2>/dev/null)" ""
  "$MW" sweep --help >"$TMP/help.out"
  expect_eq "help: exit" "$?" 0
  expect_grep "help: usage" "usage: mw sweep -o SWEEPDIR" "$TMP/help.out"
}

run_case grid
run_case failing
run_case resume
run_case precision
run_case bad_usage
finish
