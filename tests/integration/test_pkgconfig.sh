#!/usr/bin/env bash
# libmegawatt as a user gets it: `make install DESTDIR=... PREFIX=/opt/mwtest` (the real rule),
# then, with PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR pointing into that root, the example
# of docs/api.md (docs/examples/mw_energy.c, as installed; the docs' listing is that file) built with the very command the
# docs give, run on a run recorded from the simulated board (the real firmware in simavr).
# Its energy per channel must equal Σ P·Δt over `mw export --format csv`'s windows, summed
# here by awk; its time in the recorder's phases the CSV's. The same program linked against
# libmegawatt.a (the static build line of docs/api.md) prints the same. A missing directory, a file that is no
# database, a database that is not a run, a corrupt run and a channel number out of range: one line
# on stderr, a non-zero exit, no crash. The shared library exports megawatt_* only (nm -D),
# the archive too, and the installed .pc names PREFIX, never DESTDIR.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

ROOT=$TMP/root
PREFIX=/opt/mwtest # not the Makefile's default, so a .pc that ignored PREFIX would show
LIBDIR=$ROOT$PREFIX/lib
EX=$TMP/ex
export PKG_CONFIG_PATH=$LIBDIR/pkgconfig PKG_CONFIG_SYSROOT_DIR=$ROOT LC_ALL=C
R=$TMP/run

installed() {
  make --no-print-directory -s install BUILD="$BUILD" DESTDIR="$ROOT" PREFIX="$PREFIX" \
    >"$TMP/install.log" 2>&1
  expect_eq "make install" "$?" 0
  check "the header" test -f "$ROOT$PREFIX/include/megawatt/megawatt.h"
  check "the shared library" test -f "$LIBDIR/libmegawatt.so.1"
  expect_eq "its link-time name" "$(readlink "$LIBDIR/libmegawatt.so")" "libmegawatt.so.1"
  expect_eq "its soname" "$(readelf -d "$LIBDIR/libmegawatt.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" \
    "libmegawatt.so.1"
  check "the archive" test -f "$LIBDIR/libmegawatt.a"
  expect_eq "the .pc names PREFIX" "$(sed -n 's/^prefix=//p' "$LIBDIR/pkgconfig/megawatt.pc")" "$PREFIX"
  check "the .pc does not name DESTDIR" bash -c "! grep -q '$TMP' '$LIBDIR/pkgconfig/megawatt.pc'"
  expect_eq "pkg-config knows it" "$(pkg-config --modversion megawatt)" \
    "$(sed -n 's/^VERSION *:= *//p' Makefile)"
  check "the example is installed as in docs/" \
    cmp docs/examples/mw_energy.c "$ROOT$PREFIX/share/doc/megawatt/docs/examples/mw_energy.c"
}

exports_only_the_api() {
  nm -D --defined-only "$LIBDIR/libmegawatt.so.1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' \
    >"$TMP/exports"
  expect_eq "the API's 12 functions" "$(grep -c '^megawatt_' "$TMP/exports")" 12
  expect_eq "nothing else" "$(grep -v '^megawatt_' "$TMP/exports" | tr '\n' ' ')" ""
  expect_eq "no sqlite3_, no mw_" "$(grep -cE '^(sqlite3_|mw_)' "$TMP/exports")" 0
  nm -g --defined-only "$LIBDIR/libmegawatt.a" | awk 'NF == 3 { print $3 }' >"$TMP/aexports"
  expect_eq "the archive: megawatt_* only" "$(grep -v '^megawatt_' "$TMP/aexports" | tr '\n' ' ')" ""
  expect_eq "needs SQLite and libc" \
    "$(readelf -d "$LIBDIR/libmegawatt.so.1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')" \
    "libc.so.6 libsqlite3.so.0 "
}

