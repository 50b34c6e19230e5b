/* msgperf-kernels: the options (parsed before MPI_Init, so --help and --list-patterns need no
 * launcher), the checks before anything runs, the run file's first records, then every
 * (pattern, size, variant) through measure() (measure.c), one record each, flushed as it
 * finishes. World rank 0 writes the run file; ranks outside a measurement wait without spinning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <mpi.h>

#include "buffers.h"
#include "catalog.h"
#include "clock.h"
#include "host_facts_gather.h"
#include "job.h"
#include "measure.h"
#include "mpit_cvars.h"
#include "options.h"
#include "output.h"
#include "pair_choice.h"
#include "patterns.h"
#include "placement.h"
#include "preflight.h"
#include "record.h"

/* --list-patterns: the catalog on stdout, with no MPI call. */
static int list_patterns(int world_size)
{
    char err[MP_ERRLEN];
    if (catalog_write(stdout, patterns_all(), patterns_count(), world_size, err, sizeof err)) {
        fprintf(stderr, "msgperf-kernels: %s\n", err);
        return 3;
    }
    fputc('\n', stdout);
    return fflush(stdout) != 0 || ferror(stdout) ? 3 : 0;
}

static int has_argument(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

/* The kernels' own command line, for the run record when --command-line does not give one. */
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

/* The clock self-test, worst over every rank: all ranks then agree on the sample target. */
static void agreed_clock(struct mp_clock_test *clock)
{
    clock_self_test(clock);
    struct { double resolution, overhead; } worst = {clock->resolution, clock->overhead};
    MPI_Allreduce(MPI_IN_PLACE, &worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int monotonic = clock->monotonic;
    MPI_Allreduce(MPI_IN_PLACE, &monotonic, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    clock->resolution = worst.resolution;
    clock->overhead = worst.overhead;
    clock->monotonic = monotonic;
}

/* World rank 0: the run record (unless adding a launch) and the launch record. */
static void write_head(FILE *out, const struct mp_options *o, int argc, char **argv, int nranks, const int pairs[2],
                       const struct mp_rank_place *places, const struct mp_clock_test *clock,
                       const struct mp_host_facts *hosts, int nhosts)
{
    if (!o->append) {
        char *joined = o->command_line ? NULL : joined_argv(argc, argv);
        struct mp_run_info run = {o->command_line ? o->command_line : (joined ? joined : argv[0]), nranks, pairs[0],
                                  pairs[1]};
        int failed = record_run(out, o, &run);
        free(joined);
        if (failed)
            job_fail_write(o->output);
    }
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, version, subversion;
    MPI_Get_library_version(library, &len);
    MPI_Get_version(&version, &subversion);
    struct mp_cvar *cvars;
    int ncvars = mpit_cvars_read(&cvars);
    struct mp_launch_info launch = {library, version, subversion, nranks, pairs[0], pairs[1], places, clock,
                                    MPI_Wtick(), o->launcher_line, hosts, nhosts, cvars, ncvars};
    int failed = record_launch(out, o, &launch);
    mpit_cvars_free(cvars, ncvars);
    if (failed)
        job_fail_write(o->output);
}

/* Every rank: where it ran at the end and its peak memory, to world rank 0's launch_end record
 * (the kernels should hold little beyond the message buffers and the samples). */
static void write_end(FILE *out, const struct mp_options *o, int world_rank, int nranks)
{
    int *cpus = world_rank == 0 ? calloc(nranks, sizeof *cpus) : NULL;
    long *rss = world_rank == 0 ? calloc(nranks, sizeof *rss) : NULL;
    if (world_rank == 0 && (!cpus || !rss))
        job_fail("out of memory", 3);
    placement_gather_cpus(MPI_COMM_WORLD, 0, cpus);
    struct rusage usage;
    long rss_kib = getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
    MPI_Gather(&rss_kib, 1, MPI_LONG, rss, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0 && record_launch_end(out, o, cpus, rss, nranks))
        job_fail_write(o->output);
    free(cpus);
    free(rss);
}

/* One pass per measured pair (two with --placement both: intra-node, then inter-node); patterns
 * over all ranks run in the first pass only. Within a pass the sweep is size-major: every pattern
 * at one size, then the next size, so that patterns compared with each other (a collective and
 * the point-to-point model that predicts it, k messages and their combined one) are timed within
 * moments of each other, under the same machine speed and load, not a pattern's whole sweep
 * apart. Every rank walks the same measurements in the same order. With `counting`, nothing is
 * measured: the number of measurements is returned (what --total-time shares its budget among). */
static long sweep(struct mp_run *run, const int *pairs, int npairs, int counting)
{
    const struct mp_options *o = run->o;
    long count = 0;
    /* Each pattern's medians of its variants at the current size (overlap reads its earlier
     * variants'). */
    double **previous = counting ? NULL : calloc(o->npatterns, sizeof *previous);
    if (!counting && !previous)
        job_fail("out of memory", 3);
    for (int pi = 0; pi < o->npatterns && !counting; pi++) {
        const struct mp_pattern *p = patterns_find(o->patterns[pi]);
        previous[pi] = calloc(p->variants ? p->variants(run->nranks) : 1, sizeof **previous);
        if (!previous[pi])
            job_fail("out of memory", 3);
    }
    for (int pass = 0; pass < npairs; pass++) {
        run->pair_a = pairs[2 * pass];
        run->pair_b = pairs[2 * pass + 1];
        /* The measured pair gets its own communicator; pair_a is its rank 0 and the leader. */
        int in_pair = run->world_rank == run->pair_a || run->world_rank == run->pair_b;
        MPI_Comm pair = MPI_COMM_NULL;
        if (!counting)
            MPI_Comm_split(MPI_COMM_WORLD, in_pair ? 0 : MPI_UNDEFINED, run->world_rank == run->pair_a ? 0 : 1, &pair);
        run->pair = in_pair ? pair : MPI_COMM_NULL;
        for (int si = 0; si < o->nsizes; si++)
            for (int pi = 0; pi < o->npatterns; pi++) {
                const struct mp_pattern *p = patterns_find(o->patterns[pi]);
                if (pass > 0 && p->participants == MP_ALL)
                    continue;
                int variants = p->variants ? p->variants(run->nranks) : 1;
                for (int v = 0; v < variants; v++)
                    if (!p->active_pairs || options_active_chosen(o, p->active_pairs(run->nranks, v))) {
                        count++;
                        if (!counting)
                            measure(run, p, o->sizes[si], v, previous[pi]);
                    }
            }
        if (in_pair && !counting)
            MPI_Comm_free(&pair);
        run->pair = MPI_COMM_NULL;
    }
    for (int pi = 0; pi < o->npatterns && !counting; pi++)
        free(previous[pi]);
    free(previous);
    return count;
}

int main(int argc, char **argv)
{
    struct mp_options parsed;
    char err[MP_ERRLEN];
    int rc = options_parse(argc, argv, &parsed, err, sizeof err);
    if (rc == 1)
        return 0; /* --help was shown */
    if (rc == 0 && parsed.list_patterns)
        return list_patterns(parsed.list_np);
    if (rc != 0 && has_argument(argc, argv, "--list-patterns")) {
        fprintf(stderr, "msgperf-kernels: %s\n", err);
        return 2;
    }
    const struct mp_options *const o = &parsed; /* from here on, read only */

    MPI_Init(&argc, &argv);
    int world_rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (rc != 0 || preflight_ranks(o, nranks, err, sizeof err))
        job_fail_together(err, 2);

    struct mp_rank_place *places = world_rank == 0 ? calloc(nranks, sizeof *places) : NULL;
    if (world_rank == 0 && !places)
        job_fail("out of memory", 3);
    placement_gather(MPI_COMM_WORLD, 0, places);
    struct mp_host_facts *hosts = world_rank == 0 ? calloc(nranks, sizeof *hosts) : NULL;
    int nhosts = 0;
    if ((world_rank == 0 && !hosts) || host_facts_gather(MPI_COMM_WORLD, 0, hosts, &nhosts))
        job_fail("out of memory", 3);
    MPI_Comm node;
    int ranks_here;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_here);
    MPI_Comm_free(&node);
    if (preflight_memory(o, nranks, ranks_here, err, sizeof err))
        job_fail(err, 2);
    int pairs[4];
    int npairs = pair_choice(o, places, nranks, pairs);
    struct mp_clock_test clock;
    agreed_clock(&clock);

    FILE *out = NULL;
    int open_ok = 1;
    if (world_rank == 0) {
        out = output_open(o, err, sizeof err);
        open_ok = out != NULL;
    }
    MPI_Bcast(&open_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!open_ok)
        job_fail_together(err, 2); /* world rank 0's message */
    if (world_rank == 0)
        write_head(out, o, argc, argv, nranks, pairs, places, &clock, hosts, nhosts);
    free(hosts);

    int any_all = 0;
    for (int pi = 0; pi < o->npatterns; pi++)
        any_all |= patterns_find(o->patterns[pi])->participants == MP_ALL;
    long long largest = preflight_buffer_bytes(o, nranks);
    int in_any_pair = 0;
    for (int i = 0; i < npairs; i++)
        in_any_pair |= world_rank == pairs[2 * i] || world_rank == pairs[2 * i + 1];
    unsigned char *send = NULL, *recv = NULL;
    if (in_any_pair || any_all) {
        send = buffers_alloc((size_t)largest);
        recv = buffers_alloc((size_t)largest);
        if (!send || !recv)
            job_fail("cannot allocate the message buffers; use smaller sizes", 3);
    }

    /* One run state for the launch: its driver state counts this rank's measurements across
     * passes. */
    struct mp_run run = {.o = o, .clock = &clock, .world_rank = world_rank, .nranks = nranks,
                         .pair = MPI_COMM_NULL, .send = send, .recv = recv, .out = out, .places = places};
    run.remaining = sweep(&run, pairs, npairs, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* --total-time counts from here, on every rank alike */
    run.sweep_start_ns = clock_now_ns();
    sweep(&run, pairs, npairs, 0);

    /* Everyone meets at the end; ranks that were idle sleep while they wait. */
    MPI_Request done;
    MPI_Ibarrier(MPI_COMM_WORLD, &done);
    job_wait_sleeping(&done);
    write_end(out, o, world_rank, nranks);
    int mismatches = run.mismatches;
    if (world_rank == 0) {
        if (out != stdout)
            fclose(out);
        if (mismatches)
            fprintf(stderr, "msgperf-kernels: %d measurement(s) received bytes that differ from those sent; see 'validation' in %s\n",
                    mismatches, o->output);
    }
    MPI_Bcast(&mismatches, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(places);
    buffers_free(send);
    buffers_free(recv);
    options_free(&parsed);
    MPI_Finalize();
    return mismatches ? 4 : 0;
}
