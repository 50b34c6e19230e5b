#include "measure.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "pair_choice.h"
#include "record.h"
#include "schedule.h"

#define TAG_RESULT 7001

/* What the measurement's leader (the participants' rank 0) sends world rank 0 ahead of the
 * samples, the ranks, the per-pair times and the pattern's fields. */
struct result_head {
    long k, warmup, nsamples;
    long pair_nsamples;   /* samples per pair in pair_samples_s (at most MP_PAIR_SAMPLES_MAX) */
    double first, elapsed;
    long long mismatch;
    int inplace, divisor;
    int nranks, npairs;   /* ranks sent; npairs > 0: they are that many pairs, flattened */
    int first_of_job;
    int fields_len;       /* with its terminating zero; 0 when the pattern has no fields */
    char stop_reason[16];
};

/* One measurement's result: made on the leader, carried to world rank 0. */
struct result {
    struct result_head head;
    double *samples;      /* max over participants, seconds */
    int *ranks;           /* world ranks */
    double *pair_median_s;
    double *pair_samples_s; /* npairs x pair_nsamples: pair i's at [i * pair_nsamples, (i + 1) * pair_nsamples) */
    char *fields;
};

static void result_free(struct result *r)
{
    free(r->samples);
    free(r->ranks);
    free(r->pair_median_s);
    free(r->pair_samples_s);
    free(r->fields);
}

static void *checked(void *p)
{
    if (!p)
        job_fail("out of memory", 3);
    return p;
}

/* Test only (--test-stall RANK:BYTES): this rank never arrives at that size. */
static int stall_matches(const struct mp_options *o, int world_rank, long long bytes)
{
    long rank;
    long long at;
    return o->test_stall && sscanf(o->test_stall, "%ld:%lld", &rank, &at) == 2 && rank == world_rank && at == bytes;
}

/* The leader's part of the result beyond the driver's: the ranks (or the pairs measured at
 * once, with each pair's own time) and the pattern's own fields. */
static void describe(const struct mp_pattern *p, const struct mp_ctx *ctx, const struct mp_result *r, int divisor,
                     struct result *out)
{
    out->ranks = checked(malloc(2 * ctx->nranks * sizeof *out->ranks));
    memcpy(out->ranks, ctx->world, ctx->nranks * sizeof *out->ranks);
    out->head.nranks = ctx->nranks;
    int *pairs = p->pairs ? checked(malloc(2 * ctx->nranks * sizeof *pairs)) : NULL;
    int npairs = pairs ? p->pairs(ctx, pairs, ctx->nranks) : 0;
    if (npairs > 0) {
        out->pair_median_s = checked(malloc(npairs * sizeof *out->pair_median_s));
        for (int i = 0; i < npairs; i++) {
            double a = r->rank_medians[pairs[2 * i]], b = r->rank_medians[pairs[2 * i + 1]];
            out->pair_median_s[i] = (a > b ? a : b) / divisor;
        }
        /* Each pair's sample is what its slower rank saw in that sample (the honest reduction,
         * within the pair). */
        long n = r->rank_nsamples, paired = npairs * n;
        out->head.pair_nsamples = n;
        out->pair_samples_s = checked(malloc((paired > 0 ? paired : 1) * sizeof *out->pair_samples_s));
        for (int i = 0; i < npairs; i++)
            for (long s = 0; s < n; s++) {
                double a = r->rank_samples[pairs[2 * i] * n + s], b = r->rank_samples[pairs[2 * i + 1] * n + s];
                out->pair_samples_s[i * n + s] = a > b ? a : b;
            }
        for (int i = 0; i < 2 * npairs; i++)
            out->ranks[i] = ctx->world[pairs[i]];
        out->head.nranks = 2 * npairs;
        out->head.npairs = npairs;
    }
    free(pairs);
    if (p->fields) {
        struct mp_fields fields;
        if (record_fields_begin(&fields))
            job_fail("out of memory", 3);
        p->fields(ctx, r->median, &fields);
        out->fields = checked(record_fields_end(&fields));
        out->head.fields_len = (int)strlen(out->fields) + 1;
    }
}

/* On a participant: set up, measure, verify, tear down. */
static void run_pattern(struct mp_run *run, const struct mp_pattern *p, MPI_Comm comm, long long bytes, int variant,
                        double *previous, struct result *out)
{
    const struct mp_options *o = run->o;
    int me, size;
    char err[MP_ERRLEN];
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int *world = checked(malloc(size * sizeof *world));
    MPI_Allgather(&run->world_rank, 1, MPI_INT, world, 1, MPI_INT, comm);
    int inplace = o->buffer == MP_BUFFER_INPLACE && p->inplace_ok;
    struct mp_ctx ctx = {comm, me, size, run->send, inplace ? run->send : run->recv, (int)bytes, inplace,
                         variant, world, run->nranks, previous, NULL, o->rotate_root, o->off_cache,
                         o->iteration_barrier};
    if (stall_matches(o, run->world_rank, bytes))
        for (;;)
            pause(); /* test-only: a rank that never arrives */
    if (p->setup && p->setup(&ctx, err, sizeof err))
        job_fail(err, 2);
    /* --total-time: this measurement's budget, decided by the leader's clock so that every
     * participant takes the same sampling decisions. */
    struct mp_options budgeted = *o;
    if (o->total_time > 0) {
        budgeted.time_budget = schedule_share(o->total_time, (clock_now_ns() - run->sweep_start_ns) * 1e-9, run->remaining);
        MPI_Bcast(&budgeted.time_budget, 1, MPI_DOUBLE, 0, comm);
    }
    struct mp_result r;
    if (driver_measure(p, &ctx, &budgeted, run->clock, &run->driver, &r, err, sizeof err))
        job_fail(err, 3);
    int divisor = p->divisor ? p->divisor : size;
    out->head = (struct result_head){r.k, r.warmup, r.nsamples, 0, r.first, r.elapsed, r.mismatch, inplace, divisor,
                                     0, 0, r.first_of_job, 0, ""};
    snprintf(out->head.stop_reason, sizeof out->head.stop_reason, "%s", r.stop_reason ? r.stop_reason : "");
    out->samples = r.samples;
    if (me == 0)
        describe(p, &ctx, &r, divisor, out);
    if (p->teardown)
        p->teardown(&ctx);
    previous[variant] = r.median;
    free(r.rank_medians);
    free(r.rank_samples);
    free(world);
}

