/* Bruck's alltoall at 2 ranks against its parts: the evidence behind the sendrecv-indexed pattern
 * (kernels/patterns/sendrecv_indexed.c). n is the block per destination, so each rank sends n and
 * keeps n. MPICH's MPIR_Alltoall_intra_brucks and Open MPI's ompi_coll_base_alltoall_intra_bruck
 * both build, in each step, a derived datatype for the blocks they exchange, commit it, exchange
 * through it and free it. Per size, in 15 interleaved rounds, µs per call (the slower rank's),
 * median printed:
 *   alltoall       MPI_Alltoall (the algorithm the MPI is told to use)
 *   by hand        MPICH's steps: rotate (2 copies of n), build and commit an indexed type for the
 *                  block, pack it, MPI_Sendrecv it into the type, free it, rotate back through a
 *                  temporary buffer (4 copies of n); malloc and free of that buffer
 *   rotations      MPICH's three rotations of 2n, as memcpy
 *   block copy     a memcpy of the step's block (what the model charged for the pack before)
 *   sendrecv       MPI_Sendrecv of n contiguous bytes
 *   indexed step   the step whole: build, commit, pack, MPI_Sendrecv into the type, free
 *                  (what sendrecv-indexed times)
 *   type only      build, commit and free the type, nothing sent
 *
 *     .venv/bin/mpicc -O2 -o /tmp/alltoall_bruck_parts bench/alltoall_bruck_parts.c
 *     MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks \
 *         .venv/bin/mpiexec -n 2 /tmp/alltoall_bruck_parts
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 15, KINDS = 7, ALLTOALL = 0, BY_HAND, ROTATIONS, BLOCK_COPY, SENDRECV, INDEXED_STEP, TYPE_ONLY };
static const char *const NAMES[KINDS] = {"alltoall", "by hand", "rotations", "block copy", "sendrecv", "indexed step",
                                         "type only"};

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The step of Bruck's algorithm at 2 ranks: the block at offset n of buf goes to the peer, whose
 * block comes into the same place. */
static void indexed_step(unsigned char *buf, unsigned char *packed, int n, int peer)
{
    MPI_Datatype type;
    int displacement = n, position = 0;
    MPI_Type_create_indexed_block(1, n, &displacement, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Pack(buf, 1, type, packed, n, &position, MPI_COMM_WORLD);
    MPI_Sendrecv(packed, n, MPI_BYTE, peer, 0, buf, 1, type, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&type);
}

static void one(int kind, unsigned char *send, unsigned char *recv, unsigned char *tmp, int n, int rank, int peer)
{
    switch (kind) {
    case ALLTOALL:
        MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD);
        break;
    case BY_HAND: {
        unsigned char *t = malloc(2 * (size_t)n);
        memcpy(recv, send + rank * n, (size_t)((2 - rank) * n));
        memcpy(recv + (2 - rank) * n, send, (size_t)(rank * n));
        indexed_step(recv, t, n, peer);
        memcpy(t, recv + (rank + 1) * n, (size_t)((1 - rank) * n));
        memcpy(t + (1 - rank) * n, recv, (size_t)((rank + 1) * n));
        for (int i = 0; i < 2; i++)
            memcpy(recv + (1 - i) * n, t + i * n, (size_t)n);
        free(t);
        break;
    }
    case ROTATIONS:
        for (int i = 0; i < 3; i++)
            memcpy(recv, send, 2 * (size_t)n);
        break;
    case BLOCK_COPY:
        memcpy(tmp, recv + n, (size_t)n);
        break;
    case SENDRECV:
        MPI_Sendrecv(tmp, n, MPI_BYTE, peer, 0, recv + n, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case INDEXED_STEP:
        indexed_step(recv, tmp, n, peer);
        break;
    case TYPE_ONLY: {
        MPI_Datatype type;
        int displacement = n;
        MPI_Type_create_indexed_block(1, n, &displacement, MPI_BYTE, &type);
        MPI_Type_commit(&type);
        MPI_Type_free(&type);
        break;
    }
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
            fprintf(stderr, "alltoall_bruck_parts: run with 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    const int sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576};
    const size_t largest = 2 << 20;
    unsigned char *send = malloc(largest), *recv = malloc(largest), *tmp = malloc(largest);
    if (!send || !recv || !tmp)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(send, 1, largest);
    memset(recv, 0, largest);
    memset(tmp, 0, largest);
    if (rank == 0)
        printf("µs per call, median of %d rounds (the slower rank's)\n", ROUNDS);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k], iterations = n < 65536 ? 2000 : n < 262144 ? 300 : 60;
        double times[KINDS][ROUNDS];
        for (int round = 0; round < ROUNDS; round++)
            for (int kind = 0; kind < KINDS; kind++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double start = MPI_Wtime();
                for (int i = 0; i < iterations; i++)
                    one(kind, send, recv, tmp, n, rank, 1 - rank);
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
        printf("  | alltoall / (rotations + sendrecv + block copy) %.2f, alltoall / (rotations + indexed step) %.2f\n",
               median[ALLTOALL] / (median[ROTATIONS] + median[SENDRECV] + median[BLOCK_COPY]),
               median[ALLTOALL] / (median[ROTATIONS] + median[INDEXED_STEP]));
    }
    free(send);
    free(recv);
    free(tmp);
    MPI_Finalize();
    return 0;
}
