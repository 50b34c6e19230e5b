/* Where every rank runs: host, CPU core, shared-memory node. */
#ifndef MP_PLACEMENT_H
#define MP_PLACEMENT_H

#include <mpi.h>

struct mp_rank_place {
    int rank;
    int cpu;   /* -1 where the core cannot be read */
    int node;  /* index of the rank's shared-memory node, in order of first appearance */
    char host[MPI_MAX_PROCESSOR_NAME + 1];
};

/* Collective over comm: fills all[0..size) on root (all may be NULL elsewhere). */
int placement_gather(MPI_Comm comm, int root, struct mp_rank_place *all);
/* Collective: the CPU each rank runs on now, gathered to root into cpus[0..size). */
int placement_gather_cpus(MPI_Comm comm, int root, int *cpus);

#endif
