/* What a pending request is: a hash table keyed by the request handle.
 *
 * Holds receives (MPI_Irecv, until they complete) and persistent requests (from
 * MPI_*_init until MPI_Request_free). Non-blocking sends are counted when posted and are not
 * kept: a wait that finds no entry is waiting for a send. Open addressing with linear probing
 * and backward-shift deletion; the table doubles when half full, so it allocates only a
 * logarithmic number of times. A request handle is an int (MPICH) or a pointer (Open MPI):
 * its bytes are the key. */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

static struct req *slots;
static uint64_t mask;      /* capacity - 1 (capacity a power of two) */
uint64_t req_used;         /* entries in the table */

static uint64_t key_of(MPI_Request request)
{
    uint64_t k = 0;
    memcpy(&k, &request, sizeof request < sizeof k ? sizeof request : sizeof k);
    return k;
}

static uint64_t home(uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull) >> 32 & mask;  /* capacity < 2^32 */
}

static struct req *find_key(uint64_t key)
{
    if (!slots)
        return NULL;
    for (uint64_t i = home(key);; i = (i + 1) & mask) {
        if (!slots[i].used)
            return NULL;
        if (slots[i].key == key)
            return &slots[i];
    }
}

struct req *req_find(MPI_Request request)
{
    return find_key(key_of(request));
}

static int grow(void)
{
    uint64_t cap = slots ? 2 * (mask + 1) : 1024;
    struct req *old = slots;
    uint64_t old_cap = slots ? mask + 1 : 0;
    struct req *fresh = calloc(cap, sizeof *fresh);
    P.slow = 1;
    if (!fresh)
        return 1;
    slots = fresh;
    mask = cap - 1;
    for (uint64_t i = 0; i < old_cap; i++)
        if (old[i].used) {
            uint64_t j = home(old[i].key);
            while (slots[j].used)
                j = (j + 1) & mask;
            slots[j] = old[i];
        }
    free(old);
    return 0;
}

void req_put(MPI_Request request, const struct req *r)
{
    uint64_t key = key_of(request);
    struct req *s = find_key(key);
    if (s) {  /* the handle was reused after a completion we did not see: forget the old one */
        if (s->x)
            comm_release(s->x);
    } else {
        if ((req_used + 1) * 2 > (slots ? mask + 1 : 0) && grow()) {
            if (r->x)
                comm_release(r->x);
            P.requests_untracked++;
            return;
        }
        uint64_t i = home(key);
        while (slots[i].used)
            i = (i + 1) & mask;
        s = &slots[i];
        req_used++;
    }
    *s = *r;
    s->key = key;
    s->used = 1;
}

void req_drop(MPI_Request request)
{
    struct req *s = find_key(key_of(request));
    if (!s)
        return;
    if (s->x)
        comm_release(s->x);
    /* backward-shift deletion: move later members of the cluster into the hole */
    uint64_t hole = (uint64_t)(s - slots);
    for (uint64_t j = (hole + 1) & mask; slots[j].used; j = (j + 1) & mask) {
        uint64_t h = home(slots[j].key);
        /* slots[j] may move to the hole when its home is not within (hole, j] cyclically */
        if (((j - h) & mask) >= ((j - hole) & mask)) {
            slots[hole] = slots[j];
            hole = j;
        }
    }
    slots[hole].used = 0;
    req_used--;
}
