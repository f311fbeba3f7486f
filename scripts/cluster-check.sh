#!/usr/bin/env bash
# cluster-check.sh MW PATTERN_RUN TRAFFIC_RUN — the end-to-end checks of the simulated cluster
# (docs/simulated-cluster.md), used by `make demo` and tests/integration/test_simcluster.sh:
#  1. Pow_idle/Pow_work that `mw analyze` recovers (kde, the paper's estimator) for every node
#     of PATTERN_RUN (every rank running mwb-pattern) are within 3 % of the levels the
#     simulated cluster was configured with (the run's simulated_cluster metadata);
#  2. the busy phases of each node coincide with high power on its channel: `mw align` finds
#     the pattern (r >= 0.9) and the lag (the meter's offset) is within +-150 ms;
#  3. the switch channel stays below 5 W — its mean over the all-to-all of TRAFFIC_RUN (a
#     single 250 ms window of a 3.5 W load on a channel sized for 1 kW nodes is noisy, about
#     +-0.4 W: the highest window is printed, not checked) — and rises with MPI traffic: its
#     mean while the command runs is at least 0.3 W above its idle baseline.
# Prints one line per check with the numbers and units; exits 1 if any check fails.
set -u
mw=$1 pat=$2 trf=$3
fail=0
say() { printf '  %-7s %s\n' "$1" "$2"; }
meta() { sqlite3 -readonly "$1/trace.db" "SELECT value FROM meta WHERE key = '$2'"; }

cfg=$(meta "$pat" simulated_cluster)
[ -n "$cfg" ] || { echo "cluster-check: $pat: not recorded with --meter sim:cluster"; exit 2; }
levels=$("$mw" analyze "$pat" | awk '/^power levels/ { on = 1; next } on && NF == 0 { on = 0 }
                                      on && $2 ~ /^[0-9.]+$/ { print $1, $2, $4 }')
echo "Pow_idle / Pow_work recovered by mw analyze (kde) vs configured ($pat):"
for node in $(echo "$cfg" | grep -o '[A-Za-z0-9_.-]* A[0-9]* [0-9.]*\.\.[0-9.]* W cores' | awk '{print $1}'); do
  want=$(echo "$cfg" | grep -o "$node A[0-9]* [0-9.]*\.\.[0-9.]* W" | awk '{split($3, a, /\.\./); print a[1], a[2]}')
  got=$(echo "$levels" | awk -v n="$node" '$1 == n { print $2, $3 }')
  line=$(awk -v w="$want" -v g="$got" 'BEGIN {
      split(w, a, " "); split(g, b, " ");
      if (b[1] == "" || a[1] == "") { print "missing"; exit }
      ei = 100 * (b[1] - a[1]) / a[1]; ew = 100 * (b[2] - a[2]) / a[2];
      ok = (ei < 3 && ei > -3 && ew < 3 && ew > -3) ? "ok" : "OUT";
      printf "%s idle %.2f W (configured %.2f W, %+.2f %%), work %.2f W (configured %.2f W, %+.2f %%)", ok, b[1], a[1], ei, b[2], a[2], ew }')
  say "$node" "$line"
  case $line in ok*) ;; *) fail=1 ;; esac
done

echo "Busy phases vs power, lag of the meter's windows (mw align, positive: meter late):"
for node in $(echo "$cfg" | grep -o '[A-Za-z0-9_.-]* A[0-9]* [0-9.]*\.\.[0-9.]* W cores' | awk '{print $1}'); do
  out=$("$mw" align "$pat" --channel "$node" --phases busy 2>&1) || true
  off=$(echo "$out" | awk '$1 == "offset" { print $2 }')
  unc=$(echo "$out" | awk '$1 == "offset" { print $5 }')
  r=$(echo "$out" | awk '$1 == "fit" { gsub(/;/, "", $4); print $4 }')
  line=$(awk -v o="$off" -v u="$unc" -v r="$r" 'BEGIN {
      if (o == "" || r == "") { print "OUT no estimate"; exit }
      ok = (r >= 0.9 && o <= 150 && o >= -150) ? "ok" : "OUT";
      printf "%s lag %+.1f ms +- %.1f ms, correlation r = %.3f", ok, o, u, r }')
  say "$node" "$line"
  case $line in ok*) ;; *) fail=1 ;; esac
done

echo "Switch ($trf):"
sw=$(sqlite3 -readonly "$trf/trace.db" "SELECT channel FROM channels WHERE name = 'switch'")
q="SELECT printf('%.3f %.3f %.3f',
     (SELECT avg(power_mw) / 1000.0 FROM samples s, phases p WHERE s.channel = $sw AND p.kind = 'mw'
        AND p.name = 'idle-before' AND s.t0_ns >= p.start_ns AND s.t1_ns <= p.end_ns),
     (SELECT avg(power_mw) / 1000.0 FROM samples s, phases p WHERE s.channel = $sw AND p.kind = 'mw'
        AND p.name = 'command' AND s.t0_ns >= p.start_ns AND s.t1_ns <= p.end_ns),
     (SELECT max(power_mw) / 1000.0 FROM samples WHERE channel = $sw))"
read -r idle busy max < <(sqlite3 -readonly "$trf/trace.db" "$q")
line=$(awk -v i="$idle" -v b="$busy" -v m="$max" 'BEGIN {
    ok = (b < 5 && b - i >= 0.3) ? "ok" : "OUT";
    printf "%s idle %.3f W, during MPI all-to-all %.3f W (%+.3f W), highest window %.3f W", ok, i, b, b - i, m }')
say switch "$line"
case $line in ok*) ;; *) fail=1 ;; esac
exit $fail
