/* report_meta — the page's metadata section (report_page.h: rp_section_meta), per run: the
 * main facts as key-value rows (directory and command, times, host, mw, meter and link, the
 * counts), its channels, its meter hosts' clocks (a run of meters on several hosts), its gaps (the first RP_MAX_GAPS, times since the start) and every
 * metadata key, folded. Everything comes from the run store as rp_report_collect read it;
 * a fact the run does not have is no row. */
#include <stdio.h>
#include <string.h>

#include "report_html.h"
#include "report_page.h"

/* start, end, durations, the idle baseline */
static void meta_times(FILE *f, const rp_run *r)
{
    char b[128];
    long long t0, t1;
    if (rp_meta_ll(r, "start_ns", &t0) == 0) rp_kv_row(f, "Start", mw_html_utc(b, sizeof b, t0), 0);
    if (rp_meta_ll(r, "end_ns", &t1) == 0) rp_kv_row(f, "End", mw_html_utc(b, sizeof b, t1), 0);
    if (rp_meta_ll(r, "start_ns", &t0) == 0 && rp_meta_ll(r, "end_ns", &t1) == 0)
        rp_kv_row(f, "Duration", mw_html_seconds(b, sizeof b, (double)(t1 - t0) / 1e9), 0);
    if (rp_meta_ll(r, "cmd_start_ns", &t0) == 0 && rp_meta_ll(r, "cmd_end_ns", &t1) == 0)
        rp_kv_row(f, "Command duration", mw_html_seconds(b, sizeof b, (double)(t1 - t0) / 1e9), 0);
    if (rp_meta(r, "idle_s")) {
        snprintf(b, sizeof b, "%s s before and after the command", rp_meta(r, "idle_s"));
        rp_kv_row(f, "Idle baseline", b, 0);
    }
}

/* A value, or "" when missing. */
static const char *or_empty(const rp_run *r, const char *key)
{
    const char *v = rp_meta(r, key);
    return v ? v : "";
}

/* meter, firmware, window rate, calibration */
static void meta_meter(FILE *f, const rp_run *r)
{
    char b[128];
    rp_kv_row(f, "Meter port", rp_meta(r, "meter_port"), 1);
    rp_kv_row(f, "Meter USB", rp_meta(r, "meter_usb"), 0);
    if (rp_meta(r, "meter_firmware")) {
        snprintf(b, sizeof b, "%s%s%s", rp_meta(r, "meter_firmware"),
                 rp_meta(r, "meter_build") ? ", build " : "", or_empty(r, "meter_build"));
        rp_kv_row(f, "Firmware", b, 0);
    }
    if (rp_meta(r, "meter_rate_hz")) {
        snprintf(b, sizeof b, "%s windows/s", rp_meta(r, "meter_rate_hz"));
        rp_kv_row(f, "Window rate", b, 0);
    }
    if (rp_meta(r, "meter_cal_source")) {
        snprintf(b, sizeof b, "%s%s%s%s%s", rp_meta(r, "meter_cal_source"),
                 rp_meta(r, "meter_calibration_date") ? ", " : "",
                 or_empty(r, "meter_calibration_date"),
                 rp_meta(r, "meter_calibration_ref") ? ", references " : "",
                 or_empty(r, "meter_calibration_ref"));
        rp_kv_row(f, "Calibration", b, 0);
    }
    rp_kv_row(f, "Channel names from", rp_meta(r, "channels_from"), 0);
}

/* the link's health, the clock */
static void meta_link(FILE *f, const rp_run *r)
{
    char b[128], b2[64];
    long long t0;
    if (rp_meta(r, "meter_bad_crc_lines")) {
        const char *lost = rp_meta(r, "meter_lost_windows"),
                   *restarts = rp_meta(r, "meter_restarts"), *rec = rp_meta(r, "reconnects");
        snprintf(b, sizeof b,
                 "%s lines with a bad CRC, %s windows lost, %s meter restarts, %s reconnects",
                 rp_meta(r, "meter_bad_crc_lines"), lost ? lost : "?", restarts ? restarts : "?",
                 rec ? rec : "?");
        rp_kv_row(f, "Link", b, 0);
    }
    if (rp_meta(r, "clock_drift_ppm")) {
        snprintf(b, sizeof b, "%s ppm", rp_meta(r, "clock_drift_ppm"));
        rp_kv_row(f, "Meter clock drift", b, 0);
    }
    if (rp_meta_ll(r, "clock_uncertainty_ns", &t0) == 0)
        rp_kv_row(f, "Alignment uncertainty", mw_html_num(b2, sizeof b2, (double)t0 / 1e6, 3, "ms"),
                  0);
}

