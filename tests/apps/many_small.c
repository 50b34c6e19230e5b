/* many_small: rank 0 sends N small messages to rank 1, for measuring what the profiler costs
 * an application that does little else (bench/profile_overhead.py).
 *
 *   --mode stream    (default) windows of W non-blocking sends (MPI_Isend x W, MPI_Waitall)
 *                    that rank 1 receives (MPI_Irecv x W, MPI_Waitall) and acknowledges with
 *                    one 0-byte message, as osu_bw does: the highest message rate
 *   --mode pingpong  MPI_Send, then MPI_Recv of the echo: one message at a time each way
 *   --mode self      rank 0 alone sends to itself (MPI_Irecv, MPI_Isend, MPI_Waitall): no
 *                    second process to wait for, so its CPU time shows the cost per call even
 *                    on a busy machine
 *
 * Other ranks only wait. Prints the time of the message loop (the slowest rank's) and rank
 * 0's CPU time for it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = 1000000;
    int bytes = 8, window = 64, pingpong = 0, self = 0, rank, nranks;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--messages"))
            n = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--bytes"))
            bytes = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--window"))
            window = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            pingpong = !strcmp(argv[i + 1], "pingpong"), self = !strcmp(argv[i + 1], "self");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if ((nranks < 2 && !self) || n < 1 || bytes < 0 || window < 1 || (!pingpong && n % window)) {
        if (rank == 0)
            fprintf(stderr, "many_small: needs 2 ranks, and --messages a multiple of --window\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc((size_t)window + 1, (size_t)(bytes ? bytes : 1));
    MPI_Request *req = malloc((size_t)window * sizeof *req);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), c0 = cpu_seconds();
    if (self) {
        for (long i = 0; i < n && rank == 0; i++) {
            MPI_Irecv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(buf + bytes, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        }
    } else if (pingpong) {
        for (long i = 0; i < n && rank < 2; i++) {
            if (rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
    } else {
        for (long i = 0; i < n / window && rank < 2; i++) {
            for (int j = 0; j < window; j++) {
                if (rank == 0)
                    MPI_Isend(buf + (size_t)j * bytes, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req[j]);
                else
                    MPI_Irecv(buf + (size_t)j * bytes, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &req[j]);
            }
            MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
            if (rank == 0)
                MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    double seconds = MPI_Wtime() - t0, cpu = cpu_seconds() - c0, worst = 0;
    MPI_Reduce(&seconds, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("many_small: mode=%s messages=%ld bytes=%d window=%d time_s=%.9f cpu_s=%.9f\n",
               self ? "self" : pingpong ? "pingpong" : "stream", n, bytes, pingpong || self ? 1 : window,
               worst, cpu);
    free(buf);
    free(req);
    MPI_Finalize();
    return 0;
}
