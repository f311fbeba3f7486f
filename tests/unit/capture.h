/* capture — run the mw command in-process with its stdout and stderr captured (shared by
 * the CLI tests). Include after cmocka.h. */
#ifndef MW_TEST_CAPTURE_H
#define MW_TEST_CAPTURE_H
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

/* stdout into out, stderr into err (err may be out's buffer: then both go there, in order,
 * when errlen is 0). Returns mw's exit code. */
static __attribute__((unused)) int mw_run_captured2(char *out, size_t outlen, char *err,
                                                    size_t errlen, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *to = tmpfile(), *te = errlen ? tmpfile() : to;
    assert_non_null(to);
    assert_non_null(te);
    int so = dup(1), se = dup(2);
    dup2(fileno(to), 1);
    dup2(fileno(te), 2);
    int rc = mw_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    rewind(to);
    out[fread(out, 1, outlen - 1, to)] = 0;
    fclose(to);
    if (errlen) {
        rewind(te);
        err[fread(err, 1, errlen - 1, te)] = 0;
        fclose(te);
    }
    return rc;
}

/* stdout and stderr together into out. */
static __attribute__((unused)) int mw_run_captured(char *out, size_t outlen, int argc, char **argv)
{
    return mw_run_captured2(out, outlen, NULL, 0, argc, argv);
}
#endif
