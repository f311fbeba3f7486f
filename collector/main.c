/* main — the mw executable: everything happens in mw_cli_main (cli.c). The process first
 * adds "others may not write" to its umask, so that nothing mw or the programs it starts
 * create (runs, figures, reports, sweeps, exports) is world-writable whatever the umask it
 * was given (docs/reliability.md, "Hardening"); the recorded command inherits it too. Its
 * standard error escapes control bytes (mw_out_guard_stderr). */
#include <sys/stat.h>

#include "cli.h"
#include "textout.h"

int main(int argc, char **argv)
{
    umask(umask(0) | S_IWOTH);
    mw_out_guard_stderr(); /* no control byte in a message reaches the terminal */
    return mw_cli_main(argc, argv);
}
