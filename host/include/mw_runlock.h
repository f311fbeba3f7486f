/* mw_runlock — a run directory locked while one recorder owns it.
 *
 * The lock is an flock(LOCK_EX | LOCK_NB) on RUNDIR/.lock (as PowerSensor3 locks its device):
 * the file is opened with O_NOFOLLOW (a link planted there is refused, never followed) and
 * O_CLOEXEC (the recorded command does not inherit it, so an orphan cannot keep the run
 * locked), and the holder writes its pid into it. The kernel drops the lock when the holder's
 * descriptor closes, killed or not, so a stale file never locks anything; the file stays in
 * place (removing it would let two recorders lock two different files). A second recorder
 * is refused with the holder's pid read from the file.
 *
 * Errors: NULL with the message in the caller's buffer; *holder is the pid that holds the
 * lock (0 when the failure is something else, or the pid is not written yet). */
#ifndef MW_RUNLOCK_H
#define MW_RUNLOCK_H
#include <stddef.h>
#include <sys/types.h>

#define MW_RUNLOCK_NAME ".lock"

typedef struct mw_runlock mw_runlock;

/* Lock the existing directory rundir (creating RUNDIR/.lock, mode 0644, if missing). */
mw_runlock *mw_runlock_take(const char *rundir, pid_t *holder, char *err, size_t errlen);
void mw_runlock_release(mw_runlock *l); /* unlocks; NULL is fine */
#endif
