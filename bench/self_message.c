/* What a rank's message to itself costs inside a communicator of two ranks, against memcpy of the
 * same bytes: the evidence behind charging MPICH's scattered alltoall a one-way time for the rank's
 * own block (analysis/collectives/algorithms.py). Rank 0 and rank 1 each post MPI_Irecv and
 * MPI_Isend to themselves and wait; best of 5 loops per size, rank 0's times printed.
 *
 *     .venv/bin/mpicc -O2 -o /tmp/self_message bench/self_message.c
 *     .venv/bin/mpiexec -n 2 /tmp/self_message
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int sizes[] = {8, 1024, 65536, 262144, 1048576};
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        char *a = malloc(n), *b = malloc(n);
        if (!a || !b)
            MPI_Abort(MPI_COMM_WORLD, 1);
        memset(a, 1, n); /* touched before timing: no first-touch page faults in either loop */
        memset(b, 2, n);
        long reps = n > 65536 ? 200 : 5000;
        double best_self = 1e9, best_copy = 1e9;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int r = 0; r < 5; r++) {
            double t = MPI_Wtime();
            for (long i = 0; i < reps; i++) {
                MPI_Request q[2];
                MPI_Irecv(b, n, MPI_BYTE, rank, 7, MPI_COMM_WORLD, &q[0]);
                MPI_Isend(a, n, MPI_BYTE, rank, 7, MPI_COMM_WORLD, &q[1]);
                MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            }
            double s = (MPI_Wtime() - t) / reps;
            best_self = s < best_self ? s : best_self;
            t = MPI_Wtime();
            for (long i = 0; i < reps; i++) {
                memcpy(b, a, n);
                __asm__ volatile("" ::: "memory"); /* the copy is not optimised away */
            }
            s = (MPI_Wtime() - t) / reps;
            best_copy = s < best_copy ? s : best_copy;
        }
        if (rank == 0)
            printf("%8d B: message to itself %8.2f us, memcpy %8.2f us\n", n, best_self * 1e6, best_copy * 1e6);
        free(a);
        free(b);
    }
    MPI_Finalize();
    return 0;
}
