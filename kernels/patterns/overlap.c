/* How much of a transfer hides behind computation: three variants of a bidirectional
 * exchange at each size: the exchange alone (comm), a computation as long as that exchange
 * (compute), and MPI_Irecv/MPI_Isend, the computation, MPI_Waitall (both). The computation's
 * length is calibrated from the comm variant just measured (a clock-bounded arithmetic loop
 * that makes no MPI call, so nothing progresses the transfer but the MPI itself). */
#include <stdio.h>

#include "../clock.h"
#include "../payload.h"
#include "../record.h"

#define TAG 15
enum { COMM, COMPUTE, BOTH };

static int overlap_variants(int world_size) { return (void)world_size, 3; }

static void overlap_name(int variant, int world_size, char *buf, size_t len)
{
    static const char *const names[] = {"comm", "compute", "both"};
    (void)world_size;
    snprintf(buf, len, "%s", names[variant]);
}

static void compute(double seconds)
{
    volatile double x = 1.0;
    int64_t end = clock_now_ns() + (int64_t)(seconds * 1e9);
    do
        for (int i = 0; i < 64; i++)
            x = x * 1.0000001 + 1e-9;
    while (clock_now_ns() < end);
}

static void overlap_iterate(const struct mp_ctx *c, long iterations)
{
    MPI_Request r[2];
    int other = 1 - c->me;
    for (long i = 0; i < iterations; i++) {
        if (c->variant == COMPUTE) {
            compute(c->previous[COMM]);
            continue;
        }
        MPI_Irecv(c->recv, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[0]);
        MPI_Isend(c->send, c->bytes, MPI_BYTE, other, TAG, c->comm, &r[1]);
        if (c->variant == BOTH)
            compute(c->previous[COMM]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
}

static long long overlap_verify(const struct mp_ctx *c) { return c->variant == COMPUTE ? 0 : payload_verify_partner(c); }

/* hidden = (comm + compute - both) / comm, clamped to [0, 1]. */
static void overlap_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    record_field_double(out, "compute_s", c->variant == COMM ? 0.0 : c->previous[COMM]);
    if (c->variant != BOTH || c->previous[COMM] <= 0)
        return;
    double hidden = (c->previous[COMM] + c->previous[COMPUTE] - median) / c->previous[COMM];
    record_field_double(out, "overlap_fraction", hidden < 0 ? 0 : hidden > 1 ? 1 : hidden);
}

const struct mp_pattern pattern_overlap = {
    .name = "overlap",
    .family = MP_FAMILY_OVERLAP, .modelled = 0, /* its compute variant is not a transfer */
    .timing = "one iteration = on both ranks: MPI_Irecv + MPI_Isend + MPI_Waitall (comm), or a computation as "
              "long as comm's median (compute), or MPI_Irecv + MPI_Isend, the computation, MPI_Waitall (both); "
              "reported = time per iteration; overlap_fraction = (comm + compute - both) / comm",
    .metric = "per_iteration", .divisor = 1, .flows = 2, .variants = overlap_variants,
    .variant_name = overlap_name, .iterate = overlap_iterate, .prepare = payload_prepare,
    .verify = overlap_verify, .fields = overlap_fields,
};
