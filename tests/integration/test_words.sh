#!/usr/bin/env bash
# test_words — what a user reads names the papers, never the word "seed" (issue 21 point 12),
# and lists the commands in the order of the work (point 13):
#   - 'mw --help' and every 'mw COMMAND --help' say "seed" only as the RNG option --seed;
#   - README.md and docs/*.md never say "seed 000/002/003" (the papers are cited by authors
#     and year, in full in docs/references.md and CITATION.cff);
#   - 'mw --help' lists the commands in the README's order ("Commands"), record first;
#   - CITATION.cff is valid YAML naming the three papers.
cd "$(dirname "$0")/../.." || exit 2
. tests/integration/lib.sh

case_help_no_seed() {
  "$MW" --help >"$TMP/help.txt" 2>&1
  expect_eq "mw --help exits 0" "$?" 0
  for c in $(awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' "$TMP/help.txt"); do
    "$MW" "$c" --help >>"$TMP/help.txt" 2>&1
  done
  expect_num "commands listed" "$(awk '/^commands:/{on=1; next} on && /^  [a-z]/' "$TMP/help.txt" | head -30 | wc -l)" 15 40
  local bad
  bad=$(grep -i "seed" "$TMP/help.txt" | grep -v -- "--seed" || true)
  expect_eq "help texts saying seed (not --seed)" "$bad" ""
  expect_grep "the papers are named" "Escobar et al. 2019" "$TMP/help.txt"
  expect_grep "the papers are named" "Khaleghzadeh et al. 2023" "$TMP/help.txt"
  expect_grep "the papers are named" "Fanfakh 2016" "$TMP/help.txt"
}

case_docs_no_seed_numbers() {
  local bad
  bad=$(grep -n -i -E "seeds? ?0[0-9]{2}|seed paper|seed-0" README.md docs/*.md || true)
  expect_eq "README/docs saying seed NNN" "$bad" ""
  expect_grep "references list Escobar" "Time-energy analysis of multi-level parallelism" docs/references.md
  expect_grep "references list Fanfakh" "tel-01514173" docs/references.md
}

case_help_order_is_readme_order() {
  "$MW" --help >"$TMP/help.txt" 2>&1
  awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}' "$TMP/help.txt" >"$TMP/help_order.txt"
  # the README's command table: first column `mw NAME ...`, in order, each name once
  awk '/^## Commands/{on=1; next} on && /^## /{on=0} on && /^\| `mw /{print}' README.md |
    sed -E 's/^\| `mw ([a-z]+).*/\1/' | awk '!seen[$0]++' >"$TMP/readme_order.txt"
  expect_eq "README command order = mw --help order" \
    "$(tr '\n' ' ' <"$TMP/readme_order.txt")" "$(tr '\n' ' ' <"$TMP/help_order.txt")"
  expect_eq "record first" "$(head -1 "$TMP/help_order.txt")" record
}

case_citation_cff() {
  if ! python3 -c 'import yaml' 2>/dev/null; then echo "  (no python3-yaml: CFF not parsed)"; return; fi
  python3 - CITATION.cff >"$TMP/cff.txt" 2>&1 <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
assert c["cff-version"] == "1.2.0", c["cff-version"]
for k in ("message", "title", "authors", "version"):
    assert c.get(k), k
names = " ".join(a["family-names"] for r in c["references"] for a in r["authors"])
for n in ("Escobar", "Khaleghzadeh", "Fanfakh"):
    assert n in names, n
print("ok")
PY
  expect_eq "CITATION.cff" "$(tail -1 "$TMP/cff.txt")" ok
}

run_case case_help_no_seed
run_case case_docs_no_seed_numbers
run_case case_help_order_is_readme_order
run_case case_citation_cff
finish
