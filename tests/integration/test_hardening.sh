#!/usr/bin/env bash
# Hardening (docs/reliability.md, "Hardening"): what mw does to the machine it runs on.
#   no_socket_sim     mw record --meter sim -- true under strace -f: the collector (mw, its
#                     threads, and its children until they exec another program) creates no
#                     socket at all; the sockets of the programs it starts are listed, never
#                     counted against it (Open MPI's mpirun --version, run for the run's
#                     metadata, makes a UDP socket to list the network interfaces)
#   no_socket_port    the same with a meter on a serial port (a simulated board on a pty):
#                     the only socket is libusb's hotplug listener, AF_NETLINK
#                     NETLINK_KOBJECT_UEVENT (the kernel's device events; it reaches no
#                     network), and the collector connects nowhere
#   strace_sees       the check can fail: a recorded program that opens a UDP socket is seen,
#                     and attributed to the program, not to mw
#   modes_umask0      under umask 000, nothing mw creates is world-writable: run directory,
#                     trace.db, the probe's directory and spill files (mw record of an
#                     instrumented program), figures and their data (mw plot), exports,
#                     imports, a sweep; under umask 022 the modes are exactly 755 and 644
#   no_shell          a run directory named with quotes, $(...), backquotes and SQL is
#                     recorded, merged, analysed, exported, imported, plotted and reported:
#                     no command inside the name runs, every table is intact
#   source_audit      grep over host/ collector/ models/ plots/: no system(), popen(), exec
#                     of a shell, wordexp; SQL is never built with printf (the one exception,
#                     PRAGMA user_version=%d with a compile-time constant, is named) and
#                     sqlite3_exec only runs literal SQL
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

PATTERN=$(abs "$BUILD/bin/mwb-pattern")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# trace DIR CMD...: strace -ff into DIR/t.PID (one file per process and thread)
trace() {
  local dir=$1; shift
  mkdir -p "$dir"
  strace -qq -f -ff -o "$dir/t" \
    -e trace=execve,socket,socketpair,connect,bind,listen,accept,accept4,sendto,sendmsg "$@"
}

