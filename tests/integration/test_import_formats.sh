#!/usr/bin/env bash
# mw import of other meters' formats: PowerSensor3's dump (markers inline and on lines of their
# own), Grid'5000 Kwollect's JSON (an array, and one object per line) and pmlib's CSV (one
# column per line, and aggregate). The files in tests/integration/import_data/ are written by
# hand from each format's public documentation (import_data/README.md cites it), with round
# numbers; the energies, times and phases expected here are worked out on paper in the
# comments, not taken from the importer. Then hostile files: each refused with exit 2, one
# line "mw import: FILE:LINE[:FIELD]: what is wrong", and no run directory (nor temporary
# one) left behind.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

DATA=tests/integration/import_data

# energy CHANNEL RUN: the channel's energy at the end of the run (J), from mw export
energy() {
  "$MW" export "$2" --format csv | awk -F, -v c="$1" '$2 == c { e = $7 } END { print e }'
}
# phases RUN: "name start_s end_s" per phase, from mw export
phases() {
  "$MW" export "$1" --format csv --what phases | awk -F, 'NR > 1 { print $5, $6 + 0, $7 + 0 }'
}
meta() {
  "$MW" export "$1" --format csv --what meta | awk -F, -v k="$2" '$1 == k { print $2 }'
}

imports() { # imports FORMAT FILE RUN: exit 0 expected
  "$MW" import --format "$1" "$2" -o "$3" >"$TMP/imp.out" 2>&1
  expect_eq "import $1 $(basename "$2")" "$?" 0
  sed 's/^/    /' "$TMP/imp.out"
}

powersensor3() {
  imports powersensor3 $DATA/powersensor3.txt "$TMP/ps3"
  # two pairs in use: pair0 (12 W, 24 W at lines 3-4), pair1 (2.5 W); power_total no channel
  expect_eq "channels" "$(q "$TMP/ps3" "SELECT group_concat(name, ' ') FROM channels ORDER BY channel")" "pair0 pair1"
  # six 1 ms windows (the first as long as the spacing): pair0 (4 x 12 + 2 x 24) W x 1 ms
  expect_eq "pair0 energy" "$(energy pair0 "$TMP/ps3")" "0.096"
  expect_eq "pair1 energy" "$(energy pair1 "$TMP/ps3")" "0.015" # 6 x 2.5 W x 1 ms
  # rms voltage and current of pair0's third reading: 12 V, 2 A
  expect_eq "vrms, irms" "$("$MW" export "$TMP/ps3" --format csv | awk -F, '$2 == "pair0" && $1 == "0.003000" { print $4, $5 }')" "12.000 2.000000"
  # marker A on the reading at 3 ms, B at 5 ms: A until B, B until the end (6 ms)
  expect_eq "phases" "$(phases "$TMP/ps3" | tr '\n' ';')" "A 0.003 0.005;B 0.005 0.006;"
  expect_eq "import_format" "$(meta "$TMP/ps3" import_format)" "powersensor3"
  # analyze: phase A holds pair0's windows (3,4] and (4,5] ms: (24 + 12) W x 1 ms
  "$MW" analyze --json "$TMP/ps3" >"$TMP/ps3.json" 2>/dev/null
  expect_eq "analyze: phase A energy of pair0" "$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["runs"][0]["phases"]:
    for c in p["channels"]:
        if p["name"] == "A" and c["name"] == "pair0": print(c["energy_j"])' "$TMP/ps3.json")" "0.036"
  # the old marker lines give the same run
  imports powersensor3 $DATA/powersensor3_old.txt "$TMP/ps3old"
  expect_eq "old format: same samples" "$("$MW" export "$TMP/ps3old" --format csv | md5sum)" "$("$MW" export "$TMP/ps3" --format csv | md5sum)"
  expect_eq "old format: same phases" "$(phases "$TMP/ps3old")" "$(phases "$TMP/ps3")"
}

