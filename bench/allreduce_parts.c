/* A recursive-doubling allreduce against its parts: the evidence behind the sendrecv-reduce pattern
 * (kernels/patterns/sendrecv_reduce.c). At 2 ranks the algorithm is: copy the input into the result,
 * MPI_Sendrecv the result with the partner, MPI_Reduce_local what came into the result. Per size, in
 * 15 interleaved rounds, µs per call (the slower rank's), median printed:
 *   allreduce   MPI_Allreduce (MPI_SUM over MPI_UNSIGNED_CHAR)
 *   by hand     memcpy + Sendrecv + Reduce_local into the buffer sent next, as the algorithm does
 *   sendrecv, reduce_local, memcpy   each alone, and their sum
 *   into sent   Sendrecv, then Reduce_local into the buffer sent next (what sendrecv-reduce times)
 *   into other  Sendrecv, then Reduce_local into a buffer that is never sent
 *
 *     .venv/bin/mpicc -O2 -o /tmp/allreduce_parts bench/allreduce_parts.c
 *     MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling \
 *         .venv/bin/mpiexec -n 2 /tmp/allreduce_parts
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 15, KINDS = 7, ALLREDUCE = 0, BY_HAND, SENDRECV, REDUCE_LOCAL, MEMCPY, INTO_SENT, INTO_OTHER };
static const char *const NAMES[KINDS] = {"allreduce", "by hand", "sendrecv", "reduce_local", "memcpy", "into sent",
                                         "into other"};

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void one(int kind, unsigned char *in, unsigned char *result, unsigned char *tmp, unsigned char *other, int n,
                int peer)
{
    switch (kind) {
    case ALLREDUCE:
        MPI_Allreduce(in, result, n, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
        break;
    case BY_HAND:
        memcpy(result, in, (size_t)n);
        /* fall through: the rest of the algorithm is the "into sent" step */
    case INTO_SENT:
        MPI_Sendrecv(result, n, MPI_UNSIGNED_CHAR, peer, 0, tmp, n, MPI_UNSIGNED_CHAR, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Reduce_local(tmp, result, n, MPI_UNSIGNED_CHAR, MPI_SUM);
        break;
    case SENDRECV:
        MPI_Sendrecv(result, n, MPI_UNSIGNED_CHAR, peer, 0, tmp, n, MPI_UNSIGNED_CHAR, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        break;
    case REDUCE_LOCAL:
        MPI_Reduce_local(tmp, result, n, MPI_UNSIGNED_CHAR, MPI_SUM);
        break;
    case MEMCPY:
        memcpy(result, in, (size_t)n);
        break;
    case INTO_OTHER:
        MPI_Sendrecv(in, n, MPI_UNSIGNED_CHAR, peer, 0, tmp, n, MPI_UNSIGNED_CHAR, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Reduce_local(tmp, other, n, MPI_UNSIGNED_CHAR, MPI_SUM);
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "allreduce_parts: run with 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    const int sizes[] = {1024, 8192, 32768, 65536, 262144, 1048576};
    const size_t largest = 1 << 20;
    unsigned char *in = malloc(largest), *result = malloc(largest), *tmp = malloc(largest), *other = malloc(largest);
    if (!in || !result || !tmp || !other)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(in, 1, largest);
    memset(result, 0, largest);
    memset(tmp, 0, largest);
    memset(other, 0, largest);
    if (rank == 0)
        printf("µs per call, median of %d rounds (the slower rank's)\n", ROUNDS);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k], iterations = n < 65536 ? 2000 : n < 262144 ? 500 : 100;
        double times[KINDS][ROUNDS];
        for (int round = 0; round < ROUNDS; round++)
            for (int kind = 0; kind < KINDS; kind++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = MPI_Wtime();
                for (int i = 0; i < iterations; i++)
                    one(kind, in, result, tmp, other, n, 1 - rank);
                double mine = (MPI_Wtime() - start) / iterations, slower;
                MPI_Allreduce(&mine, &slower, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                times[kind][round] = slower * 1e6;
            }
        if (rank != 0)
            continue;
        double median[KINDS];
        printf("%8d B:", n);
        for (int kind = 0; kind < KINDS; kind++) {
            qsort(times[kind], ROUNDS, sizeof(double), ascending);
            median[kind] = times[kind][ROUNDS / 2];
            printf("  %s %.2f", NAMES[kind], median[kind]);
        }
        double sum = median[SENDRECV] + median[REDUCE_LOCAL] + median[MEMCPY];
        printf("  | parts summed %.2f, allreduce / parts %.2f, into sent / its parts %.2f\n", sum, median[ALLREDUCE] / sum,
               median[INTO_SENT] / (median[SENDRECV] + median[REDUCE_LOCAL]));
    }
    free(in);
    free(result);
    free(tmp);
    free(other);
    MPI_Finalize();
    return 0;
}
