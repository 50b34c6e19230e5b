/* every_kind: one or more calls of each kind the profiler tells apart (collectives blocking
 * and non-blocking, one-sided transfers and their synchronisation, probes, communicator and
 * datatype constructors, another MPI call), each bracketed by MPI_Wtime, so that a test can
 * hold the profile's counts, bytes and time inside MPI against what the program did and
 * measured itself.
 *
 *   every_kind [--steps 20] [--sleep-ms 5]
 *
 * Each step the last rank sleeps before the Allreduce, so that the others wait in it (the
 * profile's waiting, measured). At the end each rank prints "rank=<r> mpi_s=<seconds>",
 * the sum of its bracketed times (MPI_Init and MPI_Finalize excluded, as in the profile).
 * Any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096  /* doubles: 32 KiB */

static double in_mpi;  /* seconds inside the bracketed calls */
#define TIMED(call)                         \
    do {                                    \
        double t0_ = MPI_Wtime();           \
        call;                               \
        in_mpi += MPI_Wtime() - t0_;        \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int steps = 20, sleep_ms = 5, rank, nranks;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sleep-ms"))
            sleep_ms = atoi(argv[i + 1]);
    }
    TIMED(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TIMED(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    double *a = calloc(N * (size_t)nranks, sizeof *a), *b = calloc(N * (size_t)nranks, sizeof *b);
    MPI_Comm dup, half;
    MPI_Datatype pair;
    TIMED(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    TIMED(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    TIMED(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
    TIMED(MPI_Type_commit(&pair));
    MPI_Win win;
    TIMED(MPI_Win_create(b, (MPI_Aint)(N * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    struct timespec nap = {sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000L};
    for (int s = 0; s < steps; s++) {
        if (rank == nranks - 1)
            nanosleep(&nap, NULL);
        TIMED(MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));           /* 32 KiB */
        TIMED(MPI_Bcast(a, N / 2, pair, 0, dup));                                      /* 32 KiB */
        TIMED(MPI_Alltoall(a, 16, MPI_DOUBLE, b, 16, MPI_DOUBLE, MPI_COMM_WORLD));     /* 128 B per rank */
        TIMED(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_MAX, half));                      /* 8 B */
        MPI_Request req;
        TIMED(MPI_Iallreduce(a, b, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));     /* 64 B */
        TIMED(MPI_Wait(&req, MPI_STATUS_IGNORE));
        TIMED(MPI_Barrier(MPI_COMM_WORLD));
        /* one-sided: a fence epoch with a Put and a Get, then a passive-target lock epoch */
        TIMED(MPI_Win_fence(0, win));
        TIMED(MPI_Put(a, 64, MPI_DOUBLE, (rank + 1) % nranks, 0, 64, MPI_DOUBLE, win)); /* 512 B */
        TIMED(MPI_Get(a + 64, 32, MPI_DOUBLE, (rank + 1) % nranks, 64, 32, MPI_DOUBLE, win)); /* 256 B */
        TIMED(MPI_Win_fence(0, win));
        TIMED(MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % nranks, 0, win));
        TIMED(MPI_Accumulate(a, 16, MPI_DOUBLE, (rank + 1) % nranks, 128, 16, MPI_DOUBLE, MPI_SUM, win));
        TIMED(MPI_Win_unlock((rank + 1) % nranks, win));
        /* probes: a message to the next rank, found by MPI_Probe and received */
        int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks, flag = 0;
        MPI_Status st;
        TIMED(MPI_Isend(a, 10, MPI_DOUBLE, next, 7, MPI_COMM_WORLD, &req));
        TIMED(MPI_Iprobe(prev, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        TIMED(MPI_Probe(prev, 7, MPI_COMM_WORLD, &st));
        TIMED(MPI_Recv(b, 10, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TIMED(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    TIMED(MPI_Win_free(&win));
    TIMED(MPI_Type_free(&pair));
    TIMED(MPI_Comm_free(&half));
    TIMED(MPI_Comm_free(&dup));
    printf("rank=%d mpi_s=%.9f\n", rank, in_mpi);
    fflush(stdout);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
