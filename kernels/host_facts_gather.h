/* Every host's facts (host_facts.h) to one rank: each shared-memory node's first rank reads its
 * host's, with the CPUs all of the job's ranks there may use. */
#ifndef MP_HOST_FACTS_GATHER_H
#define MP_HOST_FACTS_GATHER_H

#include <mpi.h>

#include "host_facts.h"

/* Collective over comm. On root, all[0..*nhosts) holds one entry per host in order of its first
 * rank (all has room for one per rank); elsewhere all and nhosts are unused. 0, or -1 when
 * out of memory (on every rank). */
int host_facts_gather(MPI_Comm comm, int root, struct mp_host_facts *all, int *nhosts);

#endif