static void meta_table(FILE *f, const rp_run *r, size_t i)
{
    char b[128];
    fprintf(f, "<div class=\"scroll\"><table class=\"kv\" id=\"meta-%zu\"><tbody>\n", i + 1);
    rp_kv_row(f, "Run directory", r->dir, 1);
    rp_kv_row(f, "Command", rp_meta(r, "command"), 1);
    rp_kv_row(f, "Recorded with", rp_meta(r, "record_command"), 1);
    rp_kv_row(f, "Status", rp_meta(r, "status"), 0);
    rp_kv_row(f, "Exit status", rp_meta(r, "exit_status"), 0);
    meta_times(f, r);
    /* a run of several meter hosts (meta launcher): this is the host that launched it */
    rp_kv_row(f, rp_meta(r, "launcher") ? "Launching host" : "Host", rp_meta(r, "hostname"), 0);
    rp_kv_row(f, "Launched through", rp_meta(r, "launcher"), 0);
    rp_kv_row(f, "Kernel", rp_meta(r, "kernel"), 0);
    rp_kv_row(f, "CPU", rp_meta(r, "cpu_model"), 0);
    rp_kv_row(f, "CPU governor", rp_meta(r, "cpu_governor"), 0);
    rp_kv_row(f, "MPI", rp_meta(r, "mpi"), 0);
    if (rp_meta(r, "mw_version")) {
        snprintf(b, sizeof b, "%s%s%s", rp_meta(r, "mw_version"),
                 rp_meta(r, "mw_git_id") ? " " : "", or_empty(r, "mw_git_id"));
        rp_kv_row(f, "mw", b, 0);
    }
    meta_meter(f, r);
    meta_link(f, r);
    rp_kv_row(f, "Imported from", rp_meta(r, "import_source"), 1);
    snprintf(b, sizeof b, "%lld", r->nphases);
    rp_kv_row(f, "Phases recorded", b, 0);
    snprintf(b, sizeof b, "%lld", r->ngaps);
    rp_kv_row(f, "Gaps", b, 0);
    fputs("</tbody></table></div>\n", f);
}

/* the host channel `channel`'s meter hangs on, as the analysis read it; NULL: not known */
static const char *meter_host_of(const mw_analysis_run *an, int channel)
{
    for (size_t i = 0; i < an->nchannels; i++)
        if (an->channels[i].channel == channel && an->channels[i].meter_host[0])
            return an->channels[i].meter_host;
    return NULL;
}

