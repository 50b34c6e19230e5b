#define _GNU_SOURCE
#include "placement.h"

#include <sched.h>
#include <string.h>

static int current_cpu(void)
{
    int cpu = sched_getcpu();
    return cpu < 0 ? -1 : cpu;
}

int placement_gather(MPI_Comm comm, int root, struct mp_rank_place *all)
{
    int rank, len = 0;
    struct mp_rank_place me;
    memset(&me, 0, sizeof me);
    MPI_Comm_rank(comm, &rank);
    MPI_Get_processor_name(me.host, &len);
    me.host[len] = '\0';
    me.rank = rank;
    me.cpu = current_cpu();

    /* A node is a shared-memory domain: its id is the comm rank of its lowest member. */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    me.node = leader;

    int rc = MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, root, comm);
    if (rank == root) {
        int size;
        MPI_Comm_size(comm, &size);
        /* Renumber leaders 0, 1, 2... in order of first appearance. */
        for (int i = 0, next = 0; i < size; i++) {
            int lead = all[i].node;
            if (lead == i)
                all[i].node = next++;
            else
                all[i].node = all[lead].node;
        }
    }
    return rc;
}

int placement_gather_cpus(MPI_Comm comm, int root, int *cpus)
{
    int cpu = current_cpu();
    return MPI_Gather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, root, comm);
}

int placement_first_pair(const struct mp_rank_place *all, int n, int same_host, int *a, int *b)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((strcmp(all[i].host, all[j].host) == 0) == (same_host != 0)) {
                *a = i;
                *b = j;
                return 0;
            }
    return -1;
}

int placement_count_hosts(const struct mp_rank_place *all, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = strcmp(all[i].host, all[j].host) == 0;
        count += !seen;
    }
    return count;
}
