#include "job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IDLE_POLL_NS 200000 /* 0.2 ms: idle ranks check for progress this often */

void job_fail(const char *message, int code)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        /* World rank 0 may be failing too, with the same line: give it the time to say so and end
         * the job (this rank is then gone before it prints); a rank failing alone speaks after. */
        const struct timespec wait = {1, 0};
        nanosleep(&wait, NULL);
        fprintf(stderr, "msgperf-kernels: rank %d: %s\n", rank, message);
    } else {
        fprintf(stderr, "msgperf-kernels: %s\n", message);
    }
    fflush(stderr);
    /* Give the launcher time to forward the line before MPI_Abort tears the job down
     * (Hydra can lose it otherwise). An error path: the pause costs nothing. */
    const struct timespec grace = {0, 300000000};
    nanosleep(&grace, NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

void job_fail_together(const char *message, int code)
{
    /* Every rank knows: no abort needed. Rank 0 says why, then all finalize, which is where MPI
     * removes the node's shared-memory segments (an abort leaves them in /dev/shm). */
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "msgperf-kernels: %s\n", message);
        fflush(stderr);
    }
    MPI_Finalize();
    exit(code);
}

void job_fail_write(const char *path)
{
    char msg[1024];
    snprintf(msg, sizeof msg,
             "cannot write run file '%s' (%s); every measurement finished before this is kept in it; "
             "free space and continue with msgperf run --resume %s",
             path, strerror(errno), path);
    job_fail(msg, 3);
}

void job_wait_sleeping(MPI_Request *request)
{
    const struct timespec pause = {0, IDLE_POLL_NS};
    int done = 0;
    for (;;) {
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&pause, NULL);
    }
}
