/* capture — run the mw command in-process with stdout and stderr captured into one buffer
 * (shared by the CLI tests). Include after cmocka.h. */
#ifndef MW_TEST_CAPTURE_H
#define MW_TEST_CAPTURE_H
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

static __attribute__((unused)) int mw_run_captured(char *out, size_t outlen, int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int so = dup(1), se = dup(2);
    dup2(fileno(tmp), 1);
    dup2(fileno(tmp), 2);
    int rc = mw_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    rewind(tmp);
    size_t n = fread(out, 1, outlen - 1, tmp);
    out[n] = 0;
    fclose(tmp);
    return rc;
}
#endif
