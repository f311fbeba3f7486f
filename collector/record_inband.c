/* record_inband — see record_inband.h. Absent sources are said once when --inband named
 * them; with the default (whatever is present) only what a user can fix is said: RAPL
 * domains that are there but unreadable. Every note is kept in the run (meta
 * inband_notes) either way. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record_inband.h"
#include "textout.h"

void mw_rec_inband_init(mw_rec_inband *o)
{
    *o = (mw_rec_inband){.which = MW_INBAND_RAPL | MW_INBAND_NVML, .hz = MW_INBAND_DEFAULT_HZ};
}

int mw_rec_inband_option(mw_rec_inband *o, int opt, const char *arg)
{
    if (opt == MW_REC_INBAND_OPT) {
        if (mw_inband_parse(arg, &o->which))
            return mw_cli_usage_error("record", "--inband: '%s' is not rapl, nvml, rapl,nvml or "
                                                "none", arg);
        o->given = 1;
        return -1;
    }
    double v;
    int rc = mw_cli_double("record", "--inband-hz", arg, 1, MW_INBAND_MAX_HZ, "Hz", &v);
    if (rc) return rc;
    o->hz = v;
    return -1;
}

static void say(const mw_rec_inband *o, const mw_inband_notes *n, int quiet)
{
    for (int i = 0; i < n->n; i++) {
        int fixable = strstr(n->line[i], "permission denied") != NULL;
        if (quiet || !(o->given || fixable)) continue;
        char *t = mw_out_text_dup(n->line[i]); /* paths from the environment: escaped */
        fprintf(stderr, "mw record: in-band: %s\n", t);
        free(t);
    }
}

/* no source found: what was looked for and why none is kept in the run */
static void keep_notes(mw_store *st, const mw_inband_notes *n)
{
    char all[MW_INBAND_NOTES * 330] = "";
    size_t len = 0;
    for (int i = 0; i < n->n && len < sizeof all; i++)
        len += (size_t)snprintf(all + len, sizeof all - len, "%s%s", i ? "; " : "", n->line[i]);
    mw_store_meta_set(st, "inband", "none"); /* a failure here is the recorder's to see */
    if (n->n) mw_store_meta_set(st, "inband_notes", all);
}

int mw_rec_inband_start(mw_rec_inband *o, mw_store *st, const char *rundir, const char *host,
                        int quiet)
{
    if (!o->which) return 0;
    const char *h = getenv("MW_INBAND_HOST");
    mw_inband_notes notes = {.n = 0};
    char err[4400];
    o->s = mw_inband_start(rundir, h && *h ? h : host, o->which, o->hz, &notes, err, sizeof err);
    say(o, &notes, quiet);
    if (o->s && !mw_inband_sources(o->s)) keep_notes(st, &notes);
    if (o->s) return 0;
    char *t = mw_out_text_dup(err);
    fprintf(stderr, "mw record: in-band sources not recorded: %s\n", t);
    free(t);
    return -1;
}

int mw_rec_inband_stop(mw_rec_inband *o, mw_store *st, int quiet)
{
    mw_store_commit(st); /* its failure is the recorder's to see, at its own commit */
    if (!o->s) return 0;
    mw_inband_notes notes = {.n = 0};
    int rc = mw_inband_stop(o->s, &notes, NULL);
    o->s = NULL;
    mw_rec_inband tell = *o;
    tell.given = 1; /* what happened while recording is always said */
    say(&tell, &notes, quiet && rc == 0);
    return rc;
}
