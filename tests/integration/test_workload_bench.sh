#!/usr/bin/env bash
# The micro-benchmarks of workloads/bench/ (build/bin/mwb-*), each run briefly: --help and
# strict options (exit 0 / exit 2 with one line naming the argument); --seconds honoured;
# the rates they print recomputed from the counts and times they print (the STREAM 24 B per
# element, 2 n^3 per product, bytes per half round trip, P (P - 1) blocks per exchange),
# inside generous physical bounds, with their self-checks passed; mwb-pattern's sequence
# checked against the defining properties of an m-sequence (period 2^K - 1, 2^(K-1) ones,
# every non-zero K-bit window once per period, other seeds are rotations) and, recorded by
# `mw record --meter sim`, its phases matching the printed bits in order and time; the MPI
# ones on 2 and 3 ranks, with their per-rank phases recorded.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

BIN=$(abs "$BUILD/bin")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
MPIRUN=(mpirun --oversubscribe)
PROGS=(idle cpuburn stream dgemm pattern pingpong alltoall)
for p in "${PROGS[@]}"; do
  [ -x "$BIN/mwb-$p" ] || { echo "$BIN/mwb-$p is not built (make all)"; exit 1; }
done

# val FILE SED-REGEX: the first \1 of the regex in FILE
val() { sed -n "s/$2/\1/p" "$1" | head -n 1; }
# timed CMD...: run CMD (stdout to $TMP/out, stderr to $TMP/err); its exit status goes to RC,
# its wall time in s to W. W includes the process's start and exit and the last wake-up,
# which a loaded 2-core machine (CI) stretches by tenths of a second: the checks of W below
# allow that much above --seconds (the programs' own times, which show --seconds kept, are
# checked more closely); W below --seconds is a true failure.
timed() {
  local t0; t0=$(now_ns)
  "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  W=$(awk -v d=$(($(now_ns) - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')
}
# rel_close DESCRIPTION GOT WANT TOLERANCE: |GOT - WANT| <= TOLERANCE |WANT|
rel_close() {
  if ! awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w; exit !(g != "" && d <= t * a) }'; then
    echo "  FAIL: $1: $2, want $3 within $4 relative"; CASE_OK=0
  fi
}

help_and_bad_options() {
  for p in "${PROGS[@]}"; do
    local b=$BIN/mwb-$p
    "$b" --help >"$TMP/out" 2>"$TMP/err"
    expect_eq "$p --help: exit" "$?" 0
    expect_grep "$p --help: usage on stdout" "^usage: .*mwb-$p" "$TMP/out"
    expect_eq "$p --help: nothing on stderr" "$(wc -c <"$TMP/err")" 0
    # each bad argument: exit 2, nothing on stdout, one line on stderr naming the argument
    local args all=("--bogus 1|--bogus" "--seconds abc|abc" "--seconds 1x|1x" "--seconds -5|-5"
      "--seconds=nan|nan" "--seconds|--seconds" "stray|stray")
    # (the MPI programs start slower: a few)
    case $p in pingpong | alltoall) all=("${all[@]:0:2}" "${all[@]:5:1}") ;; esac
    for args in "${all[@]}"; do
      local what=${args%|*} named=${args#*|}
      # shellcheck disable=SC2086
      "$b" $what >"$TMP/out" 2>"$TMP/err"
      expect_eq "$p $what: exit" "$?" 2
      expect_eq "$p $what: one line on stderr" "$(wc -l <"$TMP/err")" 1
      expect_eq "$p $what: nothing on stdout" "$(wc -c <"$TMP/out")" 0
      expect_grep "$p $what: names the argument" "mwb-$p: .*$named" "$TMP/err"
    done
  done
  local bad
  for bad in "dgemm --n 10.5" "dgemm --n 0" "dgemm --seconds 1 --products 5" "stream --size 0" "cpuburn --threads 0" \
    "pattern --order 33" "pattern --order 4 --seed 16" "pattern --seed 0" \
    "pattern --bits 3 --seconds 3" "pattern --bit-ms 0.5" "pingpong --bytes 1e3" \
    "alltoall --bytes -1" "pingpong"; do
    # shellcheck disable=SC2086
    "$BIN"/mwb-$bad >"$TMP/out" 2>"$TMP/err"
    expect_eq "mwb-$bad: exit" "$?" 2
    expect_eq "mwb-$bad: one line on stderr" "$(wc -l <"$TMP/err")" 1
  done
  # under mpirun only rank 0 speaks
  "${MPIRUN[@]}" -np 2 "$BIN/mwb-alltoall" --bytes x >"$TMP/out" 2>"$TMP/err"
  expect_eq "2 ranks, bad option: one message" "$(grep -c 'mwb-alltoall: --bytes' "$TMP/err")" 1
  "${MPIRUN[@]}" -np 2 "$BIN/mwb-pingpong" --help >"$TMP/out" 2>&1
  expect_eq "2 ranks, --help: usage once" "$(grep -c '^usage:' "$TMP/out")" 1
}

