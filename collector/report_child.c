/* report_child — run another mw command (mw fit, for mw report's model tables) with an
 * argument vector and read its output into memory (report_child.h), through the shared
 * runner (mw_child.h). */
#include "report_child.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mw_child.h"

int mw_report_child_run(char *const argv[], mw_report_child *c)
{
    memset(c, 0, sizeof *c);
    char *err = NULL;
    if (mw_child_run(NULL, argv, NULL, &c->out, &err, &c->status) != 0) {
        snprintf(c->err_start, sizeof c->err_start, "cannot start mw: %s",
                 err ? err : "out of memory");
        free(err);
        free(c->out);
        c->out = NULL;
        c->status = -1;
        return -1;
    }
    c->out_len = strlen(c->out);
    c->err = err;
    return 0;
}

void mw_report_child_free(mw_report_child *c)
{
    free(c->out);
    free(c->err);
    c->out = c->err = NULL;
}

const char *mw_report_child_last_err(const mw_report_child *c, char *buf, size_t len)
{
    if (c->status == -1 && c->err_start[0]) {
        snprintf(buf, len, "%s", c->err_start);
        return buf;
    }
    return mw_child_last_line(c->err, buf, len);
}