static void channels_table(FILE *f, const rp_run *r)
{
    fputs("<h3>Channels</h3>\n<div class=\"scroll\"><table>\n", f);
    static const char *const cols[] = {">Channel", "Name", "Host", "Pin", NULL};
    static const char *const mh_cols[] = {">Channel", "Name", "Host", "Meter host", "Pin", NULL};
    int mh = r->an && r->an->meter_hosts > 1; /* merged from several hosts: say each channel's */
    rp_thead(f, mh ? mh_cols : cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < r->nch; k++) {
        fprintf(f, "<tr><td class=\"n\">%d</td>", r->ch[k].channel);
        rp_td_text(f, r->ch[k].name);
        rp_td_text(f, r->ch[k].host);
        if (mh) rp_td_text(f, meter_host_of(r->an, r->ch[k].channel));
        rp_td_text(f, r->ch[k].pin);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

/* a run of meters on several hosts (mw record --meter-hosts, docs/scaling.md): per host its
 * clock against the launching host's, from the merge's meta clock_*.HOST_* (the hosts are
 * the keys clock_offset.HOST_ns) */
static void hosts_table(FILE *f, const rp_run *r, size_t i)
{
    static const char *const cols[] = {"Meter host", ">Clock offset", ">Bound",
                                       ">Alignment error p99", ">Drift", NULL};
    static const char pre[] = "clock_offset.", suf[] = "_ns";
    int any = 0;
    for (size_t k = 0; k < r->nmeta; k++) {
        const char *key = r->key[k];
        size_t n = strlen(key);
        if (strncmp(key, pre, sizeof pre - 1) || n < sizeof pre + sizeof suf - 1 ||
            strcmp(key + n - (sizeof suf - 1), suf))
            continue;
        char host[128], kk[200], b[64];
        snprintf(host, sizeof host, "%.*s", (int)(n - (sizeof pre - 1) - (sizeof suf - 1)),
                 key + sizeof pre - 1);
        if (!any++) {
            /* the first run's table is the one the findings' trace caption links to */
            fputs(i ? "<h3>Meter hosts</h3>\n" : "<h3 id=\"meter-hosts\">Meter hosts</h3>\n", f);
            fputs("<p>Each host's clock minus the launching host's, as "
                  "the merge moved that host's windows onto one time axis (docs/scaling.md); "
                  "the alignment error p99 bounds how far that is from the truth.</p>\n"
                  "<div class=\"scroll\"><table>\n", f);
            rp_thead(f, cols);
            fputs("<tbody>\n", f);
        }
        fputs("<tr>", f);
        rp_td_text(f, host);
        static const char *const keys[] = {"clock_offset.%s_ns", "clock_uncertainty.%s_ns",
                                           "clock_align_p99.%s_ns"};
        for (int c = 0; c < 3; c++) {
            long long v;
            snprintf(kk, sizeof kk, keys[c], host);
            if (rp_meta_ll(r, kk, &v) == 0 && (c == 0 || v >= 0))
                mw_html_num(b, sizeof b, (double)v / 1e3, 1, "\xC2\xB5s");
            else
                snprintf(b, sizeof b, "unknown");
            fprintf(f, "<td class=\"n\">%s</td>", b);
        }
        snprintf(kk, sizeof kk, "clock_drift.%s_ppm", host);
        snprintf(b, sizeof b, "%s ppm", rp_meta(r, kk) ? rp_meta(r, kk) : "?");
        rp_td_text(f, b);
        fputs("</tr>\n", f);
    }
    if (any) fputs("</tbody></table></div>\n", f);
}

static void gaps_table(FILE *f, const rp_run *r)
{
    if (!r->ngap_rows) return;
    long long origin = 0;
    rp_meta_ll(r, "start_ns", &origin);
    fprintf(f,
            "<h3>Gaps</h3>\n<p class=\"note\">Spans with no window%s; times in s "
            "since the start.</p>\n",
            r->ngaps > (long long)r->ngap_rows ? " (the first 50)" : "");
    fputs("<div class=\"scroll\"><table>\n", f);
    static const char *const cols[] = {">From", ">To", ">Length", "Reason", NULL};
    rp_thead(f, cols);
    fputs("<tbody>\n", f);
    for (size_t k = 0; k < r->ngap_rows; k++) {
        const rp_gap *g = &r->gap[k];
        fputs("<tr>", f);
        rp_td_seconds(f, (double)(g->start_ns - origin) / 1e9);
        rp_td_seconds(f, (double)(g->end_ns - origin) / 1e9);
        rp_td_seconds(f, (double)(g->end_ns - g->start_ns) / 1e9);
        rp_td_text(f, g->reason);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void every_key(FILE *f, const rp_run *r)
{
    fputs("<details><summary>Every metadata key</summary>\n<div class=\"scroll\"><table "
          "class=\"kv\"><tbody>\n",
          f);
    for (size_t k = 0; k < r->nmeta; k++) {
        fputs("<tr><th scope=\"row\"><code>", f);
        mw_html_text(f, r->key[k]);
        fputs("</code></th>", f);
        rp_td_code(f, r->val[k]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div></details>\n", f);
}

void rp_section_meta(FILE *f, const rp_report *rp)
{
    fputs("<section id=\"metadata\">\n<h2>Run metadata</h2>\n", f);
    for (size_t i = 0; i < rp->nrun; i++) {
        const rp_run *r = &rp->run[i];
        rp_run_open(f, rp, i);
        meta_table(f, r, i);
        channels_table(f, r);
        hosts_table(f, r, i);
        gaps_table(f, r);
        every_key(f, r);
        rp_run_close(f, rp);
    }
    fputs("</section>\n", f);
}

void rp_references(FILE *f)
{
    /* The papers whose methods the page uses, in full (docs/references.md). */
    fputs("<section id=\"references\">\n<h2>References</h2>\n<ul class=\"refs\">\n"
          "<li>Escobar et al. 2019: J. J. Escobar, J. Ortega, A. F. D\xC3\xAD"
          "az, J. Gonz\xC3\xA1lez, M. Damas, \xE2\x80\x9CTime-energy analysis of multi-level "
          "parallelism in heterogeneous clusters: the case of EEG classification in BCI "
          "tasks\xE2\x80\x9D, <i>The Journal of Supercomputing</i>, 2019, doi:10.1007/s11227-019-02908-4 (Pow<sub>idle</sub>/"
          "Pow<sub>work</sub>, the runtime and energy model, the statistics).</li>\n"
          "<li>Khaleghzadeh et al. 2023: H. Khaleghzadeh, M. Fahad, R. Reddy Manumachu, "
          "A. Lastovetsky, \xE2\x80\x9C" "Efficient exact algorithms for continuous bi-objective "
          "performance-energy optimization of applications with linear energy and monotonically "
          "increasing performance profiles on heterogeneous high performance computing "
          "platforms\xE2\x80\x9D, <i>Concurrency and Computation: Practice and Experience</i>, "
          "2023 (dynamic energy, the Pareto front of a workload split).</li>\n"
          "<li>Fanfakh 2016: A. B. M. Fanfakh, \xE2\x80\x9C" "Energy consumption optimization of "
          "parallel applications with iterations using CPU frequency scaling\xE2\x80\x9D, PhD "
          "thesis, Universit\xC3\xA9 de Franche-Comt\xC3\xA9, 2016, HAL tel-01514173 (DVFS)."
          "</li>\n</ul>\n</section>\n",
          f);
}