# the build line of docs/api.md, run as written in a folder holding the installed example
builds_as_documented() {
  # the listing in docs/api.md is the file, from its #include on
  expect_eq "docs/api.md lists docs/examples/mw_energy.c" \
    "$(awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' docs/api.md)" \
    "$(sed -n '/^#include <megawatt/,$p' docs/examples/mw_energy.c)"
  local line; line=$(grep -m1 '^cc mw_energy.c ' docs/api.md)
  expect_eq "docs/api.md's build line" "$line" 'cc mw_energy.c $(pkg-config --cflags --libs megawatt) -o mw_energy'
  mkdir -p "$EX"
  cp "$ROOT$PREFIX/share/doc/megawatt/docs/examples/mw_energy.c" "$EX/"
  (cd "$EX" && bash -c "$line") >"$TMP/cc.log" 2>&1
  expect_eq "it builds" "$?" 0
  sed 's/^/    /' "$TMP/cc.log"
  # the header and the example are clean C11 and the header is C++ too
  cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only $(pkg-config --cflags megawatt) \
    "$EX/mw_energy.c" >"$TMP/cc2.log" 2>&1
  expect_eq "clean under -std=c11 -Wall -Wextra -Wpedantic" "$?" 0
  if command -v g++ >/dev/null; then
    echo '#include <megawatt/megawatt.h>' | g++ -x c++ -Wall -Werror -fsyntax-only \
      $(pkg-config --cflags megawatt) - >>"$TMP/cc2.log" 2>&1
    expect_eq "the header in C++" "$?" 0
  fi
  sed 's/^/    /' "$TMP/cc2.log"
  # static: the same program against libmegawatt.a, with the static build line of the docs
  mkdir -p "$EX/static" && cp "$EX/mw_energy.c" "$EX/static/"
  line=$(grep -m1 '^cc mw_energy.c .*-l:libmegawatt.a' docs/api.md)
  check "docs/api.md's static build line" test -n "$line"
  (cd "$EX/static" && bash -c "$line") >"$TMP/cc3.log" 2>&1
  expect_eq "links statically" "$?" 0
  sed 's/^/    /' "$TMP/cc3.log"
  check "no libmegawatt.so in the static one" bash -c "! readelf -d '$EX/static/mw_energy' | grep -q libmegawatt"
}

example() { LD_LIBRARY_PATH=$LIBDIR "$EX/mw_energy" "$@"; }

energy_is_the_csv_s() {
  "$MW" record -o "$R" --meter sim --quiet -- sleep 2 >"$TMP/rec.log" 2>&1
  expect_eq "mw record" "$?" 0
  example "$R" >"$TMP/out" 2>"$TMP/err"
  expect_eq "exit" "$?" 0
  expect_eq "nothing on stderr" "$(cat "$TMP/err")" ""
  sed 's/^/    /' "$TMP/out"
  "$MW" export "$R" --format csv >"$TMP/samples.csv"
  # the truth: Σ power_w · (time_s − start_s) per channel, from the CSV's own columns
  awk -F, 'NR > 1 { e[$2] += $3 * ($1 - $8) } END { for (c in e) printf "%s %.6f\n", c, e[c] }' \
    "$TMP/samples.csv" | sort >"$TMP/truth"
  sed -n 's/^channel [0-9]* \(.*\): \(.*\) J$/\1 \2/p' "$TMP/out" | sort >"$TMP/got"
  expect_eq "a line per channel" "$(cut -d' ' -f1 "$TMP/got" | tr '\n' ' ')" "$(cut -d' ' -f1 "$TMP/truth" | tr '\n' ' ')"
  expect_eq "as many as the run has" "$(wc -l <"$TMP/got")" "$(q "$R" "select count(*) from channels")"
  join "$TMP/got" "$TMP/truth" >"$TMP/both"
  while read -r ch got want; do
    # the CSV rounds times to µs and power to mW: 1 mJ + 1e-5 of the energy is ample
    expect_num "$ch: $got J vs the CSV's $want J" "$got" \
      "$(awk -v w="$want" 'BEGIN { print w - 1e-3 - 1e-5 * (w < 0 ? -w : w) }')" \
      "$(awk -v w="$want" 'BEGIN { print w + 1e-3 + 1e-5 * (w < 0 ? -w : w) }')"
  done <"$TMP/both"
  expect_num "the loaded channels drew energy" "$(awk '$2 > 10' "$TMP/both" | wc -l)" 1 99
  # the recorder's phases (kind mw): their total length, from the phases CSV
  local want; want=$("$MW" export "$R" --format csv --what phases |
    awk -F, 'NR > 1 && $4 == "mw" { s += $7 - $6 } END { printf "%.3f", s }')
  local got; got=$(sed -n 's/^phases mw: \(.*\) s$/\1/p' "$TMP/out")
  expect_num "time in phases of kind mw: $got s vs the CSV's $want s" "$got" \
    "$(awk -v w="$want" 'BEGIN { print w - 0.0015 }')" "$(awk -v w="$want" 'BEGIN { print w + 0.0015 }')"
  expect_num "sleep 2 is in it" "$want" 1.9 30
  LD_LIBRARY_PATH=$LIBDIR "$EX/static/mw_energy" "$R" >"$TMP/out_static" 2>&1
  expect_eq "the static one says the same" "$(cat "$TMP/out_static")" "$(cat "$TMP/out")"
}

