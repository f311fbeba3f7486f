#!/usr/bin/env bash
# One exit-code policy for every command (docs/cli.md, "Exit codes"; issue 19, case 15):
# 0 success; 1 a runtime failure; 2 bad usage or bad input; mw record: its command's status.
# One case per entry of the command table (collector/cli.c; the last case checks that no
# entry was left out), each with
#   a good call                 exit 0 (--help where a good call needs hardware or an
#                               eeg-mofs study: mw flash, mw fit)
#   a usage error               exit 2, one line on stderr
#   a bad input file            exit 2, one line naming it: a trace.db that is not a
#                               database, a regular file as --meter, a garbage CSV, profile,
#                               ELF or HEX file
#   its numbers                 refused with exit 2 and the option named: hex (0x10), nan,
#                               inf, trailing characters, leading space, and values outside
#                               the documented range with that range in the message
#                               (--idle-power 1e308 names "0 to 1e+06 W")
#   a single-valued option given twice   exit 2, "--NAME given twice"
# and, for the stores: a trace.db holding a power of INT64_MAX is refused (exit 2, the
# column and value named) by every reader instead of reading as -1 mW.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

# ---- inputs ---------------------------------------------------------------------------
BASE=$TMP/base
"$MW" record -q -o "$BASE" --meter sim -- sleep 0.5 > "$TMP/record.log" 2>&1 ||
  { echo "mw record failed:"; cat "$TMP/record.log"; exit 1; }
NOTDB=$TMP/notdb # a run directory whose trace.db is not a database
mkdir -p "$NOTDB" && echo "hello, not a database" > "$NOTDB/trace.db"
GARBAGE=$TMP/garbage.txt
printf 'garbage\x01\x02 not any format\n' > "$GARBAGE"
# an imported run with a load pattern and matching compute phases (mw align, mw dvfs,
# mw stats): 30 s of 0.25 s windows, 100 W in the 1.5 s blocks whose bit in BITS is 1, 10 W
# in the others (irregular, so that mw align can tell the offset: a periodic pattern fits
# as well one period on, and align rightly says it cannot tell)
PAT=$TMP/pat
BITS=01101001110010110100
awk -v bits=$BITS 'BEGIN { print "time_s,channel,power_w"
  for (i = 1; i <= 120; i++) { t = i * 0.25; b = substr(bits, int((t - 0.125) / 1.5) + 1, 1)
    print t ",n1," (b == "1" ? 100 : 10) } }' > "$TMP/pat.csv"
"$MW" import --format csv "$TMP/pat.csv" -o "$PAT" > /dev/null 2>&1 || { echo "import failed"; exit 1; }
for k in $(seq 0 19); do
  [ "${BITS:$k:1}" = 1 ] || continue
  s=$((k * 1500000000)); e=$((s + 1500000000))
  sqlite3 "$PAT/trace.db" "INSERT INTO phases(rank, host, thread, kind, name, start_ns, end_ns,
    bytes) VALUES (0, 'h', 0, 'compute', 'work', $s, $e, 0)"
done
PROFILE=$TMP/good.prof
printf 'n 10\nstatic_power 1\ndevice C a=1 b=1\ndevice G a=2 b=0.5\n' > "$PROFILE"

