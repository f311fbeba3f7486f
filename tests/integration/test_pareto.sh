#!/usr/bin/env bash
# test_pareto — 'mw pareto' on profile files: the 3-device front worked by hand in
# tests/unit/models/test_lbopa.c (points (2, 28), (4, 20), (12, 12); split at 3 s: C 3, A 3, B 6),
# LBOPA-TE at P_S = 2 W, the JSON document, the additivity figure from measured points,
# and bad input: exit 2 with a one-line message naming FILE:LINE or the option.
source "$(dirname "$0")/lib.sh"

hand_profile() {
  cat > "$TMP/hand.txt" <<'P'
# the hand case: C 1 unit/s 1 J/unit, A 3 units/s 3 J/unit, B 2 units/s 2 J/unit
n 12
static_power 2
device C a=1 b=1
device A a=0.333333333333333333 b=3
device B 4:2 8:4 b=2
P
}

case_front_text() {
  hand_profile
  "$MW" pareto "$TMP/hand.txt" --time 3 --total > "$TMP/out.txt" 2> "$TMP/err.txt"
  expect_eq "exit" "$?" 0
  expect_grep "2 segments" "Pareto front, time vs dynamic energy: 2 segments" "$TMP/out.txt"
  expect_eq "point 0" "$(awk '$1 == "0" && NF == 6 { print $2, $3, $4, $5, $6 }' "$TMP/out.txt")" "2 28 2 6 4"
  expect_eq "point 1" "$(awk '$1 == "1" && NF == 6 { print $2, $3, $4, $5, $6 }' "$TMP/out.txt")" "4 20 4 0 8"
  expect_eq "point 2" "$(awk '$1 == "2" && NF == 6 { print $2, $3, $4, $5, $6 }' "$TMP/out.txt")" "12 12 12 0 0"
  expect_grep "LBOPA-TE" "fastest point t 2 s, E_total 32 J; 1 piece" "$TMP/out.txt"
  expect_grep "TE piece" "t 2..4 s, E_total 32..28 J" "$TMP/out.txt"
  expect_grep "query" "for time 3 s: t 3 s, E_dyn 24 J, E_total 30 J" "$TMP/out.txt"
  expect_grep "integer split" "integer split: C 3 A 3 B 6" "$TMP/out.txt"
  check "no nan/inf" bash -c "! grep -qiE 'nan|inf' '$TMP/out.txt'"
}

case_json() {
  hand_profile
  "$MW" pareto "$TMP/hand.txt" --energy 16 --json > "$TMP/out.json"
  expect_eq "exit" "$?" 0
  local got
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
q = d["query"]
pts = [(p["t_s"], p["e_J"]) for p in d["front"]["points"]]
print(q["by"], q["t_s"], q["e_J"], q["split"], q["integer"]["split"], pts, d["total"])
' "$TMP/out.json")
  expect_eq "json" "$got" "energy 8 16 [8, 0, 4] [8, 0, 4] [(2, 28), (4, 20), (12, 12)] None"
}

case_additivity() {
  cat > "$TMP/meas.txt" <<'P'
n 1000
device cpu 100:1.0:50 200:2.1:101 400:4.3:199 200:2.1:99
device gpu 100:0.5:20 200:0.9:41 400:1.7:80
together 100:72 200:140 400:283
P
  "$MW" pareto "$TMP/meas.txt" --static-power 10 --total --energy 300 > "$TMP/out.txt"
  expect_eq "exit" "$?" 0
  # by hand: 100: (50 + 20 vs 72) 2.778 %; 200: (mean(101, 99) + 41 vs 140) 0.714 %;
  # 400: (199 + 80 vs 283) 1.413 %; mean 1.635 %
  expect_grep "additivity" "differ by 1.64 % on average over 3 sizes" "$TMP/out.txt"
  expect_grep "cpu rank 0" "0   cpu" "$TMP/out.txt"
  expect_grep "total energy query" "for total_energy 300 J:" "$TMP/out.txt"
}

# expect_usage DESCRIPTION PATTERN ARGS...: 'mw pareto ARGS' is refused (lib.sh)
expect_usage() { expect_mw_usage pareto "$@"; }

case_bad_input() {
  hand_profile
  printf 'n 10\ndevice X a=1 b=1\ndevice Y 5:1 3:2 b=1\n' > "$TMP/bad1.txt"
  expect_usage "time not increasing" "bad1.txt:3: device 'Y'" "$TMP/bad1.txt"
  printf 'n 10\ndevice X a=1 b=1\nfrobnicate 3\n' > "$TMP/bad2.txt"
  expect_usage "unknown keyword" "bad2.txt:3: 'frobnicate'" "$TMP/bad2.txt"
  printf 'n 10\ndevice X a=1\n' > "$TMP/bad3.txt"
  expect_usage "no b" "bad3.txt:2: device 'X': needs b=" "$TMP/bad3.txt"
  printf 'n 10\ndevice X a=1 b=1\ndevice Z 1:x b=1\n' > "$TMP/bad4.txt"
  expect_usage "bad point" "bad4.txt:3: '1:x'" "$TMP/bad4.txt"
  expect_usage "time off the front" "--time 1: off the front" "$TMP/hand.txt" --time 1
  expect_usage "energy below" "--energy 5: below the least dynamic energy, 12 J" "$TMP/hand.txt" --energy 5
  expect_usage "bad --n" "--n: 'abc'" "$TMP/hand.txt" --n abc
  expect_usage "both" "--time and --energy" "$TMP/hand.txt" --time 3 --energy 20
  expect_usage "missing file" "nofile.txt" "$TMP/nofile.txt"
}

case_help() {
  "$MW" pareto --help > "$TMP/out.txt"
  expect_eq "exit" "$?" 0
  expect_grep "usage" "usage: mw pareto PROFILE" "$TMP/out.txt"
  "$MW" --help > "$TMP/out.txt"
  expect_grep "listed" "pareto" "$TMP/out.txt"
}

run_case case_front_text
run_case case_json
run_case case_additivity
run_case case_bad_input
run_case case_help
finish
