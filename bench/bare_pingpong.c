/* The bare baseline for bench/harness_overhead.py: a plain MPI_Send/MPI_Recv ping-pong between
 * ranks 0 and 1 on one page-aligned buffer in place, each size timed as one loop lasting about 0.2 s.
 * Prints "bytes one-way-seconds" per size (the mean: loop time / (2 * iterations)). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double loop(char *buf, int bytes, long reps, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* the slower rank */
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int a = 1; a < argc; a++) {
        int bytes = atoi(argv[a]);
        char *buf = NULL; /* page-aligned like msgperf's buffers: alignment changes copy speed */
        if (posix_memalign((void **)&buf, 4096, bytes ? bytes : 1))
            MPI_Abort(MPI_COMM_WORLD, 1);
        long reps = 1;
        double t = loop(buf, bytes, 2, rank); /* warm-up */
        while ((t = loop(buf, bytes, reps, rank)) < 0.02)
            reps *= 2;
        reps = (long)(reps * 0.2 / t) + 1;
        t = loop(buf, bytes, reps, rank);
        if (rank == 0)
            printf("%d %.9e\n", bytes, t / (2.0 * reps));
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
