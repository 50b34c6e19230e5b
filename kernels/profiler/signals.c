/* A rank killed by a signal keeps what it recorded: a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) or a stop (SIGTERM, which launchers and msgperf send to stop a job; SIGINT;
 * SIGHUP) first writes this rank's part (output_partial, async-signal-safe), then the signal
 * takes its course: the handler puts back what was there before and raises the signal again,
 * so the program dies of it (or runs its own handler) as it would have without the profiler.
 * A signal the program ignores stays ignored; SIGKILL cannot be caught, so a rank killed by it
 * leaves nothing. Nothing here allocates: a back-to-back sequence still open is not counted,
 * and the receive a blocking MPI_Recv put off only when its table exists (record.c). Another
 * thread may be inside a call: its bookkeeping may be missing from the record. */
#define _XOPEN_SOURCE 700  /* sigaltstack */
#include "prof.h"

#include <errno.h>
#include <signal.h>

static const int caught[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP};
#define NCAUGHT ((int)(sizeof caught / sizeof caught[0]))
static struct sigaction previous[NCAUGHT];
/* A stack overflow's SIGSEGV has no stack left to run a handler on: it runs on this one. */
static char alternate_stack[1 << 16];

static const char *ended_by(int sig)
{
    switch (sig) {
    case SIGSEGV: return "signal SIGSEGV";
    case SIGBUS: return "signal SIGBUS";
    case SIGFPE: return "signal SIGFPE";
    case SIGILL: return "signal SIGILL";
    case SIGABRT: return "signal SIGABRT";
    case SIGTERM: return "signal SIGTERM";
    case SIGINT: return "signal SIGINT";
    default: return "signal SIGHUP";
    }
}

static void on_signal(int sig)
{
    int saved = errno;
    if (P.active) {
        P.active = 0;
        prof_flush_recv_in_signal();
        output_partial(ended_by(sig));
    }
    for (int i = 0; i < NCAUGHT; i++)
        if (caught[i] == sig)
            sigaction(sig, &previous[i], NULL);
    errno = saved;
    raise(sig);  /* blocked until this handler returns, then delivered as before */
}

void signals_start(void)
{
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {  /* the program's own stays */
        stack_t ours = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
        sigaltstack(&ours, NULL);
    }
    for (int i = 0; i < NCAUGHT; i++) {
        struct sigaction now;
        if (sigaction(caught[i], NULL, &now) != 0
            || (!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN))
            continue;
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_ONSTACK;
        sigaction(caught[i], &sa, &previous[i]);
    }
}