# ---- helpers --------------------------------------------------------------------------
# rc_is WHAT WANT ARGS...: 'mw ARGS' exits WANT; an exit 2 has exactly one line on stderr
# (unless ONE_LINE=0: simavr's own messages, mw sweep's progress)
rc_is() {
  local what=$1 want=$2; shift 2
  timeout -k 5 60 "$MW" "$@" > "$TMP/out.txt" 2> "$TMP/err.txt" # 124: it hung (a
  local rc=$?                 # repeated option taken as the last: monitor ran forever)
  expect_eq "$what: exit" "$rc" "$want"
  if [ "$want" = 2 ] && [ "$rc" = 2 ] && [ "${ONE_LINE:-1}" = 1 ]; then
    expect_eq "$what: one line on stderr" "$(wc -l < "$TMP/err.txt")" 1
  fi
  [ "$rc" = "$want" ] || sed 's/^/    /' "$TMP/err.txt" | head -n 5
}
# refused WHAT PATTERN ARGS...: exit 2, one line on stderr matching PATTERN
refused() {
  local what=$1 pat=$2; shift 2
  rc_is "$what" 2 "$@"
  expect_grep "$what" "$pat" "$TMP/err.txt"
}
# not_numbers CMD OPT 'ARGS before' 'ARGS after': every non-decimal spelling is refused
# naming OPT ("OPT: 'TEXT' is not a ...")
not_numbers() {
  local cmd=$1 opt=$2 pre=$3 post=$4 v
  for v in 0x10 nan inf -inf 1e3x ' 1' '1 ' 1,5 ''; do
    # shellcheck disable=SC2086
    refused "mw $cmd $opt '$v'" "$opt: '$v' is not a" "$cmd" $pre "$opt" "$v" $post
  done
}

# ---- one case per command -------------------------------------------------------------
c_version() {
  rc_is "version" 0 version
  refused "version extra" "unexpected argument 'extra'" version extra
}

c_vmeter() {
  rc_is "vmeter --stdout" 0 vmeter --stdout --seconds 0.05
  refused "vmeter --frob" "unknown option '--frob'" vmeter --frob
  ONE_LINE=0 refused "vmeter --elf GARBAGE" "$GARBAGE: not a readable AVR ELF file" vmeter --elf "$GARBAGE" --stdout --seconds 0.05
  refused "vmeter --profile GARBAGE" "$GARBAGE" vmeter --profile "$GARBAGE" --stdout --seconds 0.05
  not_numbers vmeter --seconds "--stdout" ""
  refused "vmeter --seconds 1e308" "--seconds: '1e308' is not a number of seconds in 0.001..1e7" \
    vmeter --stdout --seconds 1e308
  refused "vmeter --ppm 0x10" "--ppm: '0x10'" vmeter --stdout --seconds 1 --ppm 0x10
  refused "vmeter --load A1=0x10" "--load: 'A1=0x10'" vmeter --stdout --seconds 1 --load A1=0x10
  refused "vmeter --load A0x1=5" "--load: 'A0x1=5'" vmeter --stdout --seconds 1 --load A0x1=5
  refused "vmeter --seconds twice" "--seconds given twice" vmeter --stdout --seconds 1 --seconds 2
  rc_is "vmeter --load twice (repeatable)" 0 vmeter --stdout --seconds 0.05 --load A1=5 --load A2=6
}

c_flash() {
  rc_is "flash --help" 0 flash --help
  refused "flash --frob" "unknown option '--frob'" flash --frob
  refused "flash GARBAGE.hex" "$GARBAGE" flash --port /dev/null "$GARBAGE"
  refused "flash --port FILE" "not a serial device" flash --port "$GARBAGE"
  not_numbers flash --timeout "--port /dev/null" "$GARBAGE"
  refused "flash --timeout 1e308" "--timeout: '1e308' is out of range (0.1 to 3600 s)" \
    flash --timeout 1e308
  refused "flash --port twice" "--port given twice" flash --port /dev/null --port /dev/null
}

c_export() {
  rc_is "export" 0 export "$BASE" --format csv
  refused "export --format xml" "--format: 'xml'" export "$BASE" --format xml
  refused "export NOTDB" "file is not a database" export "$NOTDB" --format csv
  refused "export --format twice" "--format given twice" export "$BASE" --format csv --format json
  rc_is "export --what channels" 0 export "$BASE" --format json --what channels
  refused "export --what frob" "--what: 'frob' is not samples, channels" export "$BASE" --format csv --what frob
}

c_ls() {
  rc_is "ls" 0 ls "$BASE"
  refused "ls --frob" "unknown option" ls --frob "$BASE"
  refused "ls NOTDB" "file is not a database" ls "$NOTDB"
}

