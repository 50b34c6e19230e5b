/* The collective loops of OSU (osu_allreduce, osu_bcast, osu_alltoall) and IMB-MPI1 (Allreduce,
 * Bcast, Alltoall), around msgperf's own collective patterns (collectives.c: the same calls, buffers
 * and payload checks). What differs is the method and what the tools print:
 * - OSU times each call on each rank, with an MPI_Barrier after every call outside the timing
 *   (here: one call per sample, each after a barrier), the root of bcast always rank 0; it prints
 *   each rank's mean time per call, averaged over the ranks (with -f also their min and max).
 * - IMB times each rank's loop of calls back to back and divides by their count; the root of Bcast
 *   moves by one rank per call; it prints t_min, t_max and t_avg over the ranks of those means.
 * Each rank's own mean counts every call after the cold first one (the driver's warm-up included:
 * the tools skip their own warm-up calls); the verify step, on every rank, reduces the means to
 * the record's tool_*_s fields. The samples stay the driver's: the slowest rank's time. */
#include <stdio.h>
#include <stdlib.h>

#include "../clock.h"
#include "../pattern.h"
#include "../record.h"

extern const struct mp_pattern pattern_allreduce, pattern_bcast, pattern_alltoall;

enum tool { OSU, IMB };

struct compat_state {
    const struct mp_pattern *inner; /* msgperf's pattern of the same call */
    enum tool tool;
    void *inner_state;
    int64_t own_ns;                 /* this rank's time in the calls it counts */
    long calls, iterate_calls;
    double min_s, max_s, mean_s;    /* over the ranks, on comm rank 0 after verify */
};

/* The inner pattern's context: its own state, and the tool's root. */
static struct mp_ctx inner_view(const struct mp_ctx *c)
{
    const struct compat_state *s = c->state;
    struct mp_ctx v = *c;
    v.state = s->inner_state;
    v.rotate_root = s->tool == IMB; /* IMB_bcast.c: root = i mod P; OSU: rank 0 */
    v.iteration_barrier = s->tool == OSU;
    return v;
}

static int setup_as(struct mp_ctx *c, const struct mp_pattern *inner, enum tool tool, char *err, size_t errlen)
{
    struct compat_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory for the compatibility mode's state");
        return -1;
    }
    s->inner = inner;
    s->tool = tool;
    c->state = s;
    struct mp_ctx v = inner_view(c);
    if (inner->setup && inner->setup(&v, err, errlen))
        return -1;
    s->inner_state = v.state;
    return 0;
}

static void compat_teardown(struct mp_ctx *c)
{
    struct compat_state *s = c->state;
    struct mp_ctx v = inner_view(c);
    if (s->inner->teardown)
        s->inner->teardown(&v);
    free(s);
    c->state = NULL;
}

static void compat_prepare(const struct mp_ctx *c)
{
    const struct compat_state *s = c->state;
    struct mp_ctx v = inner_view(c);
    s->inner->prepare(&v);
}

/* OSU: each call timed alone (the driver puts the barrier between them). */
static void osu_iterate(const struct mp_ctx *c, long iterations)
{
    struct compat_state *s = c->state;
    struct mp_ctx v = inner_view(c);
    for (long i = 0; i < iterations; i++) {
        int64_t t0 = clock_now_ns();
        s->inner->iterate(&v, 1);
        int64_t t = clock_now_ns() - t0;
        if (s->iterate_calls++ > 0) { /* not the cold first call */
            s->own_ns += t;
            s->calls++;
        }
    }
}

/* IMB: the loop of calls timed as a whole. */
static void imb_iterate(const struct mp_ctx *c, long iterations)
{
    struct compat_state *s = c->state;
    struct mp_ctx v = inner_view(c);
    int64_t t0 = clock_now_ns();
    s->inner->iterate(&v, iterations);
    int64_t t = clock_now_ns() - t0;
    if (s->iterate_calls++ > 0) {
        s->own_ns += t;
        s->calls += iterations;
    }
}

/* Every rank: the inner payload check, then each rank's mean over the ranks (min, max, mean). */
static long long compat_verify(const struct mp_ctx *c)
{
    struct compat_state *s = c->state;
    struct mp_ctx v = inner_view(c);
    long long bad = s->inner->verify(&v);
    double mine = s->calls > 0 ? s->own_ns * 1e-9 / (double)s->calls : 0, sum = 0;
    MPI_Reduce(&mine, &s->min_s, 1, MPI_DOUBLE, MPI_MIN, 0, c->comm);
    MPI_Reduce(&mine, &s->max_s, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm);
    s->mean_s = sum / c->nranks;
    return bad;
}

