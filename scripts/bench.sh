#!/usr/bin/env bash
# make bench — runs each benchmark binary; each prints a Markdown section that replaces its
# own section (between "<!-- bench:NAME -->" markers) in docs/performance.md.
set -euo pipefail
build=$1; elf=$2; shift 2
doc=docs/performance.md
[ -f "$doc" ] || printf '# Performance\n\nFigures written by `make bench`.\n' > "$doc"
for b in "$@"; do
  name=$(basename "$b")
  echo "bench: $name"
  out=$(mktemp)
  "$b" 2>/dev/null | grep -v '^\[' > "$out"
  if [ "$name" = bench_firmware ]; then
    {
      echo
      echo "### Flash and RAM (avr-size, atmega2560)"
      echo
      echo '```'
      avr-size --mcu=atmega2560 -C "$elf" | grep -E 'Program|Data'
      echo '```'
    } >> "$out"
  fi
  python3 - "$doc" "$name" "$out" <<'PY'
import sys, re
doc, name, out = sys.argv[1:]
body = open(out).read().rstrip() + "\n"
text = open(doc).read()
start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
block = f"{start}\n{body}{end}\n"
if start in text:
    text = re.sub(re.escape(start) + ".*?" + re.escape(end) + "\n?", lambda m: block, text, flags=re.S)
else:
    text = text.rstrip() + "\n\n" + block
open(doc, "w").write(text)
PY
  rm -f "$out"
done
echo "bench: figures in $doc"
