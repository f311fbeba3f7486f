/* report_inband — mw report's section "In-band power beside the wall" (docs/inband.md,
 * docs/report.md): per run with in-band sources, per node, the figures of mw analyze's
 * in-band share (models/include/inband_share.h) as a table: each span's wall power, each
 * source's, their sum, its share of the wall and the rest of the node, and the same over
 * the idle baseline. Nothing without in-band sources. Names from the run go through
 * mw_html_text. */
#include <math.h>
#include <stdio.h>

#include "inband_share.h"
#include "report_html.h"
#include "report_page.h"

static void node_table(FILE *f, const mw_inband_share_node *nd)
{
    fputs("<h3>Node ", f);
    mw_html_text(f, nd->host);
    fputs(" (wall: ", f);
    mw_html_text(f, nd->wall[0] ? nd->wall : "no channel of this host");
    fputs(")</h3>\n<div class=\"scroll\"><table class=\"inband\">\n<thead><tr><th>Span</th>"
          "<th class=\"n\">Duration</th><th class=\"n\">Wall</th>",
          f);
    for (size_t i = 0; i < nd->nsrc; i++) {
        fputs("<th class=\"n\">", f);
        mw_html_text(f, nd->src[i].name);
        fputs(nd->src[i].additive ? "</th>" : " (part)</th>", f);
    }
    fputs("<th class=\"n\">In-band</th><th class=\"n\">Share</th><th class=\"n\">Rest</th>"
          "<th class=\"n\">+Wall</th><th class=\"n\">+In-band</th>"
          "<th class=\"n\">Dynamic share</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t j = 0; j < nd->nspan; j++) {
        const mw_inband_share_span *sp = &nd->span[j];
        char label[300];
        snprintf(label, sizeof label, "%s%s%s", sp->kind ? sp->kind : "", sp->kind ? ":" : "",
                 sp->name);
        fputs("<tr>", f);
        rp_td_text(f, label);
        rp_td_seconds(f, sp->duration_ns * 1e-9);
        rp_td_num(f, sp->wall_w, 3, "W");
        for (size_t i = 0; i < nd->nsrc; i++)
            rp_td_num(f, sp->src_w[i], 3, "W");
        rp_td_num(f, sp->inband_w, 3, "W");
        rp_td_num(f, mw_inband_share_pct(sp), 1, "%");
        rp_td_num(f, mw_inband_share_rest_w(sp), 3, "W");
        rp_td_num(f, mw_inband_share_dyn_wall_w(nd, sp), 3, "W");
        rp_td_num(f, mw_inband_share_dyn_inband_w(nd, sp), 3, "W");
        rp_td_num(f, mw_inband_share_dyn_pct(nd, sp), 1, "%");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

int rp_has_inband(const rp_report *rp)
{
    for (size_t i = 0; i < rp->nrun; i++)
        if (rp->run[i].an->inband) return 1;
    return 0;
}

void rp_section_inband(FILE *f, const rp_report *rp)
{
    if (!rp_has_inband(rp)) return;
    fputs("<section id=\"inband\">\n<h2>In-band power beside the wall</h2>\n", f);
    fputs("<p class=\"note\">Per node, the mean power of its wall channel and of its in-band "
          "sources (RAPL domains, GPUs: <code>mw record --inband</code>) over each span. "
          "In-band: the sum of packages, dram and GPUs (parts such as core and uncore lie "
          "inside a package); share = in-band / wall; rest = wall &minus; in-band (power "
          "supply, fans, disks, network, the board); + : the increase over the idle "
          "baseline.</p>\n",
          f);
    for (size_t i = 0; i < rp->nrun; i++) {
        const mw_inband_share *s = rp->run[i].an->inband;
        if (!s) continue;
        rp_run_open(f, rp, i);
        for (size_t k = 0; k < s->nnode; k++)
            node_table(f, &s->node[k]);
        rp_run_close(f, rp);
    }
    fputs("</section>\n", f);
}
