/* msgperf-kernels: MPI_Init, options, placement and clock self-test, then every (pattern, size)
 * through the driver, one record each, flushed as it finishes. World rank 0 writes the run
 * file; ranks outside the measured pair wait without spinning. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mpi.h>

#include "buffers.h"
#include "clock.h"
#include "driver.h"
#include "options.h"
#include "patterns.h"
#include "placement.h"
#include "record.h"

#define TAG_RESULT 7001
#define IDLE_POLL_NS 200000 /* 0.2 ms: idle ranks check for progress this often */

static int world_rank;

/* One line on rank 0 (problem and fix), then every rank stops. */
static void fail(const char *message, int code)
{
    if (world_rank == 0) {
        fprintf(stderr, "msgperf-kernels: %s\n", message);
        fflush(stderr);
        /* Give the launcher time to forward the line before MPI_Abort tears the job down
         * (Hydra can lose it otherwise). An error path: the pause costs nothing. */
        const struct timespec grace = {0, 300000000};
        nanosleep(&grace, NULL);
    }
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* The run file could not be written (a full disk, say): what reached it is kept. */
static void fail_write(const char *path)
{
    char msg[1024];
    snprintf(msg, sizeof msg,
             "cannot write run file '%s' (%s); every measurement finished before this is kept in it; "
             "free space and continue with msgperf run --resume %s",
             path, strerror(errno), path);
    fail(msg, 3);
}

/* Complete a request while sleeping between polls, so a waiting rank leaves its core to
 * the ranks being measured (oversubscribed nodes). */
static void wait_sleeping(MPI_Request *request)
{
    const struct timespec pause = {0, IDLE_POLL_NS};
    int done = 0;
    for (;;) {
        MPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&pause, NULL);
    }
}

static char *joined_argv(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 3;
    char *s = calloc(len, 1);
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        int quote = strpbrk(argv[i], " \t") != NULL;
        strcat(s, i ? " " : "");
        strcat(s, quote ? "'" : "");
        strcat(s, argv[i]);
        strcat(s, quote ? "'" : "");
    }
    return s;
}

/* Memory for two buffers of the largest size per rank, checked before allocating. */
static void check_memory(const struct mp_options *o, int ranks_here)
{
    long long largest = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > largest)
            largest = o->sizes[i];
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return;
    double need = 2.0 * (double)largest * ranks_here, have = (double)pages * page;
    if (need > 0.9 * have) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "sizes up to %lld B need %.1f GiB of buffers on this node but %.1f GiB are free; use smaller sizes",
                 largest, need / (1 << 30), have / (1 << 30));
        fail(msg, 2);
    }
}

/* Parse "RANK:BYTES" of the test-only --test-stall option. */
static int stall_matches(const struct mp_options *o, long long bytes)
{
    long rank;
    long long at;
    return o->test_stall && sscanf(o->test_stall, "%ld:%lld", &rank, &at) == 2 && rank == world_rank && at == bytes;
}

/* --active: is this step of a contention sweep (that many concurrent pairs) to be measured? */
static int active_chosen(const struct mp_options *o, int active)
{
    if (o->nactive == 0)
        return 1;
    for (int i = 0; i < o->nactive; i++)
        if (o->active[i] == active)
            return 1;
    return 0;
}

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

struct result_head {
    long k, warmup, nsamples;
    double first, elapsed;
    long long mismatch;
    int inplace, nranks, extra_len;
    char stop_reason[16];
};

/* What one measurement needs besides the pattern: the run's fixed parts. */
struct mp_run {
    const struct mp_options *o;
    const struct mp_clock_test *clock;
    MPI_Comm pair;              /* the --pair's communicator, MPI_COMM_NULL elsewhere */
    unsigned char *send, *recv; /* NULL on ranks that never take part */
    FILE *out;
    int nranks;
    int mismatches;
    const struct mp_rank_place *places; /* rank -> host map, on world rank 0 only */
    struct mp_driver_state driver; /* zero at start: the driver marks the launch's first measurement */
};

