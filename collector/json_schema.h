/* json_schema — the name every JSON document of mw carries first, "schema":
 * "megawatt.COMMAND/VERSION", and which docs/schemas/megawatt.COMMAND-VERSION.schema.json
 * (JSON Schema, draft 2020-12) describes; docs/cli.md ("JSON schemas") says what a new
 * VERSION promises. tests/integration/test_json_schemas.sh validates every command's output
 * against its schema. */
#ifndef MW_JSON_SCHEMA_H
#define MW_JSON_SCHEMA_H

#define MW_SCHEMA_ANALYZE "megawatt.analyze/1"
#define MW_SCHEMA_ALIGN "megawatt.align/1"
#define MW_SCHEMA_DVFS "megawatt.dvfs/1"
#define MW_SCHEMA_FIT "megawatt.fit/1"
#define MW_SCHEMA_JOBS "megawatt.jobs/1"
#define MW_SCHEMA_PARETO "megawatt.pareto/1"
#define MW_SCHEMA_STATS "megawatt.stats/1"
#endif
