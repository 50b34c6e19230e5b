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
/* The first pair of ranks (lowest a, then lowest b > a) on one host (same_host = 1) or on two
 * different hosts (same_host = 0), by MPI_Get_processor_name. 0 when found, -1 when none. */
int placement_first_pair(const struct mp_rank_place *all, int n, int same_host, int *a, int *b);
/* Distinct hosts of all[0..n), in order of first appearance. */
int placement_count_hosts(const struct mp_rank_place *all, int n);
/* Collective: the CPU each rank runs on now, gathered to root into cpus[0..size). */
int placement_gather_cpus(MPI_Comm comm, int root, int *cpus);

#endif
