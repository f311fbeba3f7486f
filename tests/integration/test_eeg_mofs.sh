#!/usr/bin/env bash
# eeg-mofs (workloads/eeg/) end to end: short runs of v2 and v3 on the simulated board under
# `mw record` with 3 MPI ranks complete with a hypervolume in (0, 1] as the last line, and
# the run store holds the phases the program marks (init, distribute, evolve, evaluate cpu,
# global migration and merge on the master, wait global on the workers, local migration
# for v2 only) for the ranks that do them; the same seed gives the same front on 1 rank
# and on 3 ranks (the design makes the result independent of the rank count), another seed
# another; the search finds the informative features (their fraction on the front is well
# above their fraction in the data, 5 %); bad options exit 2 naming the option; --help.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

EEG=$(abs "$BUILD/bin/eeg-mofs")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
MPIRUN=(mpirun --oversubscribe)
SMALL=(--patterns 60 --features 240 --individuals 48 --subpops 4 --generations 20
       --global-every 10 --local-every 5 --threads 1 --kmeans-iters 10)

# record_run NAME STRATEGY: 3 ranks under mw record; sets R
record_run() {
  R=$TMP/$1
  "$MW" record -q -o "$R" --meter sim -- "${MPIRUN[@]}" -np 3 "$EEG" "${SMALL[@]}" \
    --strategy "$2" --seed 5 --front "$TMP/$1.front" >"$TMP/$1.out" 2>&1
  expect_eq "$1: exit" "$?" 0
  local last; last=$(tail -n 1 "$TMP/$1.out")
  expect_grep "$1: last line" '^hypervolume: ' <(echo "$last")
  expect_num "$1: hypervolume" "${last#hypervolume: }" 0.000001 1
}

# count NAME RANKCOND: phases of that name on the ranks matching the SQL condition
count() { q "$R" "select count(*) from phases where kind='user' and name='$1' and $2"; }

common_phases() {
  for ph in init distribute "global migration" merge; do
    expect_num "$1: master's '$ph' phases" "$(count "$ph" "rank=0")" 1 1000000
  done
  for r in 1 2; do
    for ph in init distribute evolve "evaluate cpu" "wait global"; do
      expect_num "$1: rank $r '$ph' phases" "$(count "$ph" "rank=$r")" 1 1000000
    done
  done
  expect_eq "$1: the master never evaluates" "$(count "evaluate cpu" "rank=0")" 0
  # 2 epochs x 4 subpopulations x (10 generations + the first evaluation once) evaluations
  expect_eq "$1: evaluate phases on the workers" "$(count "evaluate cpu" "rank>0")" $((2 * 4 * 10 + 4 * $2))
}

v2_run() {
  record_run v2 v2
  # v2: the first evaluation is per subpopulation, once (4), then 10 per subpopulation-epoch
  common_phases v2 1
  # 2 epochs x 2 blocks x (4 subpopulations in chunks of 2): a local migration per chunk-block
  expect_eq "v2: local migrations" "$(count "local migration" "rank>0")" 8
}

v3_run() {
  record_run v3 v3
  common_phases v3 1
  expect_eq "v3: no local migrations" "$(count "local migration" "1")" 0
}

same_seed_same_front() {
  local a=$TMP/one.front b=$TMP/three.front c=$TMP/other.front
  "$EEG" "${SMALL[@]}" --seed 9 --front "$a" -q >/dev/null 2>&1
  expect_eq "1 rank: exit" "$?" 0
  "${MPIRUN[@]}" -np 3 "$EEG" "${SMALL[@]}" --seed 9 --front "$b" -q >/dev/null 2>&1
  expect_eq "3 ranks: exit" "$?" 0
  "${MPIRUN[@]}" -np 3 "$EEG" "${SMALL[@]}" --seed 9 --front "$TMP/three2.front" -q >/dev/null 2>&1
  check "same seed, 3 ranks twice: the same front" cmp -s "$b" "$TMP/three2.front"
  check "same seed, 1 rank and 3 ranks: the same front" cmp -s "$a" "$b"
  expect_num "the front has points" "$(grep -vc '^#' "$a")" 1 48
  "$EEG" "${SMALL[@]}" --seed 10 --front "$c" -q >/dev/null 2>&1
  check "another seed: another front" eval '! cmp -s "$a" "$c"'
  # v2 likewise, 1 rank and 3 ranks
  "$EEG" "${SMALL[@]}" --strategy v2 --seed 9 --front "$TMP/v2a.front" -q >/dev/null 2>&1
  "${MPIRUN[@]}" -np 3 "$EEG" "${SMALL[@]}" --strategy v2 --seed 9 --front "$TMP/v2b.front" -q >/dev/null 2>&1
  check "v2: same seed, 1 rank and 3 ranks: the same front" cmp -s "$TMP/v2a.front" "$TMP/v2b.front"
}

finds_informative() {
  # 120 informative of 2,400 features (5 %), 3 classes 4 sds apart: after 40 generations
  # the front's selected features are informative ones far more often than chance (0.46 at
  # this seed; 0.25 is 5 times the data's 0.05)
  "$EEG" --patterns 90 --features 2400 --separation 4 --individuals 64 --subpops 2 \
    --generations 40 --global-every 20 --kmeans-iters 10 --seed 4 --front "$TMP/inf.front" \
    >"$TMP/inf.out" 2>&1
  expect_eq "exit" "$?" 0
  local frac; frac=$(sed -n 's/.*informative fraction \([0-9.]*\).*/\1/p' "$TMP/inf.out")
  expect_num "informative fraction on the front (data: 0.05)" "$frac" 0.25 1
  # the same from the front file: informative / features summed over the points
  expect_num "from the front file" "$(awk '!/^#/ { s += $3; i += $4 } END { print i / s }' "$TMP/inf.front")" 0.25 1
}

bad_usage() {
  local out=$TMP/bad.err
  "$EEG" --individuals 10 --subpops 4 2>"$out"; expect_eq "N not a multiple: exit" "$?" 2
  expect_grep "names the options" "--individuals 10 must be a multiple of --subpops 4" "$out"
  "$EEG" --generations 25 2>"$out"; expect_eq "generations: exit" "$?" 2
  expect_grep "names the option" "--generations 25" "$out"
  "$EEG" --strategy v4 2>"$out"; expect_eq "strategy: exit" "$?" 2
  expect_grep "names the value" "v4" "$out"
  "$EEG" --wait nap 2>"$out"; expect_eq "wait: exit" "$?" 2
  expect_grep "names option and value" "--wait wants sleep or spin: 'nap'" "$out"
  "$EEG" --threads zero 2>"$out"; expect_eq "threads: exit" "$?" 2
  expect_grep "names the option" "--threads" "$out"
  "$EEG" --bogus 2>"$out"; expect_eq "unknown: exit" "$?" 2
  expect_grep "names the option" "--bogus" "$out"
  "$EEG" --help >"$out" 2>&1; expect_eq "--help: exit" "$?" 0
  expect_grep "--help lists --strategy" "--strategy v2|v3" "$out"
}

run_case v2_run
run_case v3_run
run_case same_seed_same_front
run_case finds_informative
run_case bad_usage
finish