/* "intra" when the measured pair shares a host, else "inter" (world rank 0 only). */
static const char *pair_placement(const struct mp_rank_place *places, int a, int b)
{
    return strcmp(places[a].host, places[b].host) == 0 ? "intra" : "inter";
}

/* The record's extra members plus "placement" for two-rank patterns; the caller frees it. */
static char *with_placement(char *extra, const char *placement)
{
    size_t len = extra ? strlen(extra) : 0;
    char *s = malloc(len + 32);
    if (!s)
        return extra;
    snprintf(s, len + 32, "%s,\"placement\":\"%s\"", extra ? extra : "", placement);
    free(extra);
    return s;
}

/* Choose the measured pair(s) from the rank->host map for --placement (rank 0 decides, every
 * rank learns the answer); fills pairs[2*i], pairs[2*i+1] and returns how many pairs. */
static int choose_pairs(const struct mp_options *o, const struct mp_rank_place *places, int nranks, int pairs[4])
{
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
        fail(err, 2);
    }
    memcpy(pairs, msg + 2, 4 * sizeof *pairs);
    return msg[1];
}

/* Write the launch record, with "launcher_command_line" added when the launcher's command line
 * is known (the record writer's line is completed here rather than changed). */
static int write_launch(FILE *out, const struct mp_options *o, const struct mp_launch_info *info)
{
    if (!o->launcher_line)
        return record_launch(out, o, info);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return record_launch(out, o, info);
    record_launch(mem, o, info);
    fclose(mem);
    /* text ends in "}\n": reopen the object, add the member, close it again */
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '}'))
        if (text[--len] == '}')
            break;
    fwrite(text, 1, len, out);
    fputs(",\"launcher_command_line\":\"", out);
    for (const unsigned char *c = (const unsigned char *)o->launcher_line; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputs("\"}\n", out);
    free(text);
    return (fflush(out) != 0 || ferror(out)) ? -1 : 0;
}

/* The record's pattern-specific members: variant, the pattern's own fields, per-pair times. */
static char *extra_fields(const struct mp_pattern *p, const struct mp_ctx *ctx, const struct mp_result *r,
                          int divisor, int *ranks, int *nranks)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    if (p->variant_name) {
        char name[64];
        p->variant_name(ctx->variant, ctx->world_size, name, sizeof name);
        fprintf(f, ",\"variant\":\"%s\"", name);
    }
    if (p->fields) {
        char buf[1024] = "";
        p->fields(ctx, r->median, buf, sizeof buf);
        fputs(buf, f);
    }
    if (r->first_of_job) /* the job's first message of a pattern: see driver.h */
        fprintf(f, ",\"first_message_of_job_s\":%.17g", r->first);
    int *pairs = p->pairs ? malloc(ctx->nranks * 2 * sizeof *pairs) : NULL;
    int npairs = pairs ? p->pairs(ctx, pairs, ctx->nranks) : 0;
    if (npairs > 0) {
        fputs(",\"pairs\":[", f);
        for (int i = 0; i < npairs; i++)
            fprintf(f, "%s[%d,%d]", i ? "," : "", ctx->world[pairs[2 * i]], ctx->world[pairs[2 * i + 1]]);
        fputs("],\"pair_median_s\":[", f);
        for (int i = 0; i < npairs; i++) {
            double a = r->rank_medians[pairs[2 * i]], b = r->rank_medians[pairs[2 * i + 1]];
            fprintf(f, "%s%.17g", i ? "," : "", (a > b ? a : b) / divisor);
        }
        fputc(']', f);
        for (int i = 0; i < 2 * npairs; i++) /* ranks is ctx->world: map in place, then order */
            pairs[i] = ctx->world[pairs[i]];
        memcpy(ranks, pairs, 2 * npairs * sizeof *ranks);
        *nranks = 2 * npairs;
    }
    free(pairs);
    fclose(f);
    return text;
}

/* One record: the participants measure (others sleep), the leader's result reaches world
 * rank 0, which writes it. `previous` gains this variant's time per iteration. */