c_show() {
  rc_is "show" 0 show "$BASE"
  refused "show two runs" "one RUNDIR only" show "$BASE" "$BASE"
  refused "show NOTDB" "file is not a database" show "$NOTDB"
}

c_record() {
  rc_is "record" 0 record -q -o "$TMP/r1" --meter sim -- true
  rc_is "record: the command's status" 3 record -q -o "$TMP/r2" --meter sim -- sh -c 'exit 3'
  refused "record without -o" "missing -o" record --meter sim -- true
  refused "record --meter FILE" "not a serial port" record -o "$TMP/r3" --meter "$GARBAGE" -- true
  not_numbers record --idle "-o $TMP/r4 --meter sim" "-- true"
  refused "record --idle 1e308" "--idle: '1e308' is out of range (0 to 86400 s)" \
    record -o "$TMP/r4" --idle 1e308 --meter sim -- true
  refused "record -o twice" "--output given twice" record -o "$TMP/r5" -o "$TMP/r6" --meter sim -- true
  not_numbers record --inband-hz "-o $TMP/r4 --meter sim" "-- true"
  refused "record --inband-hz 1e308" "--inband-hz: '1e308' is out of range (1 to 100 Hz)" \
    record -o "$TMP/r4" --inband-hz 1e308 --meter sim -- true
  refused "record --inband twice" "--inband given twice" \
    record -o "$TMP/r5" --inband none --inband rapl --meter sim -- true
  check "record: nothing made by refusals" test ! -e "$TMP/r4" -a ! -e "$TMP/r5" -a ! -e "$TMP/r6"
}

c_monitor() {
  rc_is "monitor" 0 monitor --meter sim --seconds 0.3
  refused "monitor --frob" "unknown option" monitor --frob
  refused "monitor --meter FILE" "not a serial port" monitor --meter "$GARBAGE" --seconds 1
  not_numbers monitor --seconds "--meter sim" ""
  refused "monitor --seconds 1e308" "--seconds: '1e308' is out of range (0.001 to 1e+09 s)" \
    monitor --meter sim --seconds 1e308
  refused "monitor --meter twice" "--meter given twice" monitor --meter sim --meter sim
}

c_info() {
  rc_is "info" 0 info --meter sim
  refused "info --frob" "unknown option" info --frob
  refused "info --meter FILE" "not a serial port" info --meter "$GARBAGE"
  refused "info --meter twice" "--meter given twice" info --meter sim --meter sim
}

c_calibrate() {
  rc_is "calibrate --dry-run" 0 calibrate --meter sim --reference-voltage 230 --windows 4 --dry-run
  refused "calibrate --frob" "unknown option" calibrate --frob
  refused "calibrate --meter FILE" "not a serial port" \
    calibrate --meter "$GARBAGE" --reference-voltage 230 --dry-run
  refused "calibrate --reference-voltage 0x10" "--reference-voltage: '0x10'" \
    calibrate --meter sim --reference-voltage 0x10 --dry-run
  refused "calibrate --reference-voltage 1e308" "--reference-voltage: '1e308' is not a voltage in 1..1000 V" \
    calibrate --meter sim --reference-voltage 1e308 --dry-run
  refused "calibrate --windows 1e1" "--windows: '1e1'" calibrate --windows 1e1 --dry-run
  refused "calibrate --channel 0x1" "--channel: '0x1'" calibrate --channel 0x1 --dry-run
  refused "calibrate --windows twice" "--windows given twice" calibrate --windows 4 --windows 5
}

c_merge() {
  cp -r "$BASE" "$TMP/m1"
  rc_is "merge" 0 merge "$TMP/m1"
  refused "merge without RUNDIR" "RUNDIR" merge
  refused "merge NOTDB" "file is not a database" merge "$NOTDB"
}

