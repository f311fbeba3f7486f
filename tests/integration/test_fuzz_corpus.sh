#!/usr/bin/env bash
# The fuzz corpora as regression tests (docs/reliability.md, "Fuzzing"): every file of
# tests/fuzz/corpus/NAME/ is fed once to the fuzz target NAME, built by gcc under ASan/UBSan
# with the standalone driver (build/asan/tests/fuzz/fuzz_NAME, made by `make check-build`),
# so the seeds and every crash the fuzzers found (and that was fixed) run on each `make
# check` without clang. A case fails when its binary is missing, when any input gives a
# sanitizer report or breaks one of the target's invariants (the failing files are then
# named one by one), or when the driver did not see every file of the corpus. A last case
# checks that the driver can fail: an empty corpus and a missing input are errors.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

FUZZ_BIN=$(abs "$BUILD/asan/tests/fuzz")

corpus_case() { # corpus_case NAME
  local name=$1 bin=$FUZZ_BIN/fuzz_$1 dir=tests/fuzz/corpus/$1
  if [ ! -x "$bin" ]; then
    echo "  FAIL: $bin is not built (make check-build)"; CASE_OK=0; return
  fi
  local want; want=$(find "$dir" -maxdepth 1 -type f ! -name '.*' | wc -l)
  expect_num "$name: corpus files" "$want" 5 60
  "$bin" "$dir" >"$TMP/$name.log" 2>&1
  local rc=$?
  expect_eq "$name: exit" "$rc" 0
  expect_grep "$name: all inputs run" "fuzz_$name: $want inputs, ok" "$TMP/$name.log"
  if [ "$rc" -ne 0 ]; then # name the inputs that fail
    tail -n 20 "$TMP/$name.log" | sed 's/^/    /'
    for f in "$dir"/*; do
      "$bin" "$f" >/dev/null 2>&1 || echo "  FAIL: $name: $f"
    done
  fi
}

for t in tests/fuzz/fuzz_*.c; do
  n=${t#tests/fuzz/fuzz_}; n=${n%.c}
  eval "corpus_$n() { corpus_case $n; }"
  run_case "corpus_$n"
done

driver_fails() {
  mkdir -p "$TMP/empty"
  "$FUZZ_BIN/fuzz_proto" "$TMP/empty" >"$TMP/e.log" 2>&1
  expect_eq "empty corpus: exit" "$?" 1
  expect_grep "empty corpus: said so" "no inputs" "$TMP/e.log"
  "$FUZZ_BIN/fuzz_proto" "$TMP/no-such-file" >"$TMP/m.log" 2>&1
  expect_eq "missing input: exit" "$?" 1
}
run_case driver_fails
finish