idle_seconds() {
  timed "$BIN/mwb-idle" --seconds 1.5
  expect_eq "exit" "$RC" 0
  expect_num "wall time (s)" "$W" 1.5 2.5
  # (a sleep wakes late on a loaded machine: some tens of ms)
  expect_num "printed idle time (s)" "$(val "$TMP/out" '^mwb-idle: idle \([0-9.]*\) s$')" 1.5 1.65
}

cpuburn_rate() {
  timed "$BIN/mwb-cpuburn" --seconds 2 --threads 2
  expect_eq "exit" "$RC" 0
  expect_num "wall time (s)" "$W" 1.9 3
  local o=$TMP/out
  expect_eq "threads" "$(val "$o" '^threads: \([0-9]*\)$')" 2
  local t ops rate
  t=$(val "$o" '^time: \([0-9.]*\) s$')
  ops=$(val "$o" '^operations: \([0-9.e+]*\) op .*')
  rate=$(val "$o" '^mwb-cpuburn: \([0-9.]*\) Gop\/s on 2 threads, [0-9.]* s$')
  # (up to the last of its 2 threads to see the deadline: one descheduled there by the
  # loaded machine's other work ends late)
  expect_num "time (s)" "$t" 1.95 2.25
  rel_close "rate = operations / time" "$rate" "$(awk -v o="$ops" -v t="$t" 'BEGIN { print o / t / 1e9 }')" 0.01
  # 2 threads x (6 GHz x 16 operations per cycle) ~ 200 Gop/s: a generous physical bound
  expect_num "rate (Gop/s)" "$rate" 0.1 200
  # 1 thread reports 1 thread and keeps time too
  timed "$BIN/mwb-cpuburn" --seconds 0.5 --threads 1
  expect_num "1 thread: wall time (s)" "$W" 0.45 1.5
  expect_num "1 thread: time (s)" "$(val "$TMP/out" '^time: \([0-9.]*\) s$')" 0.5 0.6
  expect_eq "1 thread: threads" "$(val "$TMP/out" '^threads: \([0-9]*\)$')" 1
}

stream_bandwidth() {
  timed "$BIN/mwb-stream" --size 32 --seconds 2
  expect_eq "exit" "$RC" 0
  expect_num "wall time (s)" "$W" 1.8 3
  local o=$TMP/out n sweeps t gbs
  expect_grep "self-check" "^check: passed (0 of 4194304 elements wrong" "$o"
  n=$(val "$o" '^arrays: 3 x 32.000 MiB (\([0-9]*\) doubles each)$')
  expect_eq "elements per array" "$n" 4194304
  sweeps=$(val "$o" '^sweeps: \([0-9]*\) in [0-9.]* s$')
  t=$(val "$o" '^sweeps: [0-9]* in \([0-9.]*\) s$')
  gbs=$(val "$o" '^mwb-stream: triad \([0-9.]*\) GB\/s on [0-9]* threads, [0-9.]* s, check passed$')
  expect_num "sweeps" "$sweeps" 1 1000000
  rel_close "GB/s = 3 x 8 B x elements x sweeps / time" "$gbs" \
    "$(awk -v n="$n" -v s="$sweeps" -v t="$t" 'BEGIN { print 24 * n * s / t / 1e9 }')" 0.01
  # no CPU node moves more than a few hundred GB/s; 0.2 GB/s would be broken
  expect_num "bandwidth (GB/s)" "$gbs" 0.2 2000
}

