# lib.sh — shared by the integration tests (bash): the mw binary, simulated boards served
# on a pty by 'mw vmeter' (a separate process, so a test can kill and restart "the meter"),
# queries on a run's trace.db with the sqlite3 shell, and a tiny case runner that ends with
# a summary and a non-zero exit when any case failed. Source it; call run_case for each
# case function; end with finish.

set -u
BUILD=${MW_BUILD:-build}
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
MW=$(abs "${MW:-$BUILD/bin/mw}")
ELF=$(abs "${MW_FIRMWARE_ELF:-$BUILD/firmware/megawatt.elf}")
TEST_ELF=$(abs "$BUILD/firmware/megawatt-test.elf")
export MW_FIRMWARE_ELF=$ELF
TMP=$(mktemp -d /tmp/mw-integ-XXXXXX)
PIDS=()
FAILED=()
PASSED=0

cleanup() {
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

now_ns() { date +%s%N; }

# start_vmeter LINK [vmeter options...]: serve a simulated board on LINK; sets VM_PID.
start_vmeter() {
  local link=$1; shift
  "$MW" vmeter --link "$link" "$@" 2>>"$TMP/vmeter.log" &
  VM_PID=$!
  PIDS+=("$VM_PID")
  # (up to 30 s: its start, the firmware's ELF loaded, may take seconds on a loaded machine)
  for _ in $(seq 600); do [ -e "$link" ] && return 0; sleep 0.05; done
  echo "vmeter did not make $link"; return 1
}

# q RUNDIR SQL: one query on the run's database, read-only.
q() { sqlite3 -readonly "$1/trace.db" "$2"; }

# check DESCRIPTION COMMAND...: run the command; on failure record the case as failed.
check() {
  local what=$1; shift
  if ! "$@"; then echo "  FAIL: $what"; CASE_OK=0; fi
}
# expect_eq DESCRIPTION GOT WANT
expect_eq() { if [ "$2" != "$3" ]; then echo "  FAIL: $1: got '$2', want '$3'"; CASE_OK=0; fi; }
# expect_num DESCRIPTION GOT LO HI  (inclusive, decimals allowed)
expect_num() {
  if ! awk -v x="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(x != "" && x + 0 >= lo + 0 && x + 0 <= hi + 0) }'; then
    echo "  FAIL: $1: $2 not in [$3, $4]"; CASE_OK=0
  fi
}
expect_grep() { if ! grep -q -- "$2" "$3"; then echo "  FAIL: $1: '$2' not in $3:"; sed 's/^/    /' "$3"; CASE_OK=0; fi; }

# expect_mw_usage COMMAND DESCRIPTION PATTERN ARGS...: 'mw COMMAND ARGS' exits 2 with one
# line on stderr matching PATTERN and nothing on stdout
expect_mw_usage() {
  local cmd=$1 what=$2 pat=$3; shift 3
  "$MW" "$cmd" "$@" > "$TMP/out.txt" 2> "$TMP/err.txt"
  expect_eq "$what: exit" "$?" 2
  expect_eq "$what: one line" "$(wc -l < "$TMP/err.txt")" 1
  expect_grep "$what" "$pat" "$TMP/err.txt"
  expect_eq "$what: nothing on stdout" "$(wc -c < "$TMP/out.txt")" 0
}

run_case() {
  local name=$1
  CASE_OK=1
  echo "[ RUN  ] $name"
  local t0; t0=$(now_ns)
  "$name"
  local ms=$(( ($(now_ns) - t0) / 1000000 ))
  if [ "$CASE_OK" = 1 ]; then
    echo "[  OK  ] $name (${ms} ms)"; PASSED=$((PASSED + 1))
  else
    echo "[ FAIL ] $name (${ms} ms)"; FAILED+=("$name")
  fi
}

finish() {
  echo "$PASSED passed, ${#FAILED[@]} failed${FAILED[*]:+: ${FAILED[*]}}"
  [ ${#FAILED[@]} -eq 0 ]
}