powersensor3_absolute_and_coarse() {
  # absolute timestamps (Unix seconds, six decimals) and relative times printed with six
  # significant digits: 100.001 three times, dt_micro 400 us: the second and third end 400
  # us after the previous one, the fourth line (100.002) at its printed time
  printf '%s\n' 'marker time dt_micro device_timestamp current0 voltage0 power0 power_total' \
    'S 1700000000.000100 100 0 1 10 10 10' 'S 1700000000.000200 100 0 1 10 10 10' >"$TMP/abs.txt"
  imports powersensor3 "$TMP/abs.txt" "$TMP/abs"
  expect_eq "absolute: start_ns" "$(meta "$TMP/abs" start_ns)" "1700000000000000000"
  printf '%s\n' 'marker time dt_micro device_timestamp current0 voltage0 power0 power_total' \
    'S 100 1000 0 1 10 10 10' 'S 100.001 1000 0 1 10 10 10' 'S 100.001 400 0 1 10 10 10' \
    'S 100.001 400 0 1 10 10 10' 'S 100.002 200 0 1 10 10 10' >"$TMP/coarse.txt"
  imports powersensor3 "$TMP/coarse.txt" "$TMP/coarse"
  expect_eq "coarse: window ends" "$("$MW" export "$TMP/coarse" --format csv | awk -F, 'NR > 1 { printf "%s ", $1 }')" "100.000000 100.001000 100.001400 100.001800 100.002000 "
}

kwollect() {
  imports kwollect $DATA/kwollect.json "$TMP/kw"
  # two power channels; bmc_temp_celsius is not power; the device is the host
  expect_eq "channels" "$(q "$TMP/kw" "SELECT group_concat(name || '@' || host, ' ') FROM channels ORDER BY channel")" \
    "taurus-7:wattmetre_power_watt@taurus-7 taurus-8:wattmetre_power_watt@taurus-8"
  # taurus-7: 100, 100, 200, 200 W every 20 ms: 600 W x 20 ms; taurus-8: 2 x 50.5 W x 20 ms
  expect_eq "taurus-7 energy" "$(energy taurus-7:wattmetre_power_watt "$TMP/kw")" "12.000"
  expect_eq "taurus-8 energy" "$(energy taurus-8:wattmetre_power_watt "$TMP/kw")" "2.020"
  # the run starts 20 ms (the spacing) before the first timestamp, 2025-07-22T13:05:25+02:00
  local t0; t0=$(date -u -d '2025-07-22T13:05:25+02:00' +%s)
  expect_eq "start_ns" "$(meta "$TMP/kw" start_ns)" "$((t0 * 1000000000 - 20000000))"
  expect_eq "end_ns" "$(meta "$TMP/kw" end_ns)" "$((t0 * 1000000000 + 60000000))"
  imports kwollect $DATA/kwollect.jsonl "$TMP/kwl"
  expect_eq "one per line: same samples" "$("$MW" export "$TMP/kwl" --format csv | md5sum)" "$("$MW" export "$TMP/kw" --format csv | md5sum)"
  # measurements in any order, Z and numeric timestamps, labels in the name
  cat >"$TMP/kw2.json" <<'EOF'
[{"timestamp": 1753182325.5, "device_id": "n1", "metric_id": "bmc_node_power_watt", "value": 3, "labels": {"psu": "2"}},
 {"timestamp": "2025-07-22T11:05:25Z", "device_id": "n1", "metric_id": "bmc_node_power_watt", "value": 1, "labels": {"psu": "2"}}]
EOF
  imports kwollect "$TMP/kw2.json" "$TMP/kw2"
  # 1753182325 is 2025-07-22T11:05:25Z; windows of 0.5 s: 1 W then 3 W
  expect_eq "unordered: energy" "$(energy 'n1:bmc_node_power_watt:psu=2' "$TMP/kw2")" "2.000"
}

