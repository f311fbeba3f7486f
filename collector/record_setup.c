/* record_setup — what "mw record" (cmd_record.c) does before it records, kept out of it so
 * that it stays short: the run directory locked and its store made (mw_runlock.h,
 * mw_store.h), and the descriptors held in reserve for the end's work (see cmd_record.c). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record_cmd.h"

/* The run directory locked and its store created. An existing directory is locked before
 * --force removes its trace; a new one right after mw_store_create made it (a recorder that
 * loses that race is refused, the winner's run untouched). Returns 0, or -1 with err. */
int mw_rec_lock_and_create(rec_t *r, char *err, size_t errlen)
{
    struct stat sb;
    int existed = stat(r->o.rundir, &sb) == 0 && S_ISDIR(sb.st_mode);
    pid_t holder;
    if (existed && !(r->lock = mw_runlock_take(r->o.rundir, &holder, err, errlen))) return -1;
    if (!(r->st = mw_store_create(r->o.rundir, r->o.force, err, errlen))) {
        mw_runlock_release(r->lock);
        r->lock = NULL;
        return -1;
    }
    if (!existed && !(r->lock = mw_runlock_take(r->o.rundir, &holder, err, errlen))) {
        mw_store_discard(r->st); /* what mw_store_create made, nothing else */
        r->st = NULL;
        return -1;
    }
    return 0;
}

/* Takes the descriptor reserve (see top); 0, or -1 with errno set. */
int mw_rec_reserve_take(rec_t *r)
{
    for (size_t i = 0; i < sizeof r->reserve / sizeof r->reserve[0]; i++)
        r->reserve[i] = -1;
    for (size_t i = 0; i < sizeof r->reserve / sizeof r->reserve[0]; i++)
        if ((r->reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) return -1;
    return 0;
}

void mw_rec_reserve_give_back(rec_t *r)
{
    for (size_t i = 0; i < sizeof r->reserve / sizeof r->reserve[0]; i++) {
        if (r->reserve[i] >= 0) close(r->reserve[i]);
        r->reserve[i] = -1;
    }
}

