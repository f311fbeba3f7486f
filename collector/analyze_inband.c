/* analyze_inband — mw analyze's in-band section (docs/inband.md): per node, per span (the
 * run, the idle baseline, each phase group), the wall power beside each in-band source, the
 * in-band sum, its share of the wall and the rest of the node, and the same over the idle
 * baseline (dynamic); as a text table and as the JSON key "inband" of each run. The figures
 * come from models/include/inband_share.h; a figure that does not exist is "-" / null. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_print.h"
#include "inband_share.h"
#include "texttable.h"
#include "textout.h"

#define INBAND_MAX_SRC_COLS 20

static void span_label(char *buf, size_t len, const mw_inband_share_span *sp)
{
    snprintf(buf, len, "%s%s%s", sp->kind ? sp->kind : "", sp->kind ? "/" : "", sp->name);
}

static void text_node(FILE *out, const mw_inband_share_node *nd)
{
    size_t ns = nd->nsrc < INBAND_MAX_SRC_COLS ? nd->nsrc : INBAND_MAX_SRC_COLS;
    fputs("  node ", out);
    mw_out_text(out, nd->host);
    fputs(": wall ", out);
    mw_out_text(out, nd->wall[0] ? nd->wall : "(no channel of this host)");
    fputs("; summed:", out);
    for (size_t i = 0; i < nd->nsrc; i++)
        if (nd->src[i].additive) fprintf(out, " %s", nd->src[i].name);
    fputs("\n", out);
    mw_table t = {.ncols = (int)(9 + ns), .align = "lrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr"};
    const char *head[32] = {"span", "duration", "wall"};
    for (size_t i = 0; i < ns; i++)
        head[3 + i] = nd->src[i].name;
    const char *tail[] = {"in-band", "share", "rest", "+wall", "+in-band", "dynamic share"};
    for (int i = 0; i < 6; i++)
        head[3 + ns + (size_t)i] = tail[i];
    char *cells[32];
    for (int i = 0; i < t.ncols; i++)
        cells[i] = mw_out_text_dup(head[i]);
    mw_table_add(&t, (const char *const *)cells);
    for (int i = 0; i < t.ncols; i++)
        free(cells[i]);
    for (size_t j = 0; j < nd->nspan; j++) {
        const mw_inband_share_span *sp = &nd->span[j];
        char b[32][64];
        const char *row[32];
        span_label(b[0], sizeof b[0], sp);
        char *label = mw_out_text_dup(b[0]);
        row[0] = label;
        row[1] = an_secs(b[1], sizeof b[1], sp->duration_ns, 1);
        row[2] = an_dbl(b[2], sizeof b[2], sp->wall_w, 3, "W", 0);
        for (size_t i = 0; i < ns; i++)
            row[3 + i] = an_dbl(b[3 + i], sizeof b[0], sp->src_w[i], 3, "W", 0);
        double v[6] = {sp->inband_w,
                       mw_inband_share_pct(sp),
                       mw_inband_share_rest_w(sp),
                       mw_inband_share_dyn_wall_w(nd, sp),
                       mw_inband_share_dyn_inband_w(nd, sp),
                       mw_inband_share_dyn_pct(nd, sp)};
        static const char *const unit[6] = {"W", "%", "W", "W", "W", "%"};
        for (int i = 0; i < 6; i++)
            row[3 + ns + (size_t)i] =
                an_dbl(b[3 + ns + (size_t)i], sizeof b[0], v[i], i == 1 || i == 5 ? 1 : 3, unit[i], 0);
        mw_table_add(&t, row);
        free(label);
    }
    mw_table_print(&t, out, "  ");
    mw_table_free(&t);
}

void mw_analyze_inband_text(FILE *out, const mw_analysis_run *r)
{
    if (!r->inband) return;
    fputs("\nin-band sources beside the wall (per node; share = in-band / wall, rest = wall - "
          "in-band; +: over the idle baseline)\n",
          out);
    for (size_t k = 0; k < r->inband->nnode; k++)
        text_node(out, &r->inband->node[k]);
}

static void json_num(FILE *out, const char *key, double v, int decimals)
{
    char b[64];
    fprintf(out, ", \"%s\": %s", key, an_dbl(b, sizeof b, v, decimals, "", 1));
}

static void json_span(FILE *out, const mw_inband_share_node *nd, const mw_inband_share_span *sp)
{
    char b[64];
    fputs("{\"kind\": ", out);
    if (sp->kind)
        mw_out_json_string(out, sp->kind);
    else
        fputs("null", out);
    fputs(", \"name\": ", out);
    mw_out_json_string(out, sp->name);
    fprintf(out, ", \"duration_s\": %s", an_secs(b, sizeof b, sp->duration_ns, 0));
    json_num(out, "wall_power_w", sp->wall_w, 3);
    fputs(", \"source_power_w\": [", out);
    for (size_t i = 0; i < nd->nsrc; i++)
        fprintf(out, "%s%s", i ? ", " : "", an_dbl(b, sizeof b, sp->src_w[i], 3, "", 1));
    fputs("]", out);
    json_num(out, "inband_power_w", sp->inband_w, 3);
    json_num(out, "share_pct", mw_inband_share_pct(sp), 3);
    json_num(out, "rest_power_w", mw_inband_share_rest_w(sp), 3);
    json_num(out, "dynamic_wall_power_w", mw_inband_share_dyn_wall_w(nd, sp), 3);
    json_num(out, "dynamic_inband_power_w", mw_inband_share_dyn_inband_w(nd, sp), 3);
    json_num(out, "dynamic_share_pct", mw_inband_share_dyn_pct(nd, sp), 3);
    fputs("}", out);
}

void mw_analyze_inband_json(FILE *out, const mw_analysis_run *r)
{
    fputs(",\n   \"inband\": ", out);
    if (!r->inband) {
        fputs("null", out);
        return;
    }
    fputs("[", out);
    for (size_t k = 0; k < r->inband->nnode; k++) {
        const mw_inband_share_node *nd = &r->inband->node[k];
        fputs(k ? ",\n    {\"host\": " : "\n    {\"host\": ", out);
        mw_out_json_string(out, nd->host);
        fputs(", \"wall_channels\": ", out);
        mw_out_json_string(out, nd->wall);
        fputs(",\n     \"sources\": [", out);
        for (size_t i = 0; i < nd->nsrc; i++) {
            fputs(i ? ", {\"name\": " : "{\"name\": ", out);
            mw_out_json_string(out, nd->src[i].name);
            fputs(", \"kind\": ", out);
            mw_out_json_string(out, nd->src[i].kind);
            fputs(", \"domain\": ", out);
            mw_out_json_string(out, nd->src[i].domain);
            fprintf(out, ", \"additive\": %s}", nd->src[i].additive ? "true" : "false");
        }
        fputs("],\n     \"spans\": [", out);
        for (size_t j = 0; j < nd->nspan; j++) {
            fputs(j ? ",\n      " : "\n      ", out);
            json_span(out, nd, &nd->span[j]);
        }
        fputs("]}", out);
    }
    fputs("\n   ]", out);
}
