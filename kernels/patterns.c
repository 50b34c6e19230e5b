#include "patterns.h"

#include <string.h>

#define PATTERNS(X) \
    X(pingpong) \
    X(pingpong_nb) \
    X(pingpong_ssend) \
    X(pingpong_rsend) \
    X(pingpong_bsend) \
    X(pingpong_persistent) \
    X(sendrecv) \
    X(pingping) \
    X(exchange) \
    X(exchange_sync) \
    X(exchange_init) \
    X(loggp) \
    X(osu_latency) \
    X(osu_bw) \
    X(osu_bibw) \
    X(imb_pingpong) \
    X(imb_sendrecv) \
    X(imb_uniband) \
    X(imb_biband) \
    X(ring) \
    X(pairs) \
    X(matrix) \
    X(unexpected) \
    X(eager_probe) \
    X(pack) \
    X(combine) \
    X(overlap) \
    X(memcpy) \
    X(reduce_local) \
    X(sendrecv_reduce) \
    X(sendrecv_indexed) \
    X(self_message) \
    X(send_stream) \
    X(floor) \
    X(barrier) \
    X(bcast) \
    X(reduce) \
    X(allreduce) \
    X(allgather) \
    X(alltoall) \
    X(reduce_scatter_block) \
    X(osu_allreduce) \
    X(osu_bcast) \
    X(osu_alltoall) \
    X(imb_allreduce) \
    X(imb_bcast) \
    X(imb_alltoall) \

#define DECLARE(id) extern const struct mp_pattern pattern_##id;
#define ENTRY(id) &pattern_##id,
PATTERNS(DECLARE)

static const struct mp_pattern *const table[] = {PATTERNS(ENTRY)};

int patterns_count(void) { return (int)(sizeof table / sizeof table[0]); }

const struct mp_pattern *patterns_get(int index) { return table[index]; }

const struct mp_pattern *const *patterns_all(void) { return table; }

const struct mp_pattern *patterns_find(const char *name)
{
    for (int i = 0; i < patterns_count(); i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}