# sockets DIR: one line per socket/connect/bind/listen call, "mw CALL" when the collector made
# it (a process or thread that has not exec'd another program), "child PROG CALL" otherwise
sockets() {
  local f
  for f in "$1"/t.*; do
    awk -v mw="$MW" '
      /^execve\(/ && / = 0$/ { split($0, a, "\""); prog = a[2]; foreign = (prog != mw) }
      /^(socket|socketpair|connect|bind|listen|accept4?)\(/ {
        call = $0; sub(/\) = .*/, ")", call)
        if (foreign) print "child", prog, call; else print "mw", call
      }' "$f"
  done
}

# traced DIR: strace worked (the first process exec'd mw)
traced() { grep -qs "^execve(\"$MW\"" "$1"/t.*; }

no_socket_sim() {
  trace "$TMP/s" "$MW" record -q -o "$TMP/sim" --meter sim -- true >"$TMP/s.log" 2>&1
  expect_eq "record: exit" "$?" 0
  check "strace traced mw" traced "$TMP/s"
  sockets "$TMP/s" >"$TMP/s.sockets"
  sed 's/^/    /' "$TMP/s.sockets"
  expect_eq "collector's sockets" "$(grep -c '^mw ' "$TMP/s.sockets")" 0
}

no_socket_port() {
  start_vmeter "$TMP/meter" || { CASE_OK=0; return; }
  trace "$TMP/p" "$MW" record -q -o "$TMP/port" --meter "$TMP/meter" -- true >"$TMP/p.log" 2>&1
  expect_eq "record: exit" "$?" 0
  kill "$VM_PID" 2>/dev/null
  check "strace traced mw" traced "$TMP/p"
  sockets "$TMP/p" >"$TMP/p.sockets"
  sed 's/^/    /' "$TMP/p.sockets"
  expect_eq "collector's sockets other than netlink uevents" \
    "$(grep '^mw socket(' "$TMP/p.sockets" | grep -vc 'socket(AF_NETLINK, .*NETLINK_KOBJECT_UEVENT)')" 0
  expect_eq "collector's connect/listen/accept" \
    "$(grep -Ec '^mw (connect|listen|accept)' "$TMP/p.sockets")" 0
  expect_eq "collector's binds other than netlink" \
    "$(grep '^mw bind(' "$TMP/p.sockets" | grep -vc 'AF_NETLINK')" 0
}

strace_sees() {
  trace "$TMP/c" "$MW" record -q -o "$TMP/ctl" --meter sim -- \
    bash -c 'exec 3<>/dev/udp/127.0.0.1/9' >"$TMP/c.log" 2>&1
  expect_eq "record: exit" "$?" 0
  sockets "$TMP/c" >"$TMP/c.sockets"
  expect_grep "the program's UDP socket is seen" '^child [^ ]*/bash socket(AF_INET, SOCK_DGRAM' \
    "$TMP/c.sockets"
  expect_grep "and its connect" '^child [^ ]*/bash connect(3' "$TMP/c.sockets"
  expect_eq "none is the collector's" "$(grep -c '^mw ' "$TMP/c.sockets")" 0
}

exists() { compgen -G "$1" >/dev/null; }

# world_writable DIR: every file or directory under DIR with o+w, symlinks aside
world_writable() { find "$1" -mindepth 1 ! -type l -perm -0002 -printf '%m %p\n'; }

# make_all DIR: a run of an instrumented program, its figures, an export, an import (into
# missing parents), a report, a sweep, all inside the existing DIR (logs beside it)
make_all() {
  local d=$1 log=$1.log
  MW_KEEP_SPILL=1 "$MW" record -q -o "$d/run" --meter sim -- "$PATTERN" --bits 4 --bit-ms 100 --threads 1 \
    >"$log" 2>&1 || echo "record failed: $(tail -2 "$log")"
  "$MW" plot "$d/run" --kind trace --kind energy >"$log" 2>&1 ||
    echo "plot failed: $(tail -2 "$log")"
  "$MW" export "$d/run" --format csv -o "$d/run.csv" >"$log" 2>&1 || echo "export failed: $(tail -2 "$log")"
  "$MW" import --format csv "$d/run.csv" -o "$d/deep/imported" >"$log" 2>&1 ||
    echo "import failed: $(tail -2 "$log")"
  "$MW" report "$d/run" -q --no-figures -o "$d/report" >"$log" 2>&1 ||
    echo "report failed: $(tail -2 "$log")"
  "$MW" sweep -o "$d/sweep" --param n=1 --reps 1 --meter sim -- true "{n}" >"$log" 2>&1 ||
    echo "sweep failed: $(tail -2 "$log")"
}

modes_umask0() {
  local out
  mkdir -p "$TMP/u0" "$TMP/u22"
  out=$(umask 000 && make_all "$TMP/u0")
  expect_eq "every step ran" "$out" ""
  check "a spill file was written" exists "$TMP/u0/run/probe/*.mwp"
  check "a figure was drawn" exists "$TMP/u0/run/plots/*.png"
  check "a report was written" exists "$TMP/u0/report/index.html"
  check "a sweep ran" exists "$TMP/u0/sweep/runs/*/trace.db"
  world_writable "$TMP/u0" >"$TMP/u0.ww"
  if [ -s "$TMP/u0.ww" ]; then
    echo "  FAIL: world-writable under umask 000:"; sed 's/^/    /' "$TMP/u0.ww"; CASE_OK=0
  fi
  out=$(umask 022 && make_all "$TMP/u22")
  expect_eq "every step ran (umask 022)" "$out" ""
  expect_eq "umask 022: modes other than 755 dirs / 644 files" \
    "$(find "$TMP/u22" -mindepth 1 \( -type d ! -perm 0755 -o -type f ! -perm 0644 \) \
       -printf '%m %p\n')" ""
}

no_shell() {
  local name="$TMP/r'un \"x\" \$(touch $TMP/pwned1) \`touch $TMP/pwned2\`; DROP TABLE samples; --"
  "$MW" record -q -o "$name" --meter sim -- "$PATTERN" --bits 2 --bit-ms 100 --threads 1 \
    >"$TMP/ns.log" 2>&1
  expect_eq "record: exit" "$?" 0
  "$MW" merge "$name" >/dev/null 2>&1
  expect_eq "merge: exit" "$?" 0
  "$MW" analyze "$name" >/dev/null 2>&1
  expect_eq "analyze: exit" "$?" 0
  "$MW" export "$name" --format json >/dev/null 2>&1
  expect_eq "export: exit" "$?" 0
  "$MW" export "$name" --format csv -o "$name.csv" 2>/dev/null
  "$MW" import --format csv "$name.csv" -o "$name-imported" >/dev/null 2>&1
  expect_eq "import: exit" "$?" 0
  "$MW" plot "$name" --kind trace >"$TMP/ns-plot.log" 2>&1
  expect_eq "plot: exit" "$?" 0
  "$MW" report "$name" -q --no-figures >/dev/null 2>&1
  expect_eq "report: exit" "$?" 0
  check "no \$(...) ran" test ! -e "$TMP/pwned1"
  check "no backquotes ran" test ! -e "$TMP/pwned2"
  expect_eq "tables intact" "$(q "$name" "SELECT count(*) FROM sqlite_master WHERE type = 'table'
    AND name IN ('meta', 'channels', 'windows', 'gaps', 'phases', 'clock_sync')")" 6
  expect_eq "the samples view intact" "$(q "$name" "SELECT count(*) FROM sqlite_master WHERE type = 'view'
    AND name = 'samples'")" 1
  expect_num "samples kept" "$(q "$name" 'SELECT count(*) FROM samples')" 1 100000
  local ch="x');DROP TABLE samples;--"
  printf 'time_s,channel,power_w\n1,%s,5\n2,%s,5\n' "$ch" "$ch" >"$TMP/sql.csv"
  "$MW" import --format csv "$TMP/sql.csv" -o "$TMP/sqlrun" >/dev/null 2>&1
  expect_eq "import of a channel named with SQL: exit" "$?" 0
  expect_eq "it keeps its name" "$(q "$TMP/sqlrun" 'SELECT name FROM channels')" "$ch"
  expect_eq "its windows are there" "$(q "$TMP/sqlrun" 'SELECT count(*) FROM samples')" 2
}

source_audit() {
  local dirs=(host collector models plots)
  local hits
  hits=$(grep -rnE '\b(system|popen|wordexp|execl|execlp|execle)[[:space:]]*\(|"/bin/sh"|"sh"[[:space:]]*,[[:space:]]*"-c"|"-c"[[:space:]]*,' \
    --include='*.c' --include='*.h' "${dirs[@]}" 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
  expect_eq "shell or system()" "$hits" ""
  # SQL built with printf-like calls (a format holding an SQL keyword), across lines; allowed:
  # compile-time constants only (PRAGMA takes no parameters; sweepindex.c puts a static
  # const column list in front of a WHERE whose values are bound)
  hits=$(perl -0ne 'while (/\b((?:v?s?n?printf|asprintf|sqlite3_v?mprintf|sqlite3_snprintf)\s*\((?:[^;"]|"(?:[^"\\]|\\.)*")*?"[^"]*\b(?:SELECT|INSERT|UPDATE|DELETE|PRAGMA|CREATE|DROP|ALTER|ATTACH|WHERE)\b[^;]*;)/g) {
      my $m = $1; $m =~ s/\s+/ /g; print "$ARGV: $m\n" }' \
    $(find "${dirs[@]}" -name '*.c' 2>/dev/null) |
    grep -v 'host/store.c: snprintf(sql, sizeof sql, "PRAGMA user_version=%d", MW_STORE_SCHEMA_VERSION);' |
    grep -v 'host/sweepindex.c: snprintf(version, sizeof version, "PRAGMA user_version=%d", MW_SWEEPIDX_VERSION);' |
    grep -vE 'host/sweepindex.c: snprintf\(sql, sizeof sql, "%s WHERE [^"]*\?1[^"]*", run_cols\);')
  expect_eq "SQL built with printf" "$hits" ""
  # sqlite3_exec with anything but a string literal (store.c's and merge_hosts.c's exec()
  # helpers aside: their callers pass literals, store_schema, the PRAGMA above, and
  # merge_hosts.c's constant index scripts; store.c's constant STORE_WINDOWS_INDEX)
  hits=$(grep -rnE 'sqlite3_exec[[:space:]]*\([^,]+,[[:space:]]*[^"[:space:]]' --include='*.c' \
    "${dirs[@]}" | grep -v '^host/store.c:.*sqlite3_exec(s->db, sql, NULL, NULL, &msg)' |
    grep -vE '^host/sweepindex.c:[0-9]+:.*sqlite3_exec\(w->db, (schema|version), NULL' |
    grep -v '^host/merge_hosts.c:.*sqlite3_exec(mw_store_sqlite(out), sql, NULL, NULL, NULL)' |
    grep -v '^host/store.c:.*sqlite3_exec(s->db, STORE_WINDOWS_INDEX, NULL, NULL, NULL)')
  expect_eq "sqlite3_exec of non-literal SQL" "$hits" ""
  hits=$(grep -nE '\bexec\(s, [^"]' host/store.c | grep -vE 'exec\(s, (store_schema|store_view_sql|sql), ')
  expect_eq "store.c exec() of other non-literal SQL" "$hits" ""
  # merge_hosts.c's exec() helper: literals, its two constant index scripts and carry_sql only
  hits=$(grep -nE '\bexec\(out, [^"]' host/merge_hosts.c | grep -vE 'exec\(out, (drop_idx|make_idx|carry_sql)\);')
  expect_eq "merge_hosts.c exec() of other non-literal SQL" "$hits" ""
}

run_case no_socket_sim
run_case no_socket_port
run_case strace_sees
run_case modes_umask0
run_case no_shell
run_case source_audit
finish
