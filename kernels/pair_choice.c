#include "pair_choice.h"

#include <stdio.h>
#include <string.h>

#include "job.h"

const char *pair_placement(const struct mp_rank_place *places, int a, int b)
{
    return strcmp(places[a].host, places[b].host) == 0 ? "intra" : "inter";
}

int pair_choice(const struct mp_options *o, const struct mp_rank_place *places, int nranks, int pairs[4])
{
    int world_rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    /* status 0 ok, 1 no intra pair, 2 no inter pair */
    int msg[6] = {0, 1, o->pair_a, o->pair_b, -1, -1};
    if (world_rank == 0 && o->placement != MP_PLACE_PAIR) {
        int a, b, n = 0;
        if (o->placement == MP_PLACE_INTRA || o->placement == MP_PLACE_BOTH) {
            if (placement_first_pair(places, nranks, 1, &a, &b))
                msg[0] = 1;
            else {
                msg[2 + 2 * n] = a;
                msg[3 + 2 * n] = b;
                n++;
            }
        }
        if (!msg[0] && (o->placement == MP_PLACE_INTER || o->placement == MP_PLACE_BOTH)) {
            if (placement_first_pair(places, nranks, 0, &a, &b))
                msg[0] = 2;
            else {
                msg[2 + 2 * n] = a;
                msg[3 + 2 * n] = b;
                n++;
            }
        }
        msg[1] = n;
    }
    MPI_Bcast(msg, 6, MPI_INT, 0, MPI_COMM_WORLD);
    if (msg[0]) {
        char err[MP_ERRLEN];
        const char *opt = o->placement == MP_PLACE_BOTH ? "both" : msg[0] == 1 ? "intra" : "inter";
        if (msg[0] == 1)
            snprintf(err, sizeof err,
                     "--placement %s: no two ranks share a node (%d ranks on %d nodes); "
                     "run at least two ranks per node, e.g. --ranks-per-node 2", opt, nranks,
                     world_rank == 0 ? placement_count_hosts(places, nranks) : 0);
        else
            snprintf(err, sizeof err,
                     "--placement %s: all %d ranks are on one node (%s); run on two nodes, e.g. --hosts a,b", opt,
                     nranks, world_rank == 0 ? places[0].host : "?");
        job_fail_together(err, 2); /* every rank got the same answer: rank 0 says why */
    }
    memcpy(pairs, msg + 2, 4 * sizeof *pairs);
    return msg[1];
}