static void measure(struct mp_run *run, const struct mp_pattern *p, long long bytes, int variant, double *previous)
{
    const struct mp_options *o = run->o;
    int member, leader;
    MPI_Comm comm = MPI_COMM_NULL;
    if (p->participants == MP_ALL) {
        MPI_Request ready;
        MPI_Ibarrier(MPI_COMM_WORLD, &ready); /* idle ranks of the last measurement sleep here */
        wait_sleeping(&ready);
        member = p->member ? p->member(world_rank, run->nranks, variant) : 1;
        leader = 0;
        while (p->member && !p->member(leader, run->nranks, variant))
            leader++;
        MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, world_rank, &comm);
    } else {
        member = run->pair != MPI_COMM_NULL;
        leader = o->pair_a;
        comm = run->pair;
    }

    struct mp_result r = {0};
    struct result_head head;
    memset(&head, 0, sizeof head);
    int *ranks = calloc(run->nranks, sizeof *ranks);
    char *extra = NULL;
    char err[MP_ERRLEN];
    if (!ranks)
        fail("out of memory", 3);
    if (member) {
        int me, size;
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &size);
        MPI_Allgather(&world_rank, 1, MPI_INT, ranks, 1, MPI_INT, comm);
        int inplace = o->buffer == MP_BUFFER_INPLACE && p->inplace_ok;
        struct mp_ctx ctx = {comm, me, size, run->send, inplace ? run->send : run->recv, (int)bytes, inplace,
                             variant, ranks, run->nranks, previous, NULL};
        if (stall_matches(o, bytes))
            for (;;)
                pause(); /* test-only: a rank that never arrives */
        if (p->setup && p->setup(&ctx, err, sizeof err))
            fail(err, 2);
        if (driver_measure(p, &ctx, o, run->clock, &run->driver, &r, err, sizeof err))
            fail(err, 3);
        int divisor = p->divisor ? p->divisor : size;
        head = (struct result_head){r.k, r.warmup, r.nsamples, r.first, r.elapsed, r.mismatch, inplace, size, 0, ""};
        snprintf(head.stop_reason, sizeof head.stop_reason, "%s", r.stop_reason ? r.stop_reason : "");
        if (me == 0) {
            extra = extra_fields(p, &ctx, &r, divisor, ranks, &head.nranks);
            head.extra_len = extra ? (int)strlen(extra) + 1 : 0;
        }
        if (p->teardown)
            p->teardown(&ctx);
        previous[variant] = r.median;
        free(r.rank_medians);
    }
    double *samples = r.samples;
    if (leader != 0 && world_rank == leader) {
        MPI_Send(&head, (int)sizeof head, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(samples, (int)head.nsamples, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(ranks, head.nranks, MPI_INT, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(extra, head.extra_len, MPI_CHAR, 0, TAG_RESULT, MPI_COMM_WORLD);
    } else if (leader != 0 && world_rank == 0) {
        MPI_Request req;
        MPI_Irecv(&head, (int)sizeof head, MPI_BYTE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_sleeping(&req);
        free(samples);
        free(extra);
        samples = malloc((head.nsamples ? head.nsamples : 1) * sizeof *samples);
        extra = malloc(head.extra_len ? head.extra_len : 1);
        if (!samples || !extra)
            fail("out of memory for samples", 3);
        extra[0] = '\0';
        MPI_Irecv(samples, (int)head.nsamples, MPI_DOUBLE, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_sleeping(&req);
        MPI_Irecv(ranks, head.nranks, MPI_INT, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_sleeping(&req);
        MPI_Irecv(extra, head.extra_len, MPI_CHAR, leader, TAG_RESULT, MPI_COMM_WORLD, &req);
        wait_sleeping(&req);
    }
    if (world_rank == 0) {
        int divisor = p->divisor ? p->divisor : head.nranks;
        if (p->participants != MP_ALL && run->places)
            extra = with_placement(extra, pair_placement(run->places, o->pair_a, o->pair_b));
        struct mp_measurement m = {p->name, head.inplace ? "inplace" : "separate", ranks, head.nranks,
                                   p->flows ? p->flows : 1, extra, p->timing, p->metric, bytes,
                                   (int)(head.k * divisor), head.k, head.warmup, head.first, head.elapsed,
                                   head.stop_reason, head.mismatch, samples, head.nsamples};
        if (record_measurement(run->out, o, &m))
            fail_write(o->output);
        if (head.mismatch >= 0)
            run->mismatches++;
        if (!o->quiet) {
            printf("%-14s %12lld B  samples %-8ld k %-8ld stop %-11s %s\n", p->name, bytes, head.nsamples, head.k,
                   head.stop_reason, head.mismatch < 0 ? "ok" : "PAYLOAD MISMATCH");
            fflush(stdout);
        }
    }
    free(samples);
    free(extra);
    free(ranks);
    if (p->participants == MP_ALL && comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int nranks;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    struct mp_options o;
    char err[MP_ERRLEN];
    int rc = options_parse(argc, argv, &o, err, sizeof err);
    if (rc == 1) {
        MPI_Finalize();
        return 0;
    }
    if (rc != 0)
        fail(err, 2);
    if (nranks < 2)
        fail("only 1 rank; a pairwise pattern needs at least 2 (run with mpiexec -n 2)", 2);
    if (o.placement == MP_PLACE_PAIR && (o.pair_a >= nranks || o.pair_b >= nranks)) {
        snprintf(err, sizeof err, "--pair %d:%d names a rank that does not exist (ranks are 0 to %d); use ranks below %d",
                 o.pair_a, o.pair_b, nranks - 1, nranks);
        fail(err, 2);
    }

    if (check_active(&o, nranks, err, sizeof err))
        fail(err, 2);

    struct mp_rank_place *places = world_rank == 0 ? calloc(nranks, sizeof *places) : NULL;
    if (world_rank == 0 && !places)
        fail("out of memory", 3);
    placement_gather(MPI_COMM_WORLD, 0, places);
    MPI_Comm node;
    int ranks_here;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_here);
    MPI_Comm_free(&node);
    check_memory(&o, ranks_here);
    int pairs[4];
    int npairs = choose_pairs(&o, places, nranks, pairs);
    o.pair_a = pairs[0];
    o.pair_b = pairs[1];

    struct mp_clock_test clock;
    clock_self_test(&clock);
    struct { double resolution, overhead; } worst = {clock.resolution, clock.overhead};
    MPI_Allreduce(MPI_IN_PLACE, &worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int monotonic = clock.monotonic;
    MPI_Allreduce(MPI_IN_PLACE, &monotonic, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    clock.resolution = worst.resolution;
    clock.overhead = worst.overhead;
    clock.monotonic = monotonic;

    FILE *out = NULL;
    int open_ok = 1;
    if (world_rank == 0) {
        out = strcmp(o.output, "-") == 0 ? stdout : fopen(o.output, o.append ? "a" : "w");
        open_ok = out != NULL;
    }
    MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!open_ok) {
        snprintf(err, sizeof err, "cannot write run file '%s': %s; choose a writable path with -o", o.output, strerror(errno));
        fail(err, 2);
    }
    if (world_rank == 0) {
        char *cli = o.command_line ? NULL : joined_argv(argc, argv);
        if (!o.append && record_run(out, &o, nranks, o.command_line ? o.command_line : (cli ? cli : argv[0])))
            fail_write(o.output);
        free(cli);
        char library[MPI_MAX_LIBRARY_VERSION_STRING];
        int len, version, subversion;
        MPI_Get_library_version(library, &len);
        MPI_Get_version(&version, &subversion);
        struct mp_launch_info info = {library, version, subversion, nranks, places, &clock, MPI_Wtick()};
        if (write_launch(out, &o, &info))
            fail_write(o.output);
    }

    int any_all = 0;
    for (int pi = 0; pi < o.npatterns; pi++) {
        const struct mp_pattern *p = patterns_find(o.patterns[pi]);
        any_all |= p->participants == MP_ALL;
        if (p->even_ranks && nranks % 2) {
            snprintf(err, sizeof err, "pattern %s pairs the bottom half of the ranks with the top half and needs an "
                     "even number of ranks, not %d (it would deadlock); run with an even -n", p->name, nranks);
            if (world_rank != 0)
                MPI_Barrier(MPI_COMM_WORLD); /* rank 0 says why and stops the job */
            fail(err, 2);
        }
    }
    long long largest = 0;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > largest)
            largest = o.sizes[i];
    int in_any_pair = 0;
    for (int i = 0; i < npairs; i++)
        in_any_pair |= world_rank == pairs[2 * i] || world_rank == pairs[2 * i + 1];
    unsigned char *send = NULL, *recv = NULL;
    if (in_any_pair || any_all) {
        send = buffers_alloc((size_t)largest);
        recv = buffers_alloc((size_t)largest);
        if (!send || !recv)
            fail("cannot allocate the message buffers; use smaller sizes", 3);
    }

    /* One pass per measured pair (two with --placement both: intra-node, then inter-node);
     * patterns over all ranks run in the first pass only. */
    /* One run for the launch: its driver state counts this rank's measurements across passes. */
    struct mp_run run = {&o, &clock, MPI_COMM_NULL, send, recv, out, nranks, 0, places, {0}};
    for (int pass = 0; pass < npairs; pass++) {
        o.pair_a = pairs[2 * pass];
        o.pair_b = pairs[2 * pass + 1];
        /* The measured pair gets its own communicator; pair_a is its rank 0 and the leader. */
        int in_pair = world_rank == o.pair_a || world_rank == o.pair_b;
        MPI_Comm pair;
        MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, world_rank == o.pair_a ? 0 : 1, &pair);
        run.pair = in_pair ? pair : MPI_COMM_NULL;
        for (int pi = 0; pi < o.npatterns; pi++) {
            const struct mp_pattern *p = patterns_find(o.patterns[pi]);
            if (pass > 0 && p->participants == MP_ALL)
                continue;
            int variants = p->variants ? p->variants(nranks) : 1;
            double *previous = calloc(variants, sizeof *previous);
            if (!previous)
                fail("out of memory", 3);
            for (int si = 0; si < o.nsizes; si++)
                for (int v = 0; v < variants; v++)
                    if (!p->active_pairs || active_chosen(&o, p->active_pairs(nranks, v)))
                        measure(&run, p, o.sizes[si], v, previous);
            free(previous);
        }
        if (in_pair)
            MPI_Comm_free(&pair);
        run.pair = MPI_COMM_NULL;
    }
    int mismatches = run.mismatches;

    /* Everyone meets at the end; ranks that were idle sleep while they wait. */
    MPI_Request done;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    wait_sleeping(&done);
    int *cpus = world_rank == 0 ? calloc(nranks, sizeof *cpus) : NULL;
    placement_gather_cpus(MPI_COMM_WORLD, 0, cpus);
    /* Peak resident memory of every rank: the kernels should hold little beyond the message
     * buffers and the samples. */
    struct rusage usage;
    long rss_kib = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
    long *rss = world_rank == 0 ? calloc(nranks, sizeof *rss) : NULL;
    MPI_Gather(&rss_kib, 1, MPI_LONG, rss, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (record_launch_end(out, &o, cpus, rss, nranks))
            fail_write(o.output);
        if (out != stdout)
            fclose(out);
        if (mismatches)
            fprintf(stderr, "msgperf-kernels: %d measurement(s) received bytes that differ from those sent; see 'validation' in %s\n",
                    mismatches, o.output);
    }
    MPI_Bcast(&mismatches, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(cpus);
    free(rss);
    free(places);
    buffers_free(send);
    buffers_free(recv);
    options_free(&o);
    MPI_Finalize();
    return mismatches ? 4 : 0;
}