c_import() {
  rc_is "import" 0 import --format csv "$TMP/pat.csv" -o "$TMP/i1"
  refused "import --format xml" "--format" import --format xml "$TMP/pat.csv" -o "$TMP/i2"
  refused "import GARBAGE" "$GARBAGE" import --format csv "$GARBAGE" -o "$TMP/i3"
  refused "import -o twice" "--output given twice" import --format csv "$TMP/pat.csv" -o "$TMP/i4" -o "$TMP/i5"
  check "import: nothing made by refusals" test ! -e "$TMP/i2" -a ! -e "$TMP/i3" -a ! -e "$TMP/i4"
}

c_align() {
  rc_is "align" 0 align "$PAT" --channel n1
  refused "align --frob" "unknown option" align --frob "$PAT"
  refused "align NOTDB" "file is not a database" align "$NOTDB"
  refused "align --channel twice" "--channel given twice" align "$PAT" --channel n1 --channel n1
}

c_analyze() {
  rc_is "analyze" 0 analyze "$BASE"
  refused "analyze --frob" "unknown option" analyze --frob "$BASE"
  refused "analyze NOTDB" "file is not a database" analyze "$NOTDB"
  not_numbers analyze --from "$BASE" ""
  not_numbers analyze --to "$BASE" ""
  refused "analyze --from 0x10" "--from: '0x10' is not a number" analyze "$BASE" --from 0x10
  refused "analyze --from 1e10" "--from: '1e10' is out of range (-1e+09 to 1e+09 s)" \
    analyze "$BASE" --from 1e10
  refused "analyze --idle-power 1e308" "--idle-power: '1e308' is out of range (0 to 1e+06 W)" \
    analyze "$BASE" --idle-power 1e308
  refused "analyze --idle-power ch1=0x10" "--idle-power: 'ch1=0x10' is not W or NAME=W" \
    analyze "$BASE" --idle-power ch1=0x10
  refused "analyze --from twice" "--from given twice" analyze "$BASE" --from 0 --from 0.1
  rc_is "analyze --idle-power twice (repeatable)" 0 analyze "$BASE" --idle-power ch1=1 --idle-power ch2=2
}

c_stats() {
  rc_is "stats" 0 stats --channel n1 --quantity energy --group a "$PAT" "$PAT"
  refused "stats --quantity frob" "--quantity: 'frob'" stats --channel n1 --quantity frob --group a "$PAT"
  refused "stats NOTDB" "file is not a database" stats --channel n1 --quantity energy --group a "$NOTDB"
  not_numbers stats --confidence "--channel n1 --quantity energy" "--group a $PAT $PAT"
  refused "stats --confidence 95" "--confidence: '95' is out of range (1e-06 to 0.999999)" \
    stats --confidence 95 --channel n1 --quantity energy --group a "$PAT"
  refused "stats --channel twice" "--channel given twice" \
    stats --channel n1 --channel n1 --quantity energy --group a "$PAT"
}

c_pareto() {
  rc_is "pareto" 0 pareto "$PROFILE"
  refused "pareto --frob" "unknown option" pareto --frob "$PROFILE"
  refused "pareto GARBAGE" "$GARBAGE:1:" pareto "$GARBAGE"
  printf 'n 10\ndevice C a=1e300 b=1\ndevice G a=1 b=1\n' > "$TMP/huge.prof"
  refused "pareto a=1e300" "huge.prof:2: 'a=1e300': needs a number from 1e-09 to 1e+15" \
    pareto "$TMP/huge.prof"
  printf 'n 0x10\ndevice C a=1 b=1\n' > "$TMP/hex.prof"
  refused "pareto n 0x10" "hex.prof:1: n needs a number" pareto "$TMP/hex.prof"
  not_numbers pareto --time "$PROFILE" ""
  not_numbers pareto --n "$PROFILE" ""
  refused "pareto --static-power 1e300" "--static-power: '1e300' is out of range (0 to 1e+15 W)" \
    pareto "$PROFILE" --static-power 1e300
  refused "pareto --time twice" "--time given twice" pareto "$PROFILE" --time 10 --time 20
}

