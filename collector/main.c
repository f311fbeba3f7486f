/* main — the mw executable: everything happens in mw_cli_main (cli.c). The process first
 * adds "others may not write" to its umask, so that nothing mw or the programs it starts
 * create (runs, figures, reports, sweeps, exports) is world-writable whatever the umask it
 * was given (docs/reliability.md, "Hardening"); the recorded command inherits it too. Its
 * standard error escapes control bytes (mw_out_guard_stderr). SIGXFSZ (a write past
 * `ulimit -f`) is caught by a handler that does nothing, for every command, so that the write
 * fails with EFBIG and the command's write-error path runs as for a full disk (a message,
 * exit 1, its temporary files removed) instead of the process dying half-way; a caught
 * signal is reset by exec, so the programs mw starts get the default again. */
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "textout.h"

static void on_xfsz(int sig)
{
    (void)sig; /* the write that crossed the limit fails with EFBIG */
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_xfsz;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGXFSZ, &sa, NULL);
    umask(umask(0) | S_IWOTH);
    mw_out_guard_stderr(); /* no control byte in a message reaches the terminal */
    return mw_cli_main(argc, argv);
}
