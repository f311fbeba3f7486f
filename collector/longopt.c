/* longopt — see longopt.h. */
#include "longopt.h"

#include <string.h>

int mw_longopt_is(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(arg, name, len) && (arg[len] == 0 || arg[len] == '=');
}

const char *mw_longopt_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (argv[*i][len] == '=') return argv[*i] + len + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

int mw_longopt_once(const char *cmd, mw_cli_seen *seen, const char *arg, const char *const *names)
{
    for (const char *const *n = names; *n; n++)
        if (mw_longopt_is(arg, *n)) return mw_cli_once(cmd, seen, *n);
    return 0;
}
