/* record_signals — the signals of mw record (docs/cli.md): SIGINT, SIGTERM and SIGHUP end
 * the run and are passed on to the command (not a SIGINT or SIGHUP the terminal sent: the
 * command got it too); SIGCHLD only interrupts the wait for the meter; SIGXFSZ and SIGPIPE
 * are caught so that the write fails (EFBIG, EPIPE) and the disk-full path runs. A signal
 * mw was started with ignored (nohup) stays ignored. A caught signal goes back to its
 * default in the command (exec), an ignored one would not: hence handlers, not SIG_IGN. */
#include "record_signals.h"

#include <string.h>

volatile sig_atomic_t mw_record_forward_sig, mw_record_interrupted;

/* SIGCHLD only interrupts the wait for the meter, so that the child's end is seen at once;
 * SIGXFSZ and SIGPIPE are caught so that the write fails (EFBIG, EPIPE) instead */
static void on_nothing(int sig)
{
    (void)sig;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    mw_record_interrupted = sig;
    if (!((sig == SIGINT || sig == SIGHUP) && si && si->si_code == SI_KERNEL))
        mw_record_forward_sig = sig;
}

/* sig to sa, unless mw was started with sig ignored (nohup): then it stays so */
static void catch_one(int sig, const struct sigaction *sa, struct sigaction *old)
{
    sigaction(sig, NULL, old);
    if (old->sa_handler != SIG_IGN) sigaction(sig, sa, NULL);
}

void mw_record_signals_catch(mw_record_signals *old)
{
    mw_record_forward_sig = mw_record_interrupted = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old->intr);
    sigaction(SIGTERM, &sa, &old->term);
    catch_one(SIGHUP, &sa, &old->hup);
    struct sigaction sc;
    memset(&sc, 0, sizeof sc);
    sc.sa_handler = on_nothing;
    sigemptyset(&sc.sa_mask);
    sigaction(SIGCHLD, &sc, &old->chld);
    catch_one(SIGXFSZ, &sc, &old->xfsz);
    catch_one(SIGPIPE, &sc, &old->pipe);
}

void mw_record_signals_restore(const mw_record_signals *old)
{
    sigaction(SIGINT, &old->intr, NULL);
    sigaction(SIGTERM, &old->term, NULL);
    sigaction(SIGHUP, &old->hup, NULL);
    sigaction(SIGCHLD, &old->chld, NULL);
    sigaction(SIGXFSZ, &old->xfsz, NULL);
    sigaction(SIGPIPE, &old->pipe, NULL);
}
