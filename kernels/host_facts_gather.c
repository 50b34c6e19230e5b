#define _GNU_SOURCE
#include "host_facts_gather.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(MPI_MAX_PROCESSOR_NAME <= MP_HOST_LEN, "a host name must fit host_facts.host");

/* What each rank sends: its host's facts when it is the host's first rank. */
struct offer {
    int leader;
    struct mp_host_facts facts;
};

int host_facts_gather(MPI_Comm comm, int root, struct mp_host_facts *all, int *nhosts)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);

    /* Usable CPUs: the union of the affinity masks of the job's ranks on the host (a launcher
     * that binds each rank to one core leaves that rank one CPU, the job several). */
    cpu_set_t mine, joint;
    CPU_ZERO(&mine);
    CPU_ZERO(&joint);
    int have_mask = sched_getaffinity(0, sizeof mine, &mine) == 0, all_have = 0;
    MPI_Allreduce(&have_mask, &all_have, 1, MPI_INT, MPI_MIN, node);
    MPI_Reduce(&mine, &joint, (int)sizeof mine, MPI_BYTE, MPI_BOR, 0, node);
    MPI_Comm_free(&node);

    struct offer me;
    memset(&me, 0, sizeof me);
    if (node_rank == 0) {
        me.leader = 1;
        host_facts_read(&me.facts, "");
        me.facts.usable_cpus = all_have ? CPU_COUNT(&joint) : -1;
        me.facts.ranks = node_size;
        int len = 0;
        MPI_Get_processor_name(me.facts.host, &len);
        me.facts.host[len] = '\0';
    }
    struct offer *offers = rank == root ? calloc((size_t)size, sizeof *offers) : NULL;
    int failed = rank == root && !offers;
    MPI_Bcast(&failed, 1, MPI_INT, root, comm);
    if (failed)
        return -1;
    int rc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, offers, (int)sizeof me, MPI_BYTE, root, comm);
    if (rank == root) {
        int n = 0;
        for (int i = 0; i < size; i++)
            if (offers[i].leader)
                all[n++] = offers[i].facts;
        *nhosts = n;
        free(offers);
    }
    return rc == MPI_SUCCESS ? 0 : -1;
}
