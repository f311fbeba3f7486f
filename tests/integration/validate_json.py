#!/usr/bin/env python3
"""validate_json — checks JSON documents of mw against the schema each names: strict JSON
(UTF-8; NaN and Infinity refused), a top-level "schema": "megawatt.COMMAND/VERSION" (in a
Perfetto trace: otherData.schema, as the trace-event format has a fixed top level), and
validity under docs/schemas/megawatt.COMMAND-VERSION.schema.json (JSON Schema 2020-12, with
Debian's python3-jsonschema; the schema is itself checked against the metaschema).

usage: validate_json.py FILE...   Prints one line per file; exits 1 when any is invalid."""
import json
import os
import re
import sys

import jsonschema

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "schemas")


def refuse(name):
    raise ValueError(f"{name} is not JSON")


def check(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, parse_constant=refuse)
    name = doc.get("schema") if isinstance(doc, dict) else None
    if name is None and isinstance(doc, dict) and isinstance(doc.get("otherData"), dict):
        name = doc["otherData"].get("schema")  # a Perfetto trace: its top level is fixed
    m = re.fullmatch(r"megawatt\.([a-z]+)/([0-9]+)", name or "")
    if not m:
        return f"no \"schema\": \"megawatt.COMMAND/VERSION\" at the top (got {name!r})"
    with open(os.path.join(SCHEMAS, f"megawatt.{m[1]}-{m[2]}.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=str)
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path)
        return f"{len(errors)} error(s); first at /{where}: {e.message[:300]}"
    return None


bad = 0
for p in sys.argv[1:]:
    try:
        msg = check(p)
    except (ValueError, OSError, jsonschema.SchemaError) as e:
        msg = str(e)[:300]
    print(f"{p}: {'valid' if msg is None else msg}")
    bad += msg is not None
sys.exit(1 if bad else 0)