/* The leader's result to world rank 0 (which sleeps while it waits). */
static void carry(struct mp_run *run, int leader, struct result *res)
{
    struct result_head *h = &res->head;
    if (run->world_rank == leader) {
        MPI_Send(h, (int)sizeof *h, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(res->samples, (int)h->nsamples, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(res->ranks, h->nranks, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(res->pair_median_s, h->npairs, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(res->pair_samples_s, (int)(h->npairs * h->pair_nsamples), MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(res->fields, h->fields_len, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
        return;
    }
    if (run->world_rank != 0)
        return;
    MPI_Request req;
    MPI_Irecv(h, (int)sizeof *h, MPI_BYTE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
    result_free(res);
    res->samples = checked(malloc((h->nsamples ? h->nsamples : 1) * sizeof *res->samples));
    res->ranks = checked(malloc((h->nranks ? h->nranks : 1) * sizeof *res->ranks));
    res->pair_median_s = checked(malloc((h->npairs ? h->npairs : 1) * sizeof *res->pair_median_s));
    long paired = h->npairs * h->pair_nsamples;
    res->pair_samples_s = checked(malloc((paired ? paired : 1) * sizeof *res->pair_samples_s));
    res->fields = h->fields_len ? checked(malloc(h->fields_len)) : NULL;
    MPI_Irecv(res->samples, (int)h->nsamples, MPI_DOUBLE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
    MPI_Irecv(res->ranks, h->nranks, MPI_INT, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
    MPI_Irecv(res->pair_median_s, h->npairs, MPI_DOUBLE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
    MPI_Irecv(res->pair_samples_s, (int)paired, MPI_DOUBLE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
    MPI_Irecv(res->fields, h->fields_len, MPI_CHAR, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
    job_wait_sleeping(&req);
}

/* World rank 0: the record, and a line on stdout unless --quiet. */
static void write_record(struct mp_run *run, const struct mp_pattern *p, long long bytes, int variant,
                         const struct result *res)
{
    const struct mp_options *o = run->o;
    const struct result_head *h = &res->head;
    char variant_name[64];
    if (p->variant_name)
        p->variant_name(variant, run->nranks, variant_name, sizeof variant_name);
    const char *placement = p->participants != MP_ALL && run->places
                                ? pair_placement(run->places, run->pair_a, run->pair_b) : NULL;
    struct mp_measurement m = {
        .pattern = p->name, .variant = p->variant_name ? variant_name : NULL,
        .buffer = h->inplace ? "inplace" : "separate", .ranks = res->ranks, .nranks = h->nranks,
        .npairs = h->npairs, .pair_median_s = res->pair_median_s,
        .pair_samples_s = res->pair_samples_s, .flows = p->flows ? p->flows : 1,
        .timing = p->timing, .metric = p->metric, .bytes = bytes, .divisor = (int)(h->k * h->divisor), .k = h->k,
        .warmup = h->warmup, .first = h->first, .first_of_job = h->first_of_job, .elapsed = h->elapsed,
        .stop_reason = h->stop_reason, .mismatch = h->mismatch, .fields = res->fields, .placement = placement,
        .samples = res->samples, .nsamples = h->nsamples, .pair_nsamples = h->pair_nsamples,
    };
    if (record_measurement(run->out, o, &m))
        job_fail_write(o->output);
    if (h->mismatch >= 0)
        run->mismatches++;
    if (!o->quiet) {
        printf("%-14s %12lld B  samples %-8ld k %-8ld stop %-11s %s\n", p->name, bytes, h->nsamples, h->k,
               h->stop_reason, h->mismatch < 0 ? "ok" : "PAYLOAD MISMATCH");
        fflush(stdout);
    }
}

void measure(struct mp_run *run, const struct mp_pattern *p, long long bytes, int variant, double *previous)
{
    int member, leader;
    MPI_Comm comm = MPI_COMM_NULL;
    if (p->participants == MP_ALL) {
        MPI_Request ready;
        MPI_Ibarrier(MPI_COMM_WORLD, &ready); /* idle ranks of the last measurement sleep here */
        job_wait_sleeping(&ready);
        member = p->member ? p->member(run->world_rank, run->nranks, variant) : 1;
        leader = 0;
        while (p->member && !p->member(leader, run->nranks, variant))
            leader++;
        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, run->world_rank, &comm);
    } else {
        member = run->pair != MPI_COMM_NULL;
        leader = run->pair_a;
        comm = run->pair;
    }
    struct result res;
    memset(&res, 0, sizeof res);
    if (member)
        run_pattern(run, p, comm, bytes, variant, previous, &res);
    if (leader != 0)
        carry(run, leader, &res);
    if (run->world_rank == 0)
        write_record(run, p, bytes, variant, &res);
    result_free(&res);
    if (p->participants == MP_ALL && comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    run->remaining--;
}
