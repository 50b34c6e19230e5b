#include "payload.h"

#include "buffers.h"

#define SEED_STALE 0u

unsigned payload_seed(int rank) { return 1u + (unsigned)rank; }

void payload_prepare(const struct mp_ctx *c)
{
    buffers_fill(c->send, c->bytes, payload_seed(c->me));
    if (!c->inplace)
        buffers_fill(c->recv, c->bytes, SEED_STALE);
}

long long payload_verify_from(const struct mp_ctx *c, int from)
{
    return buffers_check(c->recv, c->bytes, payload_seed(from)) + 1;
}

long long payload_verify_partner(const struct mp_ctx *c) { return payload_verify_from(c, 1 - c->me); }

long long payload_verify_untouched(const struct mp_ctx *c) { return buffers_check(c->recv, c->bytes, SEED_STALE) + 1; }
