#!/usr/bin/env bash
# test_inband_denied — mw record --inband rapl beside RAPL domains it may not read (energy_uj
# is root-only on kernels since 2020): one line saying how to grant access, said whether
# --inband was given or not, and the recording goes on with the domains it can read
# (docs/inband.md, "Recording"). The tree is a powercap tree in a temporary directory
# (MW_POWERCAP_ROOT) with package-0 readable and package-1 and its dram not (mode 000); as
# root, which reads anything, mw runs as nobody (setpriv), else as the user running the test.
source "$(dirname "$0")/lib.sh"

# domain ROOT DIR NAME ENERGY
domain() {
  mkdir -p "$1/$2" && echo "$3" > "$1/$2/name" && echo "$4" > "$1/$2/energy_uj" &&
    echo 262143328850 > "$1/$2/max_energy_range_uj"
}

# as_user CMD...: CMD as nobody when root, else as is
as_user() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
  else
    "$@"
  fi
}

case_denied() {
  local d=$TMP/denied root
  mkdir -p "$d" && chmod 777 "$d" "$TMP" || { CASE_OK=0; return; }
  root=$d/powercap
  domain "$root" intel-rapl:0 package-0 1000 && domain "$root" intel-rapl:1 package-1 2000 &&
    domain "$root" intel-rapl:1:0 dram 300 || { CASE_OK=0; return; }
  chmod -R a+rX "$root" && chmod 000 "$root/intel-rapl:1/energy_uj" "$root/intel-rapl:1:0/energy_uj"
  local given
  for given in "--inband rapl" ""; do
    rm -rf "$d/run"
    # shellcheck disable=SC2086 # given is empty or two words
    as_user env HOME="$d" XDG_CONFIG_HOME="$d/config" MW_POWERCAP_ROOT="$root" "$MW" record -o "$d/run" --meter sim $given -- sleep 0.5 \
      2> "$d/err"
    expect_eq "[$given] exit status" "$?" 0
    expect_eq "[$given] status" "$(q "$d/run" "select value from meta where key='status'")" complete
    expect_eq "[$given] one line" "$(grep -c 'in-band' "$d/err")" 1
    expect_grep "[$given] how to grant access" "mw record: in-band: rapl: 2 domains under $root not readable (permission denied: energy_uj is root-only on recent kernels): left out; to record them grant read access, e.g. 'sudo chmod a+r $root/intel-rapl:\*/energy_uj" "$d/err"
    expect_eq "[$given] recorded without them" "$(q "$d/run" "select group_concat(name) from inband_channels")" "rapl:package-0"
    expect_grep "[$given] kept in the run" "2 domains under $root not readable" <(q "$d/run" "select value from meta where key='inband_notes'")
  done
}

run_case case_denied
finish