c_fit() {
  rc_is "fit --help" 0 fit --help
  refused "fit without --model" "missing --model" fit "$BASE"
  refused "fit NOTDB" "file is not a database" fit --model escobar "$NOTDB"
  not_numbers fit --confidence "--model escobar" "$BASE"
  refused "fit --model twice" "--model given twice" fit --model escobar --model escobar "$BASE"
}

c_dvfs() {
  rc_is "dvfs" 0 dvfs "$PAT" --freqs 2,1 --pd 10
  refused "dvfs without RUNDIR" "missing RUNDIR" dvfs
  refused "dvfs NOTDB" "file is not a database" dvfs "$NOTDB" --freqs 2,1 --pd 10
  not_numbers dvfs --ps "$PAT --freqs 2,1" ""
  refused "dvfs --ps 1e308" "--ps: '1e308' is out of range (0 to 1e+06 W)" dvfs "$PAT" --ps 1e308
  refused "dvfs --freqs 0x10" "--freqs: '0x10' is not a frequency" dvfs "$PAT" --freqs 0x10 --pd 10
  refused "dvfs --pd 0x10" "--pd: '0x10' is not W or NODE=W" dvfs "$PAT" --freqs 2 --pd 0x10
  refused "dvfs --pd 1e308" "--pd: '1e308' is not W or NODE=W" dvfs "$PAT" --freqs 2 --pd 1e308
  refused "dvfs --ps twice" "--ps given twice" dvfs "$PAT" --ps 1 --ps 2
}

c_plot() {
  rc_is "plot" 0 plot "$BASE" --kind trace -o "$TMP/p1"
  refused "plot --kind frob" "frob" plot "$BASE" --kind frob -o "$TMP/p2"
  refused "plot NOTDB" "file is not a database" plot "$NOTDB" -o "$TMP/p3"
  refused "plot GARBAGE profile" "$GARBAGE:1:" plot "$GARBAGE" -o "$TMP/p7"
  refused "plot --freqs 0x10" "--freqs: '0x10' is not a frequency" \
    plot "$BASE" --kind dvfs --freqs 0x10 -o "$TMP/p8"
  refused "plot --freqs nan,1" "--freqs: 'nan' is not a frequency" \
    plot "$BASE" --kind dvfs --freqs nan,1 -o "$TMP/p9" # issue 19 case 7: exited 0, freed bytes in the figure
  check "plot: nothing made by refusals" test ! -e "$TMP/p7" -a ! -e "$TMP/p8" -a ! -e "$TMP/p9"
  refused "plot -o twice" "--output given twice" plot "$BASE" -o "$TMP/p4" -o "$TMP/p5"
  rc_is "plot --kind twice (repeatable)" 0 plot "$BASE" --kind trace --kind histogram -o "$TMP/p6"
}

c_report() {
  rc_is "report" 0 report "$BASE" -o "$TMP/rep1" --no-figures -q
  refused "report --frob" "unknown option" report --frob "$BASE"
  refused "report NOTDB" "file is not a database" report "$NOTDB" -o "$TMP/rep2" -q
  refused "report --profile GARBAGE" "$GARBAGE:1:" report "$BASE" --profile "$GARBAGE" -o "$TMP/rep5" -q
  refused "report --freqs nan" "--freqs: 'nan' is not a frequency" report "$BASE" --freqs nan -o "$TMP/rep6" -q
  refused "report -o twice" "--output given twice" report "$BASE" -o "$TMP/rep3" -o "$TMP/rep4"
}