static void compat_fields(const struct mp_ctx *c, double median, struct mp_fields *out)
{
    (void)median;
    const struct compat_state *s = c->state;
    char name[32];
    snprintf(name, sizeof name, "%s%s", s->tool == OSU ? "osu_" : "IMB-MPI1 ",
             s->tool == OSU ? s->inner->name : (s->inner == &pattern_allreduce ? "Allreduce"
                                                : s->inner == &pattern_bcast ? "Bcast" : "Alltoall"));
    record_field_string(out, "compat", name);
    record_field_string(out, "collective", s->inner->name);
    if (s->inner == &pattern_bcast)
        record_field_string(out, "root", s->tool == IMB ? "rotate" : "0");
    record_field_bool(out, "iteration_barrier", s->tool == OSU);
    record_field_bool(out, "off_cache", c->off_cache);
    record_field_double(out, "tool_mean_s", s->mean_s);
    record_field_double(out, "tool_min_s", s->min_s);
    record_field_double(out, "tool_max_s", s->max_s);
    record_field_int(out, "tool_calls", s->calls);
}

#define SETUP(NAME, INNER, TOOL) \
    static int NAME(struct mp_ctx *c, char *err, size_t errlen) { return setup_as(c, &INNER, TOOL, err, errlen); }
SETUP(osu_allreduce_setup, pattern_allreduce, OSU)
SETUP(osu_bcast_setup, pattern_bcast, OSU)
SETUP(osu_alltoall_setup, pattern_alltoall, OSU)
SETUP(imb_allreduce_setup, pattern_allreduce, IMB)
SETUP(imb_bcast_setup, pattern_bcast, IMB)
SETUP(imb_alltoall_setup, pattern_alltoall, IMB)

#define OSU_WORDS "; one call per sample, each after an MPI_Barrier outside the timing, root 0 (osu_* loop); " \
                  "reported = the slowest rank's time per call; tool_mean_s: OSU's Avg Latency (each rank's mean " \
                  "per call, averaged over the ranks), tool_min_s/tool_max_s: -f's Min/Max Latency"
#define IMB_WORDS "; k calls back to back, the root rotating (IMB-MPI1 loop); reported = time per call, sample / k, " \
                  "the slowest rank's; tool_min_s/tool_max_s/tool_mean_s: IMB's t_min/t_max/t_avg (each rank's " \
                  "mean per call, over the ranks)"
#define COMPAT(NAME, WHAT, SETUP_FN, ITERATE, WORDS, BLOCKS, BARRIER)                                                   \
    .name = NAME, .family = MP_FAMILY_COMPAT, .modelled = 0, .timing = "one iteration = " WHAT WORDS,         \
    .metric = "per_iteration", .divisor = 1, .participants = MP_ALL, .per_rank_blocks = BLOCKS,               \
    .iteration_barrier = BARRIER, .setup = SETUP_FN, .teardown = compat_teardown,      \
    .iterate = ITERATE, .prepare = compat_prepare, .verify = compat_verify, .fields = compat_fields

const struct mp_pattern pattern_osu_allreduce = {
    COMPAT("osu-allreduce", "MPI_Allreduce (MPI_SUM, MPI_UNSIGNED_CHAR)", osu_allreduce_setup, osu_iterate, OSU_WORDS, 0, 1),
};
const struct mp_pattern pattern_osu_bcast = {
    COMPAT("osu-bcast", "MPI_Bcast", osu_bcast_setup, osu_iterate, OSU_WORDS, 0, 1),
};
const struct mp_pattern pattern_osu_alltoall = {
    COMPAT("osu-alltoall", "MPI_Alltoall", osu_alltoall_setup, osu_iterate, OSU_WORDS, 1, 1),
};
const struct mp_pattern pattern_imb_allreduce = {
    COMPAT("imb-allreduce", "MPI_Allreduce (MPI_SUM, MPI_UNSIGNED_CHAR)", imb_allreduce_setup, imb_iterate, IMB_WORDS, 0, 0),
};
const struct mp_pattern pattern_imb_bcast = {
    COMPAT("imb-bcast", "MPI_Bcast", imb_bcast_setup, imb_iterate, IMB_WORDS, 0, 0),
};
const struct mp_pattern pattern_imb_alltoall = {
    COMPAT("imb-alltoall", "MPI_Alltoall", imb_alltoall_setup, imb_iterate, IMB_WORDS, 1, 0),
};
