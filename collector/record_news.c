/* record_news — what "mw record" says while it records (record_cmd.h): each piece of news
 * from the recording (the meter away and back, a store failure said once, the command not
 * found) as one line on stderr, and on a terminal one status line (the stage, W per
 * channel, the energy so far) refreshed after the turns of the loop. The line's own
 * terminal controls go through mw_out_tty, its names through the escaping stderr. */
#include "record_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "textout.h"

int64_t mw_rec_now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mw_rec_store_failed(rec_t *r, const char *msg)
{
    if (!r->store_failed) fprintf(stderr, "mw record: %s: %s\n", r->o.rundir, msg);
    r->store_failed = 1;
}

void mw_rec_status_line(rec_t *r, int force)
{
    int64_t t = mw_rec_now(CLOCK_MONOTONIC);
    if (!r->tty || (!force && t < r->next_status)) return;
    r->next_status = t + STATUS_NS;
    static const char *stage_name[] = {"idle", "idle", "running", "idle", "done"};
    char line[1024];
    size_t len = (size_t)snprintf(line, sizeof line, "%s %6.1f s", stage_name[r->stage],
                                  (double)(t - r->start_mono) * 1e-9);
    double e_j = 0;
    for (int k = 1; k <= r->nchan; k++) {
        e_j += (double)mw_rec_energy_mj(r, k) * 1e-3;
        if (len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "  %s %.1f W", r->names.name[k],
                                    mw_rec_power_w(r, k));
    }
    if (len < sizeof line)
        snprintf(line + len, sizeof line - len, "  %.1f J%s", e_j,
                 mw_rec_connected(r) ? "" : "  (meter lost)");
    mw_out_tty("\r"); /* the line's own controls raw, its names escaped by stderr */
    fputs(line, stderr);
    mw_out_tty("\033[K");
}

void mw_rec_on_news(void *ctx, const mw_record_news *n)
{
    rec_t *r = ctx;
    const char *cr = r->tty ? "\r\033[K" : "";
    const char *port = n->port ? n->port : r->path; /* of the meter in question */
    r->stage = n->stage;
    if (n->back)
        fprintf(stderr, "%smw record: %s: meter back after %.1f s\n", mw_out_tty(cr), port,
                n->away_s);
    if (n->write_failed) mw_rec_store_failed(r, n->write_err);
    if (n->lost)
        fprintf(stderr,
                "%smw record: %s: the meter went away; reconnecting (the command goes on)\n",
                mw_out_tty(cr), port);
    /* a failed commit (disk full, read-only) loses the data since the last one: say so */
    if (n->commit_failed && !r->store_failed) {
        fprintf(stderr, "%smw record: %s: %s (the command goes on)\n", mw_out_tty(cr), r->o.rundir,
                n->commit_err);
        r->store_failed = 1;
    }
    if (n->no_window)
        fprintf(stderr, "mw record: %s: no window from the meter yet; recording anyway\n", r->path);
    if (n->spawn_errno)
        fprintf(stderr, "%smw record: %s: %s\n", mw_out_tty(cr), r->o.cmd[0],
                n->spawn_errno == ENOENT ? "command not found" : strerror(n->spawn_errno));
    if (n->pumped && n->stage != MW_RECORD_FIRST_WINDOW) mw_rec_status_line(r, 0);
}