c_sweep() {
  rc_is "sweep" 0 sweep -o "$TMP/s1" --param x=1 --reps 1 --meter sim -- test {x} = 1
  refused "sweep without -o" "missing -o" sweep --param x=1 -- true
  ONE_LINE=0 refused "sweep --meter FILE" "not a serial port" \
    sweep -o "$TMP/s2" --param x=1 --reps 1 --meter "$GARBAGE" -- test {x} = 1
  not_numbers sweep --reps "-o $TMP/s3 --param x=1" "-- test {x} = 1"
  refused "sweep --reps 1e1" "--reps: '1e1' is not a whole number" sweep -o "$TMP/s3" --param x=1 --reps 1e1 -- test {x} = 1
  refused "sweep --reps 5000" "--reps: '5000' is out of range (1 to 1000)" \
    sweep -o "$TMP/s3" --param x=1 --reps 5000 -- test {x} = 1
  refused "sweep --idle 1e308" "--idle: '1e308' is out of range (0 to 86400 s)" \
    sweep -o "$TMP/s3" --param x=1 --idle 1e308 -- test {x} = 1
  refused "sweep --reps twice" "--reps given twice" sweep -o "$TMP/s3" --param x=1 --reps 1 --reps 2 -- test {x} = 1
  check "sweep: nothing made by refusals" test ! -e "$TMP/s3"
}

c_jobs() {
  local d=$TMP/jobrun
  cp -r "$BASE" "$d"
  sqlite3 "$d/trace.db" "INSERT OR REPLACE INTO meta(key, value) VALUES ('slurm_job_id', '42')"
  rc_is "jobs RUN" 0 jobs "$d"
  rc_is "jobs --json RUN" 0 jobs --json "$d"
  rc_is "jobs: no run of a job" 1 jobs "$BASE"
  refused "jobs without DIR" "missing DIR" jobs
  refused "jobs --frob" "unknown option '--frob'" jobs --frob "$d"
  refused "jobs NOTDB" "$NOTDB" jobs "$NOTDB"
  refused "jobs: no such DIR" "neither a run nor a directory of runs" jobs "$TMP/nonexistent"
}

c_agent() { # started by mw record --meter-hosts (test_multihost.sh runs it for real)
  rc_is "agent --help" 0 agent --help
  refused "agent without --run" "missing --run or --clock" agent
  refused "agent --frob" "unknown argument '--frob'" agent --frob
  refused "agent --clock twice" "'--clock' given twice" agent --run "$TMP/ag" --clock 127.0.0.1:1 --clock 127.0.0.1:2
  MW_RUN_SECRET= refused "agent without the run's secret" "no run secret" agent --run "$TMP/ag" --clock 127.0.0.1:1
  MW_RUN_SECRET=xyz refused "agent with a bad secret" "no run secret" agent --wait-fd 3 --clock 127.0.0.1:1
  check "agent: nothing made by refusals" test ! -e "$TMP/ag"
}

# every entry of the command table has its case above
every_command() {
  local c
  local list
  list=$("$MW" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }')
  for c in $list; do
    check "case for mw $c" declare -F "c_$c" > /dev/null
  done
  expect_eq "commands listed" "$(echo "$list" | wc -l)" 23
}

# a stored power of INT64_MAX (case 13): refused by every reader, never read as -1 mW
store_int64() {
  local d=$TMP/huge
  cp -r "$BASE" "$d"
  # (schema 6: channel 1 is slot 1 of the rows of windows whose channel0 is 1)
  sqlite3 "$d/trace.db" "UPDATE windows SET p1 = 9223372036854775807
    WHERE channel0 = 1 AND seq = (SELECT min(seq) FROM windows WHERE channel0 = 1)"
  sqlite3 "$d/trace.db" "INSERT OR REPLACE INTO meta(key, value) VALUES ('slurm_job_id', '42')"
  local args
  for args in "show $d" "ls $d" "jobs $d" "analyze $d" "export --format csv $d" "export --format json $d" \
    "stats --channel ch1 --quantity energy --group g $d" "plot $d --kind trace -o $TMP/hp"; do
    # shellcheck disable=SC2086
    refused "mw $args" "power_mw = 9223372036854775807 is out of its range" $args
  done
}

for c in version vmeter flash export ls show jobs record monitor info calibrate merge import align \
  analyze stats pareto fit dvfs plot report sweep; do
  run_case "c_$c"
done
run_case every_command
run_case store_int64
finish
