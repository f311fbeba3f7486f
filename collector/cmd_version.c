/* cmd_version — "mw version": the tool's version and git id. */
#include "builtin.h"
#include "cli.h"

int cmd_version(int argc, char **argv)
{
    if (mw_cli_wants_help(argc, argv)) {
        printf("usage: mw version\n\nPrints mw's version and the git commit it was built from.\n");
        return MW_EXIT_OK;
    }
    if (argc > 1) return mw_cli_usage_error("version", "unexpected argument '%s'", argv[1]);
    printf("mw %s (%s)\n", MW_VERSION, MW_GIT_ID);
    return MW_EXIT_OK;
}