pmlib() {
  imports pmlib $DATA/pmlib_lines.csv "$TMP/pm"
  expect_eq "channels" "$(q "$TMP/pm" "SELECT group_concat(name, ',') FROM channels ORDER BY channel")" "Line 0,Line 3"
  # set 0: samples every 0.1 s: Line 0 (10 + 10 + 12) W x 0.1 s; set 1 every 0.05 s: 2 x 5 W x 0.05 s
  expect_eq "Line 0 energy" "$(energy 'Line 0' "$TMP/pm")" "3.700"
  expect_eq "Line 3 energy" "$(energy 'Line 3' "$TMP/pm")" "6.100" # 3 x 20 x 0.1 + 2 x 1 x 0.05
  # set 0 from -0.1 s (its first window) to 0.2 s; set 1 right after, two 0.05 s windows
  expect_eq "phases" "$(phases "$TMP/pm" | tr '\n' ';')" "set 0 -0.1 0.2;set 1 0.2 0.3;"
  imports pmlib $DATA/pmlib_aggregate.csv "$TMP/pma"
  expect_eq "aggregate: channel" "$(q "$TMP/pma" "SELECT name FROM channels")" "Value_aggregate"
  expect_eq "aggregate: energy" "$(energy Value_aggregate "$TMP/pma")" "0.170" # (34+34+69+33) W x 1 ms
}

# refused FORMAT NAME CONTENT PATTERN: the file is refused as it should be
refused() {
  local fmt=$1 name=$2 pat=$4
  printf '%b' "$3" >"$TMP/bad/$name"
  expect_mw_usage import "$fmt $name" "^mw import: $TMP/bad/$name:$pat" --format "$fmt" "$TMP/bad/$name" -o "$TMP/bad/run"
  expect_eq "$fmt $name: no run" "$(ls "$TMP/bad" | grep -c run)" 0
}

