/* The speed of MPI_Reduce_local (MPI_SUM over MPI_UNSIGNED_CHAR) alone in one process, size by size,
 * best of 5 loops of 64 MiB each: what the reduce-local pattern's γ is on a quiet machine, and how much
 * the machine itself moves it from one second to the next (bench/RESULTS.md §19).
 *
 *     .venv/bin/mpicc -O2 -o /tmp/reduce_local_speed bench/reduce_local_speed.c
 *     for i in 1 2 3; do taskset -c 0 /tmp/reduce_local_speed; done
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const int sizes[] = {4096, 32768, 65536, 131072, 1048576};
    for (int k = 0; k < 5; k++) {
        int n = sizes[k];
        unsigned char *a, *b;
        if (posix_memalign((void **)&a, 4096, n) || posix_memalign((void **)&b, 4096, n))
            MPI_Abort(MPI_COMM_WORLD, 1);
        memset(a, 1, n);
        memset(b, 2, n);
        long reps = (1L << 26) / n;
        double best = 1e9;
        for (int r = 0; r < 5; r++) {
            double t = MPI_Wtime();
            for (long i = 0; i < reps; i++)
                MPI_Reduce_local(a, b, n, MPI_UNSIGNED_CHAR, MPI_SUM);
            double s = (MPI_Wtime() - t) / reps;
            best = s < best ? s : best;
        }
        printf("%8d B: %8.2f us  %.3f ns/B\n", n, best * 1e6, best * 1e9 / n);
        free(a);
        free(b);
    }
    MPI_Finalize();
    return 0;
}