dgemm_rate() {
  timed "$BIN/mwb-dgemm" --n 384 --seconds 1.5
  expect_eq "exit" "$RC" 0
  expect_num "wall time (s)" "$W" 1.3 2.5
  local o=$TMP/out reps t gf threads
  expect_grep "self-check" "^check: passed" "$o"
  reps=$(val "$o" '^products: \([0-9]*\) in [0-9.]* s.*')
  t=$(val "$o" '^products: [0-9]* in \([0-9.]*\) s.*')
  threads=$(val "$o" '^threads: \([0-9]*\)$')
  gf=$(val "$o" '^mwb-dgemm: \([0-9.]*\) GFLOP\/s on [0-9]* threads, 384 x 384 doubles, [0-9.]* s, check passed$')
  rel_close "GFLOP/s = 2 n^3 x products / time" "$gf" \
    "$(awk -v r="$reps" -v t="$t" 'BEGIN { print 2 * 384 ^ 3 * r / t / 1e9 }')" 0.01
  # a core does at most ~6 GHz x 32 FLOP per cycle
  expect_num "rate (GFLOP/s)" "$gf" 0.05 "$((threads * 200))"
  # an order that the tiles do not divide, and tiles of 1
  "$BIN/mwb-dgemm" --n 250 --block 48 --seconds 0.2 >"$TMP/out" 2>&1
  expect_eq "n 250, tiles 48: exit" "$?" 0
  expect_grep "n 250, tiles 48: self-check" "^check: passed" "$TMP/out"
  "$BIN/mwb-dgemm" --n 33 --block 1 --seconds 0.1 --threads 1 >"$TMP/out" 2>&1
  expect_eq "n 33, tiles 1, 1 thread: exit" "$?" 0
  expect_grep "n 33, tiles 1: self-check" "^check: passed" "$TMP/out"
  # a fixed size: exactly N products whatever the time
  "$BIN/mwb-dgemm" --n 64 --products 7 --threads 1 >"$TMP/out" 2>&1
  expect_eq "--products 7: exit" "$?" 0
  expect_grep "--products 7: count" "^products: 7 in " "$TMP/out"
}

# windows_once BITS K: every non-zero K-bit window of the cyclic BITS occurs exactly once
windows_once() {
  awk -v s="$1" -v k="$2" 'BEGIN {
    p = length(s); ss = s s; bad = 0
    for (i = 1; i <= p; i++) { w = substr(ss, i, k); if (w !~ /1/ || seen[w]++) bad++ }
    print bad }'
}

