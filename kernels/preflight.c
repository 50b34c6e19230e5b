#define _GNU_SOURCE /* _SC_AVPHYS_PAGES */
#include "preflight.h"

#include <stdio.h>
#include <unistd.h>

#include "patterns.h"

/* Every --active count must be a step of the sweep of a pattern that has one. */
static int check_active(const struct mp_options *o, int nranks, char *err, size_t errlen)
{
    if (o->nactive == 0)
        return 0;
    for (int pi = 0; pi < o->npatterns; pi++) {
        const struct mp_pattern *p = patterns_find(o->patterns[pi]);
        if (!p->active_pairs)
            continue;
        int variants = p->variants(nranks), steps[64], n = 0;
        for (int v = 0; v < variants && n < 64; v++)
            steps[n++] = p->active_pairs(nranks, v);
        for (int i = 0; i < o->nactive; i++) {
            int found = 0;
            for (int v = 0; v < n; v++)
                found |= steps[v] == o->active[i];
            if (!found) {
                int len = snprintf(err, errlen, "--active %d: with %d ranks %s sweeps", o->active[i], nranks, p->name);
                for (int v = 0; v < n && len < (int)errlen; v++)
                    len += snprintf(err + len, errlen - len, "%s %d", v ? "," : "", steps[v]);
                if (len < (int)errlen)
                    snprintf(err + len, errlen - len, " concurrent pairs; choose among them");
                return -1;
            }
        }
        return 0;
    }
    snprintf(err, errlen, "--active applies to the pairs pattern; add --pattern pairs");
    return -1;
}

int preflight_ranks(const struct mp_options *o, int nranks, char *err, size_t errlen)
{
    if (nranks < 2) {
        snprintf(err, errlen, "only 1 rank; a pairwise pattern needs at least 2 (run with mpiexec -n 2)");
        return -1;
    }
    if (o->placement == MP_PLACE_PAIR && (o->pair_a >= nranks || o->pair_b >= nranks)) {
        snprintf(err, errlen, "--pair %d:%d names a rank that does not exist (ranks are 0 to %d); use ranks below %d",
                 o->pair_a, o->pair_b, nranks - 1, nranks);
        return -1;
    }
    if (check_active(o, nranks, err, errlen))
        return -1;
    for (int pi = 0; pi < o->npatterns; pi++) {
        const struct mp_pattern *p = patterns_find(o->patterns[pi]);
        if (p->even_ranks && nranks % 2) {
            snprintf(err, errlen, "pattern %s pairs the bottom half of the ranks with the top half and needs an "
                     "even number of ranks, not %d (it would deadlock); run with an even -n", p->name, nranks);
            return -1;
        }
    }
    return 0;
}

long long preflight_buffer_bytes(const struct mp_options *o, int nranks)
{
    long long largest = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > largest)
            largest = o->sizes[i];
    long long blocks = 1;
    for (int pi = 0; pi < o->npatterns; pi++) {
        const struct mp_pattern *p = patterns_find(o->patterns[pi]);
        /* a pattern of every rank needs a block per rank; one of the pair, two */
        long long needed = !p->per_rank_blocks ? 1 : p->participants == MP_ALL ? nranks : 2;
        if (needed > blocks)
            blocks = needed;
    }
    return largest * blocks;
}

int preflight_memory(const struct mp_options *o, int nranks, int ranks_here, char *err, size_t errlen)
{
    long long largest = preflight_buffer_bytes(o, nranks);
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 0;
    double need = 2.0 * (double)largest * ranks_here, have = (double)pages * page;
    if (need > 0.9 * have) {
        snprintf(err, errlen,
                 "message buffers of %lld B need %.1f GiB of buffers on this node but %.1f GiB are free; use smaller sizes",
                 largest, need / (1 << 30), have / (1 << 30));
        return -1;
    }
    return 0;
}