hostile() {
  mkdir -p "$TMP/bad"
  local H='marker time dt_micro device_timestamp current0 voltage0 power0 power_total\n'
  refused powersensor3 empty.txt '' '1: no header line'
  refused powersensor3 noheader.txt 'S 0.1 100 0 1 1 1 1\n' '1: not a PowerSensor3 dump'
  refused powersensor3 nopair.txt 'marker time dt_micro power_total\nS 0.1 1 1\n' '1: the header names no sensor pair'
  refused powersensor3 fields.txt "${H}S 0.1 100 0 1 1 1 1\nS 0.2 100 0 1 1 1\n" '3: 7 fields, the header names 8'
  refused powersensor3 time.txt "${H}S 0.1 100 0 1 1 1 1\nS abc 100 0 1 1 1 1\n" "3:2: time: 'abc' is not a number"
  refused powersensor3 back.txt "${H}S 0.2 100 0 1 1 1 1\nS 0.1 100 0 1 1 1 1\n" "3:2: time: '0.1' is before the previous line's (line 2)"
  refused powersensor3 power.txt "${H}S 0.1 100 0 1 1 nan 1\n" "2:7: power: 'nan' is not a number"
  refused powersensor3 huge.txt "${H}S 0.1 100 0 1 1 1e30 1\n" "2:7: power: '1e30' is out of range"
  refused powersensor3 marker.txt "${H}AB 0.1 100 0 1 1 1 1\n" "2:1: marker: 'AB' is not one character"
  refused powersensor3 nul.txt "${H}S 0.1 100\x00 0 1 1 1 1\n" '2: .*NUL'
  refused powersensor3 noreading.txt "${H}" '.*a header but no readings'
  refused powersensor3 dt.txt "${H}S 0.1 -5 0 1 1 1 1\n" "2:3: dt_micro: '-5' is out of range"
  local K='"device_id": "n", "metric_id": "x_power_watt"'
  refused kwollect empty.json '' '1: no measurements'
  refused kwollect syntax.json "[\n{\"timestamp\": 1, $K, \"value\": 1}\n{\"timestamp\": 2, $K, \"value\": 1}]\n" "3: expected ',' or ']'"
  refused kwollect broken.json "[{\"timestamp\": 1,\n $K, \"value\": 1,,}]\n" '2: not JSON'
  refused kwollect open.json "[{\"timestamp\": 1, $K, \"value\": 1},\n" "2: the file ends inside the array (no ']')"
  refused kwollect inside.json "[{\"timestamp\": 1,\n $K,\n" '3: not JSON: unexpected end of data'
  refused kwollect unclosed.json "[{\"timestamp\": 1, $K, \"value\": 1}\n" "2: the file ends inside the array"
  refused kwollect notobj.json '[\n 5\n]\n' '2: a measurement is not a JSON object'
  refused kwollect value.json "[\n{\"timestamp\": 1, $K, \"value\": \"12\"}]" '2: value: not a number'
  refused kwollect novalue.json "[\n{\"timestamp\": 1, $K}]" '2: value: missing'
  refused kwollect nodev.json '[{"timestamp": 1, "metric_id": "a_watt", "value": 1}]' '1: device_id: missing or not a string'
  refused kwollect local.json "[{\"timestamp\": \"2025-07-22T13:05:25\", $K, \"value\": 1}]" "1: timestamp: '2025-07-22T13:05:25' is not an ISO 8601 date with its UTC offset"
  refused kwollect feb30.json "[{\"timestamp\": \"2025-02-30T13:05:25Z\", $K, \"value\": 1}]" "1: timestamp: '2025-02-30T13:05:25Z' is not an ISO 8601"
  refused kwollect twice.json "[{\"timestamp\": 5, $K, \"value\": 1},\n{\"timestamp\": 6, $K, \"value\": 1},\n{\"timestamp\": 5, $K, \"value\": 2}]" "3: channel 'n:x_power_watt' has two measurements at the same time (lines 1 and 3)"
  refused kwollect year.json "[{\"timestamp\": \"9999-12-31T23:59:59Z\", $K, \"value\": 1}]" "1: timestamp: '9999-12-31T23:59:59Z' is not an ISO 8601"
  refused kwollect nopower.json '[{"timestamp": 1, "device_id": "n", "metric_id": "bmc_temp_celsius", "value": 1}]' '1: no power measurements'
  refused kwollect after.json "[{\"timestamp\": 1, $K, \"value\": 1}]\nx" '2: text after the array'
  refused kwollect nul.json "[{\"timestamp\": 1,\n\x00}]" '2: a NUL byte'
  refused kwollect latin1.json "[{\"timestamp\": 1, $K, \"value\": 1, \"labels\": {\"a\": \"\xe9\"}}]" '1: not JSON'
  refused kwollect deep.json "$(printf '[%.0s' $(seq 40))" '1: not JSON'
  local P='Set_id;Time;Line 0;Sum\n'
  refused pmlib header.csv 'Time;Set_id;Line 0\n0;0;1\n' "1: not a pmlib CSV file"
  refused pmlib nocol.csv 'Set_id;Time;Sum\n0;0;1\n' "1: the header names no power column"
  refused pmlib fields.csv "${P}0;0.000000;1;1\n0;0.1;1\n" '3: 3 fields, the header names 4'
  refused pmlib again.csv "${P}0;0;1;1\n0;0.1;1;1\n1;0;1;1\n1;0.1;1;1\n0;0.2;1;1\n" '6:1: Set_id: set 0 again'
  refused pmlib time.csv "${P}0;0;1;1\n0;0;1;1\n" "3:2: Time: '0' is not after the previous sample's (line 2)"
  refused pmlib power.csv "${P}0;0;x;1\n" "2:3: power: 'x' is not a number"
  refused pmlib negtime.csv "${P}0;-1;1;1\n" "2:2: Time: '-1' is out of range"
  refused pmlib long.csv "${P}0;0;1;1\n0;2000000000;1;1\n1;0;1;1\n1;2000000000;1;1\n2;0;1;1\n2;2000000000;1;1\n" '4: set 1: the sets last too long together'
  refused pmlib single.csv "${P}0;0;1;1\n" '2: set 0: a single sample'
  refused pmlib dup.csv 'Set_id;Time;Line 0;Line 0;Sum\n' "1:4: column 'Line 0' repeats column 3"
  expect_mw_usage import "unknown format" "--format: 'otf2' is not one of csv, powersensor3, kwollect, pmlib" --format otf2 $DATA/pmlib_lines.csv -o "$TMP/x"
  expect_eq "no temporary directories left" "$(ls -a "$TMP/bad" | grep -c import-)" 0
}

run_case powersensor3
run_case powersensor3_absolute_and_coarse
run_case kwollect
run_case pmlib
run_case hostile
finish
