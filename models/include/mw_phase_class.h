/* phase_class — the one rule for a program's own waiting phases. A phase of kind user whose
 * name starts with "idle" or "wait" (ASCII case-insensitive: mwb-pattern's "idle",
 * eeg-mofs's "wait global") is waiting, not work: mw analyze leaves it out of work_s and the
 * phase split, mw plot draws it in the wait class, mw align leaves it out of the busy shape,
 * mw dvfs counts it with communication (slack). The SQL form and the C form agree: SQLite's
 * lower() and strncasecmp() both fold ASCII only. */
#ifndef MW_PHASE_CLASS_H
#define MW_PHASE_CLASS_H
#include <string.h>
#include <strings.h>

/* SQL condition on the phases table's kind and name columns */
#define MW_SQL_USER_WAITING "(kind = 'user' AND lower(substr(name, 1, 4)) IN ('idle', 'wait'))"

static inline int mw_phase_user_waiting(const char *kind, const char *name)
{
    return kind && name && !strcmp(kind, "user") &&
           (!strncasecmp(name, "idle", 4) || !strncasecmp(name, "wait", 4));
}
#endif
