/* big_reduce: MPI_Reduce of a vector of doubles to rank 0 every step, in place at the root, as
 * the Parallel Research Kernels' Reduce does; the vector is allocated and touched once, so any
 * page fault inside the calls is the MPI's own (its temporary buffers).
 *
 *   big_reduce [--steps 200] [--doubles 65536]
 *
 * Rank 0 checks the sum and prints "sum_ok=1". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int steps = 200, rank, nranks;
    long n = 65536;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--doubles"))
            n = atol(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int ok = 1;
    for (int s = 0; s < steps; s++) {
        for (long i = 0; i < n; i++)
            v[i] = (double)(rank + 1);
        if (rank == 0)
            MPI_Reduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        else
            MPI_Reduce(v, NULL, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            ok &= v[0] == nranks * (nranks + 1) / 2.0 && v[n - 1] == v[0];
    }
    if (rank == 0)
        printf("sum_ok=%d\n", ok);
    free(v);
    MPI_Finalize();
    return 0;
}
