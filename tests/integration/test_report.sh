#!/usr/bin/env bash
# mw report end to end, checked in a real browser. Fixtures on the simulated board: a run
# with a known step profile (node0 100 W / 250 W, a switch at a constant 50 W) whose
# directory name and command line carry markup, two small eeg-mofs runs (the model
# section), and a sweep of 2 configurations x 2 repetitions. Then:
#   - the page is written where it should be, its path printed, and loads in headless
#     Chromium: a screenshot is a non-empty PNG; a harness page (in the test's own temp
#     directory, with file access between file:// pages) loads index.html in an iframe and
#     writes into its DOM, for every <img> of the report, naturalWidth x naturalHeight:
#     every figure must have loaded (width > 0), there must be figures, every src relative
#     (fig/...), and the injected markup must have made no element (no <script>, no <b>);
#   - the tables hold mw analyze --json's numbers for the same run (energy, mean power,
#     Pow_idle/Pow_work per channel; command time), and the independently known truth of
#     the profile (switch 50 W, node0's levels 100 and 250 W);
#   - the report directory still works when copied elsewhere (all paths relative);
#   - the model section for eeg-mofs runs, statistics across runs (the Student-t interval
#     recomputed here), the sweep's tables and figures (across runs, and each run's);
#   - bad input exits 2 with one line naming it, and creates nothing.
# Skipped (passing, saying why) only where Chromium is missing and cannot be installed.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

