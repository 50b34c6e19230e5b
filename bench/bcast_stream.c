/* What a binomial MPI_Bcast from rank 0 costs when its calls run back to back at 2 ranks (the
 * kernels' default for collectives), against a blocking one-way stream (MPI_Send back to back on
 * rank 0, MPI_Recv back to back on rank 1: the send-stream pattern) and the ping-pong's one-way
 * time: the evidence behind charging the binomial bcast the stream (analysis/collectives/model.py).
 * Per call or message, the slower rank's time, median of 15 interleaved rounds.
 *
 *     .venv/bin/mpicc -O2 -o /tmp/bcast_stream bench/bcast_stream.c
 *     MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial \
 *         .venv/bin/mpiexec -n 2 /tmp/bcast_stream
 *     mpicc.openmpi -O2 -o /tmp/bcast_stream_ompi bench/bcast_stream.c
 *     OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_bcast_algorithm=6 \
 *         mpiexec.openmpi --allow-run-as-root -n 2 /tmp/bcast_stream_ompi
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {8, 64, 512, 4096, 8192, 16384, 65536, 1048576};
    for (int k = 0; k < 8; k++) {
        int n = sizes[k];
        char *a = malloc(n), *b = malloc(n);
        memset(a, 1, n); memset(b, 2, n);
        long reps = n > 65536 ? 100 : 2000;
        double tb[15], ts[15], tp[15];
        for (int r = 0; r < 15; r++) {
            double t0, t;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (long i = 0; i < reps; i++) MPI_Bcast(rank == 0 ? a : b, n, MPI_BYTE, 0, MPI_COMM_WORLD);
            t = MPI_Wtime() - t0; MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); tb[r] = t / reps;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (long i = 0; i < reps; i++) {
                if (rank == 0) MPI_Send(a, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
                else MPI_Recv(b, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            t = MPI_Wtime() - t0; MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); ts[r] = t / reps;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (long i = 0; i < reps; i++) {
                if (rank == 0) { MPI_Send(a, n, MPI_BYTE, 1, 4, MPI_COMM_WORLD); MPI_Recv(b, n, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); }
                else { MPI_Recv(b, n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); MPI_Send(a, n, MPI_BYTE, 0, 4, MPI_COMM_WORLD); }
            }
            t = MPI_Wtime() - t0; MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); tp[r] = t / reps / 2;
        }
        qsort(tb, 15, sizeof(double), cmp); qsort(ts, 15, sizeof(double), cmp); qsort(tp, 15, sizeof(double), cmp);
        if (rank == 0)
            printf("%8d B: bcast back to back %8.3f us, send stream %8.3f us, one-way %8.3f us; bcast/stream %.2f bcast/one-way %.2f\n",
                   n, tb[7] * 1e6, ts[7] * 1e6, tp[7] * 1e6, tb[7] / ts[7], tb[7] / tp[7]);
        free(a); free(b);
    }
    MPI_Finalize();
    return 0;
}