# expect_refused DESCRIPTION RUNDIR PATTERN [RC [STDOUT_OK]]: one line on stderr matching
# PATTERN, exit RC (any non-zero one below 128: not a signal), nothing on stdout (unless
# STDOUT_OK: what was read before the bad row)
expect_refused() {
  example "$2" >"$TMP/hout" 2>"$TMP/herr"
  local rc=$?
  if [ -n "${4:-}" ]; then expect_eq "$1: exit" "$rc" "$4"; else expect_num "$1: exit" "$rc" 1 127; fi
  expect_eq "$1: one line on stderr" "$(wc -l <"$TMP/herr")" 1
  expect_grep "$1: says why" "$3" "$TMP/herr"
  [ -n "${5:-}" ] || expect_eq "$1: nothing on stdout" "$(cat "$TMP/hout")" ""
}

hostile_runs() {
  expect_refused "no such run" "$TMP/nope" "mw_energy: .*nope" 2
  LD_LIBRARY_PATH=$LIBDIR "$EX/mw_energy" >/dev/null 2>"$TMP/herr"
  expect_eq "no argument: exit" "$?" 2
  expect_grep "no argument: usage" "usage: mw_energy RUNDIR" "$TMP/herr"
  mkdir -p "$TMP/text" && head -c 5000 /dev/urandom >"$TMP/text/trace.db"
  expect_refused "not a database" "$TMP/text" "mw_energy: .*trace.db" 2
  mkdir -p "$TMP/other" && sqlite3 "$TMP/other/trace.db" "create table t(x); insert into t values(1)"
  expect_refused "another database" "$TMP/other" "not a megawatt run store" 2
  # a real run with a channel number that does not fit in an int (the last, in channel order)
  mkdir -p "$TMP/big" && cp "$R/trace.db" "$TMP/big/"
  sqlite3 "$TMP/big/trace.db" "update channels set channel = 99999999999 where channel = 1"
  expect_refused "a channel out of range" "$TMP/big" "mw_energy: .*channel = 99999999999 is out of its range" 1 stdout-ok
  expect_eq "the channels before it" "$(wc -l <"$TMP/hout")" 4
  # a real run whose pages after the first are overwritten
  mkdir -p "$TMP/corrupt" && cp "$R/trace.db" "$TMP/corrupt/"
  local size; size=$(stat -c %s "$TMP/corrupt/trace.db")
  head -c $((size - 4096)) /dev/urandom | dd of="$TMP/corrupt/trace.db" bs=4096 seek=1 conv=notrunc status=none
  example "$TMP/corrupt" >/dev/null 2>"$TMP/herr"
  local rc=$?
  expect_num "a corrupt run: exit, no crash" "$rc" 1 2
  expect_grep "a corrupt run: says why" "mw_energy: " "$TMP/herr"
}

run_case installed
run_case exports_only_the_api
run_case builds_as_documented
run_case energy_is_the_csv_s
run_case hostile_runs
finish