find_chromium() { command -v chromium || command -v chromium-browser; }
CHROMIUM=$(find_chromium)
if [ -z "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >"$TMP/apt.log" 2>&1
  CHROMIUM=$(find_chromium)
fi
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: no Chromium (Debian package chromium) and it cannot be installed here"
  exit 0
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
PATTERN=$(abs "$BUILD/bin/mwb-pattern")
EEG=$(abs "$BUILD/bin/eeg-mofs")
# a hostile run name: markup, quotes, an ampersand, a byte that is not UTF-8, a control
RUN="$TMP/run<b>&\"'x"$'\xff\x01'

EVIL='<script>alert(1)</script><img src=x>'

# url FILE: its file:// URL, every byte but unreserved ones and / percent-encoded
url() {
  local LC_ALL=C p c i out=""
  p=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  for ((i = 0; i < ${#p}; i++)); do
    c=${p:i:1}
    case $c in [A-Za-z0-9._~/-]) out+=$c ;; *) out+=$(printf '%%%02X' "'$c") ;; esac
  done
  echo "file://$out"
}

# browser FLAGS... URL: headless Chromium, no network, no sync, a throw-away profile
browser() {
  timeout 30 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --disable-default-apps \
    --disable-extensions --metrics-recording-only --no-default-browser-check \
    --disable-breakpad --mute-audio --user-data-dir="$TMP/chromium-profile" "$@" 2>>"$TMP/chromium.log"
}

# images PAGE: the report's images as the browser sees them, one "img WxH SRC" line each,
# after "images N", "scripts N", "bold N" (elements the page holds)
images() {
  local u; u=$(url "$1")
  cat >"$TMP/harness.html" <<EOF
<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<iframe id="r" src="$u" width="1280" height="900"></iframe><pre id="out">pending</pre>
<script>
window.addEventListener('load', function () {
  var o = [];
  try {
    var d = document.getElementById('r').contentDocument, im = d.images;
    o.push('images ' + im.length, 'scripts ' + d.getElementsByTagName('script').length,
           'bold ' + d.getElementsByTagName('b').length);
    for (var i = 0; i < im.length; i++)
      o.push('img ' + im[i].naturalWidth + 'x' + im[i].naturalHeight + ' ' + im[i].getAttribute('src'));
  } catch (e) { o.push('error ' + e); }
  document.getElementById('out').textContent = o.join('\n');
});
</script></body></html>
EOF
  browser --allow-file-access-from-files --virtual-time-budget=10000 --dump-dom \
    "file://$TMP/harness.html" | sed -n '/<pre id="out">/,/<\/pre>/p' |
    sed 's/.*<pre id="out">//; s/<\/pre>.*//'
}

# cell PAGE TABLE_ID ROW N: the text of the Nth cell of the first row of the table whose line
# holds the string ROW (e.g. 'data-channel="node0"')
cell() {
  awk -v t="id=\"$2\"" -v row="$3" -v n="$4" '
    index($0, t) { inside = 1 }
    inside && index($0, row) { split($0, c, "</td>"); x = c[n]; sub(/.*>/, "", x); print x; exit }
    inside && /<\/table>/ { inside = 0 }' "$1"
}
# t_interval_ok "MEAN U ± SD U" "[LO U, HI U]" T N: LO, HI = MEAN -+ T SD / sqrt(N) within the
# rounding of the printed figures (units s, J, kJ, MJ)
t_interval_ok() {
  awk -v m="$1" -v c="$2" -v t="$3" -v n="$4" '
    function u(v, x) { return x == "s" || x == "J" ? v : x == "kJ" ? v * 1e3 : x == "MJ" ? v * 1e6 : "x" }
    BEGIN {
      gsub(/[][,]/, "", c)
      if (split(m, a, " ") != 5 || split(c, b, " ") != 4) exit 1
      mean = u(a[1], a[2]); sd = u(a[4], a[5]); lo = u(b[1], b[2]); hi = u(b[3], b[4])
      if (mean == "x" || sd == "x" || lo == "x" || hi == "x" || sd < 0) exit 1
      h = t * sd / sqrt(n); tol = 0.002 + t * 0.0005 + 1e-3 * (h + (mean < 0 ? -mean : mean))
      d1 = lo - (mean - h); d2 = hi - (mean + h)
      exit !(d1 * d1 < tol * tol && d2 * d2 < tol * tol) }'
}
# value TEXT: the number in "912.395 J"
value() { echo "${1%% *}"; }
# json_channel FILE CHANNEL KEY: the channel's KEY in mw analyze --json (first run)
json_channel() {
  awk -v ch="\"name\": \"$2\"" -v k="\"$3\": " '
    index($0, ch) && !done { on = 1 }
    on { i = index($0, k); if (i) { x = substr($0, i + length(k)); sub(/[,}].*/, "", x); print x; exit } }' "$1"
}

setup() {
  printf 't_s,A1,A2\n0,100,50\n2.5,250,50\n4,100,50\n5.5,250,50\n6.5,100,50\n' >"$TMP/profile.csv"
  "$MW" record -q -o "$RUN" --meter "sim:$TMP/profile.csv" --channels node0,switch --idle 1 -- \
    sh -c 'exec "$@"' "$EVIL" "$PATTERN" --bits 6 --bit-ms 500 --threads 1 >"$TMP/rec.out" 2>&1
  expect_eq "record the fixture: exit" "$?" 0
  "$MW" analyze --json "$RUN" >"$TMP/an.json" 2>/dev/null
  expect_eq "mw analyze --json: exit" "$?" 0
}

one_run() {
  "$MW" report "$RUN" >"$TMP/rep.out" 2>"$TMP/rep.err"
  expect_eq "report: exit" "$?" 0
  expect_eq "report: prints the page's path" "$(cat "$TMP/rep.out")" "$RUN/report/index.html"
  PAGE="$RUN/report/index.html"
  check "report: index.html written" test -s "$PAGE"
  expect_grep "report: progress on stderr" "mw report: wrote" "$TMP/rep.err"
  # escaped, never markup
  expect_eq "no raw <script>" "$(grep -c '<script' "$PAGE")" 0
  expect_eq "no raw <b>" "$(grep -c '<b>' "$PAGE")" 0
  expect_grep "the command, escaped" '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x&gt;' "$PAGE"
  expect_grep "the run name, escaped" $'run&lt;b&gt;&amp;&quot;&#39;x\xef\xbf\xbd\xef\xbf\xbd' "$PAGE"
  expect_eq "no byte that is not UTF-8" "$(LC_ALL=C grep -c $'\xff' "$PAGE")" 0
  expect_eq "no network reference" "$(grep -cE '(src|href)="(https?:)?//' "$PAGE")" 0
  # the numbers: the same as mw analyze --json, and the profile's truth
  for ch in node0 switch; do
    local e p
    e=$(json_channel "$TMP/an.json" "$ch" energy_j)
    expect_num "$ch energy = analyze's" "$(value "$(cell "$PAGE" energy-1 "data-channel=\"$ch\"" 5)")" \
      "$(awk -v x="$e" 'BEGIN { print x - 0.0006 }')" "$(awk -v x="$e" 'BEGIN { print x + 0.0006 }')"
    p=$(json_channel "$TMP/an.json" "$ch" mean_power_w)
    expect_eq "$ch mean power = analyze's" "$(value "$(cell "$PAGE" energy-1 "data-channel=\"$ch\"" 8)")" "$p"
    p=$(json_channel "$TMP/an.json" "$ch" pow_idle_w)
    expect_eq "$ch Pow_idle = analyze's" "$(value "$(cell "$PAGE" levels-1 "data-channel=\"$ch\"" 2)")" "$p"
    p=$(json_channel "$TMP/an.json" "$ch" pow_work_w)
    expect_eq "$ch Pow_work = analyze's" "$(value "$(cell "$PAGE" levels-1 "data-channel=\"$ch\"" 3)")" "$p"
  done
  expect_num "switch mean power: the profile's 50 W" "$(value "$(cell "$PAGE" energy-1 'data-channel="switch"' 8)")" 49.5 50.5
  expect_num "node0 Pow_idle: the profile's 100 W" "$(value "$(cell "$PAGE" levels-1 'data-channel="node0"' 2)")" 97 103
  expect_num "node0 Pow_work: the profile's 250 W" "$(value "$(cell "$PAGE" levels-1 'data-channel="node0"' 3)")" 245 255
  expect_eq "node0: two levels" "$(cell "$PAGE" levels-1 'data-channel="node0"' 4 | tr -d ' ')" "yes"
  # the page opens with its findings: node0's levels (the profile's 100 and 250 W), the
  # energy, the warnings, the trace
  expect_eq "findings: the first section" "$(grep -o '<section id="[a-z]*"' "$PAGE" | head -1)" \
    '<section id="findings"'
  local fl
  fl=$(sed -n '/id="findings-levels"/,/<\/table>/p' "$PAGE" | grep 'data-channel="node0"' |
       grep -o '<td class="n">[0-9.]* W' | sed 's/.*>//; s/ W//' | tr '\n' ' ')
  expect_num "findings: node0 Pow_idle (profile 100 W)" "$(echo "$fl" | awk '{print $1}')" 97 103
  expect_num "findings: node0 Pow_work (profile 250 W)" "$(echo "$fl" | awk '{print $2}')" 245 255
  expect_grep "findings: where the energy went" 'id="findings-energy"' "$PAGE"
  expect_grep "findings: warnings or none" 'id="findings-warnings"' "$PAGE"
  # command time: the mw phase "command" of analyze
  local ct
  ct=$(grep -o '"kind": "mw", "name": "command", "intervals": 1, "duration_s": [0-9.]*' "$TMP/an.json" |
       sed 's/.*: //')
  expect_grep "summary: the command time" "$(printf '%.3f' "$ct") s" "$PAGE"
  expect_grep "metadata: the meter's firmware" '<th scope="row">Firmware</th>' "$PAGE"
  expect_grep "metadata: the channel pins" '<td>A2</td>' "$PAGE"
}

in_browser() {
  local dir="$RUN/report"
  browser --hide-scrollbars --window-size=1280,2400 --screenshot="$TMP/shot.png" \
    "$(url "$dir/index.html")" >/dev/null
  check "screenshot written" test -s "$TMP/shot.png"
  expect_eq "screenshot is a PNG" "$(head -c 8 "$TMP/shot.png" | od -An -tx1 | tr -d ' \n')" \
    "89504e470d0a1a0a"
  expect_num "screenshot size (bytes)" "$(stat -c %s "$TMP/shot.png")" 20000 100000000
  images "$dir/index.html" >"$TMP/img.txt"
  cat "$TMP/img.txt"
  expect_eq "browser: no script element" "$(sed -n 's/^scripts //p' "$TMP/img.txt")" 0
  expect_eq "browser: no injected <b>" "$(sed -n 's/^bold //p' "$TMP/img.txt")" 0
  local n bad
  n=$(sed -n 's/^images //p' "$TMP/img.txt")
  expect_num "browser: the page has figures" "$n" 1 1000
  expect_eq "browser: one line per image" "$(grep -c '^img ' "$TMP/img.txt")" "$n"
  bad=$(grep '^img ' "$TMP/img.txt" | grep -cv '^img [1-9][0-9]*x[1-9][0-9]* fig/')
  expect_eq "browser: every image loaded from fig/" "$bad" 0
  # the same after copying the directory elsewhere: nothing points outside it
  cp -r "$dir" "$TMP/copied"
  images "$TMP/copied/index.html" >"$TMP/img2.txt"
  expect_eq "copied: same images" "$(sed -n 's/^images //p' "$TMP/img2.txt")" "$n"
  expect_eq "copied: every image loaded" \
    "$(grep '^img ' "$TMP/img2.txt" | grep -cv '^img [1-9][0-9]*x[1-9][0-9]* fig/')" 0
}

eeg_runs() {
  for s in 1 2; do
    "$MW" record -q -o "$TMP/eeg$s" --meter sim --channels n0,n1,n2,switch -- \
      mpirun --oversubscribe -np 3 "$EEG" --patterns 60 --features 240 --individuals 48 \
      --generations 20 --global-every 10 --threads 1 --kmeans-iters 10 --strategy v3 -q \
      --subpops "$s" >"$TMP/eeg$s.out" 2>&1
    expect_eq "record eeg$s: exit" "$?" 0
  done
  "$MW" report -q --no-figures "$TMP/eeg1" "$TMP/eeg2" -o "$TMP/eegrep" >/dev/null 2>"$TMP/eeg.err"
  expect_eq "eeg report: exit" "$?" 0
  local page="$TMP/eegrep/index.html"
  check "eeg report: -o DIR" test -s "$page"
  expect_grep "model section" '<section id="model">' "$page"
  expect_eq "model: one row per run" "$(sed -n '/id="model-runs"/,/<\/table>/p' "$page" | grep -c '^<tr>')" 2
  expect_grep "model: the paper's NRMSE" '<td class="n">0.787</td>' "$page"
  expect_grep "model: fitted parameters" '<code>t_cpu_s</code>' "$page"
  # every note mw fit --mode fit gives on these runs is on the page (model and findings)
  "$MW" fit --model escobar --mode fit "$TMP/eeg1" "$TMP/eeg2" >/dev/null 2>"$TMP/fit.err"
  local line
  while IFS= read -r line; do
    line=$(printf '%s' "${line#mw fit: note: }" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')
    expect_eq "fit note in the report: $line" "$(grep -cF "$line" "$page")" 2
  done < <(grep '^mw fit: note: ' "$TMP/fit.err")
  echo "  mw fit's notes: $(grep -c '^mw fit: note: ' "$TMP/fit.err")"
  # (how many notes mw fit gives depends on the two runs' times: none is possible)
  # like with like: two eeg-mofs runs of different N_Spop are not pooled into statistics
  expect_eq "across runs: no table pooling unlike runs" "$(grep -c 'id="across-channels' "$page")" 0
  expect_eq "across runs: a group per command" "$(grep -c 'nothing to compare it with' "$page")" 2
  expect_grep "no figures: said so" "no-figures" "$page"
  # a plain run has no model section
  expect_eq "plain run: no model section" "$(grep -c 'id="model"' "$RUN/report/index.html")" 0
}

sweep() {
  "$MW" sweep -o "$TMP/sw" --param t=0.3,0.6 --reps 3 --meter sim -- sleep '{t}' \
    >"$TMP/sw.out" 2>&1
  expect_eq "sweep: exit" "$?" 0
  "$MW" report -q "$TMP/sw" >"$TMP/swrep.out" 2>&1
  expect_eq "sweep report: exit" "$?" 0
  local page="$TMP/sw/report/index.html"
  # figures across the runs in fig/, each run's own in fig/runN/, all loaded
  images "$page" >"$TMP/swimg.txt"
  expect_num "sweep: figures of each run" "$(grep -c '^img [0-9]*x[0-9]* fig/run[1-6]/' "$TMP/swimg.txt")" 6 1000
  expect_num "sweep: figures across runs" "$(grep -c '^img [0-9]*x[0-9]* fig/[^/]*$' "$TMP/swimg.txt")" 1 1000
  expect_eq "sweep: every image loaded" \
    "$(grep '^img ' "$TMP/swimg.txt" | grep -cv '^img [1-9][0-9]*x[1-9][0-9]* fig/')" 0
  check "sweep report: SWEEPDIR/report" test -s "$page"
  expect_eq "sweep: two configurations" \
    "$(sed -n '/id="sweep-1-runs"/,/<\/table>/p' "$page" | grep -c '^<tr><td><code>t=')" 2
  expect_grep "sweep: 3 of 3 runs per configuration" '<td class="n">3 of 3</td>' "$page"
  expect_grep "sweep: Kruskal-Wallis" 'Kruskal' "$page"
  # statistics like with like: each configuration on its own (never 0.3 s pooled with
  # 0.6 s); t=0.3's three runs first: Student-t with t(0.975, 2)
  expect_grep "sweep: a statistics group per configuration" 'id="across-runs-2"' "$page"
  local msd ci
  msd=$(cell "$page" across-runs '<td>Command time</td>' 3)
  ci=$(cell "$page" across-runs '<td>Command time</td>' 4)
  echo "  command time of t=0.3: $msd, 95 % interval $ci"
  check "sweep: command time's Student-t interval" t_interval_ok "$msd" "$ci" 4.30265 3
  # the two configurations apart (a sleep overruns on a loaded machine: generous above,
  # but the ranges do not overlap)
  expect_num "sweep: mean command time of t=0.3" "$(value "$msd")" 0.29 0.55
  expect_num "sweep: mean command time of t=0.6" \
    "$(value "$(cell "$page" across-runs-2 '<td>Command time</td>' 3)")" 0.59 0.85
  expect_eq "sweep: six runs in the summary" \
    "$(sed -n '/id="runs"/,/<\/table>/p' "$page" | grep -c ', repetition ')" 6
}

two_like_runs() {
  # the same command twice (a copy of the step run): one group of n = 2, mean +- sd, and no
  # interval: two runs cannot support one (t(0.975, 1) = 12.7 sd)
  cp -r "$RUN" "$TMP/again"
  "$MW" report -q --no-figures "$RUN" "$TMP/again" -o "$TMP/tworep" >/dev/null 2>&1
  expect_eq "two runs: exit" "$?" 0
  local page="$TMP/tworep/index.html"
  expect_eq "two runs: two runs per channel" \
    "$(cell "$page" across-channels 'data-channel="node0"' 2)" 2
  local ci
  ci=$(cell "$page" across-channels 'data-channel="node0"' 4)
  echo "  node0 across two runs: 95 % interval $ci"
  expect_eq "two runs: no interval from two runs" "$ci" "– (n = 2: too few runs)"
  expect_grep "two runs: the findings give the values" "(n = 2: no interval)" "$page"
}

bad_input() {
  "$MW" report >/dev/null 2>"$TMP/b1.err"
  expect_eq "no input: exit" "$?" 2
  expect_grep "no input: said" "no RUNDIR" "$TMP/b1.err"
  mkdir -p "$TMP/notarun"
  "$MW" report "$TMP/notarun" >/dev/null 2>"$TMP/b2.err"
  expect_eq "not a run: exit" "$?" 2
  expect_grep "not a run: named" "notarun: not a run" "$TMP/b2.err"
  check "not a run: nothing created" test ! -e "$TMP/notarun/report"
  # a run without samples: analyze's reason, nothing created
  mkdir -p "$TMP/empty"
  cp "$RUN/trace.db" "$TMP/empty/"
  sqlite3 "$TMP/empty/trace.db" "DELETE FROM windows"
  "$MW" report "$TMP/empty" >/dev/null 2>"$TMP/b3.err"
  expect_eq "empty run: exit" "$?" 2
  expect_eq "empty run: one line" "$(wc -l <"$TMP/b3.err")" 1
  check "empty run: nothing created" test ! -e "$TMP/empty/report"
  "$MW" report "$RUN" "$TMP/eeg1" >/dev/null 2>"$TMP/b4.err"
  expect_eq "two inputs without -o: exit" "$?" 2
  "$MW" report --frobnicate "$RUN" >/dev/null 2>"$TMP/b5.err"
  expect_eq "unknown option: exit" "$?" 2
  expect_grep "unknown option: named" "frobnicate" "$TMP/b5.err"
  "$MW" report --help >"$TMP/help.out"
  expect_eq "--help: exit" "$?" 0
  expect_grep "--help: usage" "^usage: mw report" "$TMP/help.out"
}

run_case setup
run_case one_run
run_case in_browser
run_case eeg_runs
run_case sweep
run_case two_like_runs
run_case bad_input
finish
