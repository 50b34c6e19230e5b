/* timed_wait: rank 0 waits inside MPI_Recv while rank 1 sleeps, and times that wait itself
 * with clock_gettime(CLOCK_MONOTONIC), so that a test can hold the profiler's time inside
 * MPI (measured with its own clock, the TSC where it can) against a clock it does not use
 * for that.
 *
 *   timed_wait [--rounds 3] [--sleep-ms 100]
 *
 * Each round rank 1 sleeps, then sends 8 B; rank 0 prints the sum of its MPI_Recv times as
 * "recv_s=<seconds>". Needs 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = 3, sleep_ms = 100, rank, nranks;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sleep-ms"))
            sleep_ms = atoi(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "timed_wait: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char buf[8] = {0};
    double inside = 0;
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            struct timespec nap = {sleep_ms / 1000, (long)(sleep_ms % 1000) * 1000000L};
            nanosleep(&nap, NULL);
            MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        } else {
            double t0 = now();
            MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            inside += now() - t0;
        }
    }
    if (rank == 0)
        printf("timed_wait: rounds=%d sleep_ms=%d recv_s=%.9f\n", rounds, sleep_ms, inside);
    MPI_Finalize();
    return 0;
}
