/* record_dirs — RUN/probe and RUN/traffic made fresh before the recorded command starts and
 * RUN/probe tidied at the end (record_dirs.h). One module for the one-host recording
 * (cmd_record.c) and "mw record --meter-hosts" (record_hosts.c), so that neither command file
 * calls into the other. What cannot be made is said on standard error, as the command's own
 * words ("mw record: ..."). */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "mw_fs.h"
#include "record_dirs.h"

/* RUN/NAME made fresh (record_dirs.h); 0, or -1 after saying why on standard error */
static int fresh_run_dir(const char *rundir, const char *name)
{
    char path[PATH_MAX + 300], err[PATH_MAX + 600];
    int replaced = 0;
    snprintf(path, sizeof path, "%s/%s", rundir, name);
    if (mw_fs_fresh_dir(path, &replaced, err, sizeof err) != 0) {
        fprintf(stderr, "mw record: %s\n", err);
        return -1;
    }
    if (replaced)
        fprintf(stderr,
                "mw record: %s: was not a directory of mw's (a link?); replaced by a new one, "
                "its target untouched\n",
                path);
    return 0;
}

int mw_rec_dirs_prepare(const char *rundir, int traffic)
{
    if (fresh_run_dir(rundir, "probe") != 0)
        fprintf(stderr, "mw record: the probes will write no events there\n");
    if (traffic && fresh_run_dir(rundir, "traffic") != 0) {
        fprintf(stderr, "mw record: the switch channel will not follow MPI traffic\n");
        return 0;
    }
    return traffic;
}

void mw_rec_dirs_done(const char *rundir)
{
    char probe[PATH_MAX + 300];
    snprintf(probe, sizeof probe, "%s/probe", rundir);
    rmdir(probe); /* the one mw_rec_dirs_prepare made, when no probe wrote there */
}