pattern_sequence() {
  local o=$TMP/out seq
  "$BIN/mwb-pattern" --order 4 --bits 45 --bit-ms 2 >"$o" 2>&1
  expect_eq "exit" "$?" 0
  seq=$(val "$o" '^sequence: \([01]*\) t0: [0-9]* ns (CLOCK_REALTIME) bit: 2 ms$')
  expect_eq "45 bits printed" "${#seq}" 45
  local p1=${seq:0:15}
  expect_eq "period 15: bits 15-29 repeat bits 0-14" "${seq:15:15}" "$p1"
  expect_eq "period 15: bits 30-44 too" "${seq:30:15}" "$p1"
  expect_eq "8 ones in a period" "$(tr -cd 1 <<<"$p1" | wc -c)" 8
  expect_eq "no shorter period (3, 5)" "$([ "${p1:3}${p1:0:3}" != "$p1" ] && [ "${p1:5}${p1:0:5}" != "$p1" ] && echo no)" no
  expect_eq "every non-zero 4-bit window once" "$(windows_once "$p1" 4)" 0
  expect_eq "bit 0 is the seed's lowest bit" "${seq:0:1}" 1
  expect_grep "summary" "^mwb-pattern: 45 bits (24 busy) of 2 ms on [0-9]* threads, 0.090 s$" "$o"
  # another seed: the same sequence, rotated, starting with that seed's lowest bit
  "$BIN/mwb-pattern" --order 4 --seed 6 --bits 15 --bit-ms 1 >"$o" 2>&1
  local s6; s6=$(val "$o" '^sequence: \([01]*\) .*')
  expect_eq "seed 6: 15 bits" "${#s6}" 15
  expect_eq "seed 6: a rotation of seed 1" "$(case "$p1$p1" in *"$s6"*) echo yes ;; *) echo no ;; esac)" yes
  expect_eq "seed 6: first bit 0" "${s6:0:1}" 0
  # order 7 over a full period (the default length) in 1 ms bits
  "$BIN/mwb-pattern" --bit-ms 1 >"$o" 2>&1
  local s7; s7=$(val "$o" '^sequence: \([01]*\) .*')
  expect_eq "order 7: 127 bits by default" "${#s7}" 127
  expect_eq "order 7: 64 ones" "$(tr -cd 1 <<<"$s7" | wc -c)" 64
  expect_eq "order 7: every non-zero 7-bit window once" "$(windows_once "$s7" 7)" 0
  # --seconds: whole bits that fit, and the run keeps to it
  timed "$BIN/mwb-pattern" --seconds 1 --bit-ms 250 --order 5
  expect_eq "--seconds 1: exit" "$RC" 0
  expect_num "--seconds 1: wall time (s)" "$W" 1.0 2
  expect_eq "--seconds 1: 4 bits of 250 ms" "$(val "$TMP/out" '^sequence: \([01]*\) .*' | wc -L)" 4
}

pattern_recorded() {
  local R=$TMP/pattern o=$TMP/pattern.out bits=16 bit_ms=200
  "$MW" record -q -o "$R" --meter sim -- "$BIN/mwb-pattern" --order 5 --seed 19 \
    --bits $bits --bit-ms $bit_ms >"$o" 2>"$TMP/pattern.err"
  expect_eq "exit" "$?" 0
  local seq t0
  seq=$(val "$o" '^sequence: \([01]*\) t0: [0-9]* ns .*')
  t0=$(val "$o" '^sequence: [01]* t0: \([0-9]*\) ns .*')
  expect_eq "bits printed" "${#seq}" $bits
  local sel="kind='user' and name in ('busy','idle')"
  expect_eq "one phase per bit" "$(q "$R" "select count(*) from phases where $sel")" $bits
  expect_eq "phases in order spell the bits" \
    "$(q "$R" "select group_concat(b, '') from (select case name when 'busy' then 1 else 0 end b from phases where $sel order by start_ns)")" \
    "$seq"
  # bit i is [t0 + i bit, t0 + (i + 1) bit]: a phase starts and ends at or after its edge
  # (sleeps wake late, never early: the point), and within 75 ms of it (a few ms on a quiet
  # machine; a wake-up on a loaded 2-core one waits for a core some tens of ms, and 75 ms is
  # still well under half a 200 ms bit, so each edge is told from the next)
  local bns=$((bit_ms * 1000000)) lag
  lag="select (start_ns - ($t0 + i * $bns)) / 1e6 s, (end_ns - ($t0 + (i + 1) * $bns)) / 1e6 e
       from (select start_ns, end_ns, row_number() over (order by start_ns) - 1 i from phases where $sel)"
  expect_num "starts after their edges: earliest (ms)" "$(q "$R" "select min(s) from ($lag)")" 0 75
  expect_num "starts after their edges: latest (ms)" "$(q "$R" "select max(s) from ($lag)")" 0 75
  expect_num "ends after their edges: earliest (ms)" "$(q "$R" "select min(e) from ($lag)")" 0 75
  expect_num "ends after their edges: latest (ms)" "$(q "$R" "select max(e) from ($lag)")" 0 75
  expect_num "durations: shortest (ms)" "$(q "$R" "select min(end_ns - start_ns) / 1e6 from phases where $sel")" $((bit_ms - 75)) $((bit_ms + 75))
  expect_num "durations: longest (ms)" "$(q "$R" "select max(end_ns - start_ns) / 1e6 from phases where $sel")" $((bit_ms - 75)) $((bit_ms + 75))
  expect_num "phases inside the recorded command (s past its end)" \
    "$(q "$R" "select (max(p.end_ns) - cast(e.value as integer)) / 1e9 from phases p, meta e where e.key='cmd_end_ns' and p.kind='user'")" -1 0
}

