/* record_dirs — the directories of RUN that the command's processes write into, made fresh
 * before the command starts and tidied at the end (cmd_record.c). Shared by the one-host
 * recording and "mw record --meter-hosts" (record_hosts.c), whose command is run by the
 * launcher. Private to the command. */
#ifndef MW_RECORD_DIRS_H
#define MW_RECORD_DIRS_H

/* RUNDIR/probe (the probes' spill files, libmwprobe) and, when traffic, RUNDIR/traffic (a
 * simulated cluster's byte counters, MW_TRAFFIC_DIR), each made fresh (mw_fs_fresh_dir):
 * whatever was there — a link to another directory (its target untouched), an earlier run's
 * spill files — is gone, so nothing is written through a planted link and nothing stale is
 * merged. What cannot be made is said on standard error. Returns traffic, or 0 when
 * RUNDIR/traffic could not be made (the switch channel then does not follow the traffic). */
int mw_rec_dirs_prepare(const char *rundir, int traffic);
/* The end, after the probes' files are merged: RUNDIR/probe removed when empty (rmdir: never
 * a link's target). */
void mw_rec_dirs_done(const char *rundir);
#endif
