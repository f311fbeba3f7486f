/* align_inband — "mw align RUNDIR --inband": the meter's alignment cross-checked against
 * each node's in-band power (models/include/inband_align.h, docs/inband.md): per node with
 * in-band sources and a wall channel, the offset of its wall windows against the sum of its
 * additive sources, with its standard error and correlation; text, or one JSON object.
 * Exit status: 0 when some node was estimated, 1 when none could be, 2 when the run has no
 * in-band source. */
#include <stdio.h>
#include <stdlib.h>

#include "align_inband.h"
#include "cli.h"
#include "inband_share.h"
#include "json_schema.h"
#include "textout.h"

static void json_node(FILE *out, const mw_inband_align_node *a)
{
    fputs("{\"host\": ", out);
    mw_out_json_string(out, a->host);
    fputs(", \"wall\": ", out);
    mw_out_json_string(out, a->wall);
    fputs(", \"summed\": ", out);
    mw_out_json_string(out, a->summed);
    if (a->ok)
        fprintf(out,
                ", \"offset_ms\": %.3f, \"sigma_ms\": %.3f, \"correlation\": %.5f, \"base_w\": "
                "%.3f, \"gain\": %.5f, \"windows\": %zu, \"note\": null}",
                a->fit.offset_s * 1e3, a->fit.sigma_s * 1e3, a->fit.correlation, a->fit.base_w,
                a->fit.gain_w, a->fit.windows);
    else {
        fputs(", \"offset_ms\": null, \"sigma_ms\": null, \"correlation\": null, \"base_w\": "
              "null, \"gain\": null, \"windows\": 0, \"note\": ",
              out);
        mw_out_json_string(out, a->note);
        fputs("}", out);
    }
}

static void text_node(FILE *out, const mw_inband_align_node *a)
{
    fputs("node ", out);
    mw_out_text(out, a->host);
    fputs(": wall ", out);
    mw_out_text(out, a->wall[0] ? a->wall : "-");
    fputs(" against ", out);
    mw_out_text(out, a->summed[0] ? a->summed : "-");
    if (a->ok) {
        fprintf(out, ": offset %+.1f ms +- %.1f ms (r %.4f, %zu windows)\n", a->fit.offset_s * 1e3,
                a->fit.sigma_s * 1e3, a->fit.correlation, a->fit.windows);
    } else {
        fputs(": no estimate (", out);
        mw_out_text(out, a->note);
        fputs(")\n", out);
    }
}

int mw_align_inband_cmd(const char *rundir, int json)
{
    mw_inband_align_node *nodes;
    size_t n;
    char err[1024];
    if (mw_inband_align_read(rundir, 0, &nodes, &n, err, sizeof err)) {
        fprintf(stderr, "mw align: %s\n", err);
        return MW_EXIT_USAGE;
    }
    if (!n) {
        fprintf(stderr, "mw align: %s: no in-band source in the run (mw record --inband)\n",
                rundir);
        return MW_EXIT_USAGE;
    }
    int any = 0;
    if (json) {
        fputs("{\"schema\": \"" MW_SCHEMA_ALIGN "\", \"run\": ", stdout);
        mw_out_json_string(stdout, rundir);
        fputs(", \"inband\": [", stdout);
    }
    for (size_t k = 0; k < n; k++) {
        any |= nodes[k].ok;
        if (json) {
            fputs(k ? ",\n  " : "\n  ", stdout);
            json_node(stdout, &nodes[k]);
        } else {
            text_node(stdout, &nodes[k]);
        }
    }
    if (json) fputs("\n]}\n", stdout);
    free(nodes);
    return any ? MW_EXIT_OK : MW_EXIT_FAIL;
}