pingpong_two_ranks() {
  local R=$TMP/pingpong o=$TMP/pingpong.out bytes=65536
  "$MW" record -q -o "$R" --meter sim -- "${MPIRUN[@]}" -np 2 "$BIN/mwb-pingpong" \
    --bytes $bytes --seconds 1 >"$o" 2>&1
  expect_eq "exit" "$?" 0
  expect_grep "self-check" "^check: passed" "$o"
  local lat bw trips t
  lat=$(val "$o" '^mwb-pingpong: latency \([0-9.]*\) us, .*')
  bw=$(val "$o" '^mwb-pingpong: .*, bandwidth \([0-9.]*\) MB\/s, 65536 bytes, [0-9.]* s, check passed$')
  trips=$(val "$o" '^round trips: \([0-9]*\) in [0-9.]* s$')
  t=$(val "$o" '^round trips: [0-9]* in \([0-9.]*\) s$')
  # --seconds 1 kept: the loop ends at the first round trip past it (oversubscribed ranks on a
  # loaded machine may wait tens of ms for a core in one), so 1 to 1.5 s
  expect_num "elapsed (s)" "$t" 1 1.5
  # a half round trip takes more than nothing and less than 0.1 s, even oversubscribed
  expect_num "latency (us)" "$lat" 0.01 100000
  rel_close "latency = time / (2 round trips)" "$lat" "$(awk -v t="$t" -v n="$trips" 'BEGIN { print t / (2 * n) * 1e6 }')" 0.01
  rel_close "bandwidth = bytes / latency" "$bw" "$(awk -v l="$lat" 'BEGIN { print 65536 / l }')" 0.01
  expect_num "bandwidth (MB/s)" "$bw" 1 1000000
  for r in 0 1; do
    expect_num "rank $r: phase pingpong (s)" "$(q "$R" "select (end_ns - start_ns) / 1e9 from phases where name='pingpong' and rank=$r")" 0.99 1.6
  done
  expect_eq "phase pingpong once per rank" "$(q "$R" "select count(*) from phases where name='pingpong'")" 2
}

alltoall_three_ranks() {
  local R=$TMP/alltoall o=$TMP/alltoall.out
  "$MW" record -q -o "$R" --meter sim -- "${MPIRUN[@]}" -np 3 "$BIN/mwb-alltoall" \
    --bytes 100000 --seconds 1 >"$o" 2>&1
  expect_eq "exit" "$?" 0
  expect_grep "self-check" "^check: passed (0 bytes received wrong)" "$o"
  local n t mbs
  n=$(val "$o" '^exchanges: \([0-9]*\) in .*')
  t=$(val "$o" '^exchanges: [0-9]* in \([0-9.]*\) s .*')
  mbs=$(val "$o" '^mwb-alltoall: aggregate \([0-9.]*\) MB\/s on 3 ranks, 100000 bytes per pair, [0-9.]* s, check passed$')
  expect_num "elapsed (s)" "$t" 1 1.5 # (as mwb-pingpong's)
  rel_close "MB/s = 3 x 2 x bytes x exchanges / time" "$mbs" "$(awk -v n="$n" -v t="$t" 'BEGIN { print 6 * 100000 * n / t / 1e6 }')" 0.01
  expect_num "aggregate (MB/s)" "$mbs" 1 10000000
  for r in 0 1 2; do
    expect_num "rank $r: phase alltoall (s)" "$(q "$R" "select (end_ns - start_ns) / 1e9 from phases where name='alltoall' and rank=$r")" 0.99 1.6
  done
}

run_case help_and_bad_options
run_case idle_seconds
run_case cpuburn_rate
run_case stream_bandwidth
run_case dgemm_rate
run_case pattern_sequence
run_case pattern_recorded
run_case pingpong_two_ranks
run_case alltoall_three_ranks
finish
