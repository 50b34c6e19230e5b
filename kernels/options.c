#include "options.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "units.h"

/* The ranges here are guards against values no measurement can use, for a kernel run by hand:
 * msgperf checks every option first, with the limits users see (src/msgperf/plan.py, from
 * records/limits.py). A time, per size or for the launch: at most what a run file may hold
 * (MAX_TIME_S). */
#define MP_MAX_SECONDS 1e6

enum { OPT_NP = 256, OPT_TOTAL_TIME, OPT_ITERATIONS_PER_SAMPLE, OPT_AFTER, OPT_ROOT, OPT_ITERATION_BARRIER, OPT_OFF_CACHE }; /* long options without a one-letter code */

static const struct option longopts[] = {
    {"pattern", required_argument, NULL, 'p'},
    {"sizes", required_argument, NULL, 's'},
    {"pair", required_argument, NULL, 'P'},
    {"buffer", required_argument, NULL, 'b'},
    {"precision", required_argument, NULL, 'r'},
    {"time-budget", required_argument, NULL, 't'},
    {"total-time", required_argument, NULL, OPT_TOTAL_TIME},
    {"min-samples", required_argument, NULL, 'n'},
    {"max-samples", required_argument, NULL, 'N'},
    {"output", required_argument, NULL, 'o'},
    {"append", no_argument, NULL, 'a'},
    {"overwrite", no_argument, NULL, 'O'},
    {"repeat", required_argument, NULL, 'R'},
    {"launch", required_argument, NULL, 'l'},
    {"quiet", no_argument, NULL, 'q'},
    {"command-line", required_argument, NULL, 'c'},
    {"placement", required_argument, NULL, 'L'},
    {"launcher-line", required_argument, NULL, 'x'},
    {"test-stall", required_argument, NULL, 'S'},
    {"active", required_argument, NULL, 'A'},
    {"test-corrupt", required_argument, NULL, 'C'},
    {"test-delay-ns", required_argument, NULL, 'D'},
    {"list-patterns", no_argument, NULL, 'T'},
    {"np", required_argument, NULL, OPT_NP},
    {"iterations-per-sample", required_argument, NULL, OPT_ITERATIONS_PER_SAMPLE},
    {"after", required_argument, NULL, OPT_AFTER},
    {"root", required_argument, NULL, OPT_ROOT},
    {"iteration-barrier", no_argument, NULL, OPT_ITERATION_BARRIER},
    {"off-cache", no_argument, NULL, OPT_OFF_CACHE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void usage(void)
{
    printf("usage: msgperf-kernels [options]\n"
           "  -p, --pattern NAME      pattern to run (repeatable; default pingpong)\n"
           "  -s, --sizes LIST        sizes: 0,1,4K or 1:64M or 1:64M:4 (default 0:64M)\n"
           "      --pair A:B          measured ranks, A sends first (default 0:1)\n"
           "      --placement WHERE   intra, inter or both: choose the pair(s) from the rank->host map\n"
           "                          (first two ranks on one node / on different nodes) instead of --pair\n"
           "      --launcher-line STR the launcher's command line, recorded in the launch record\n"
           "      --buffer MODE       separate (default) or inplace\n"
           "      --precision P       target half-width of the median's 95%% CI (default 1%%)\n"
           "      --time-budget SECS  time budget per size (default 1s)\n"
           "      --total-time SECS   one budget for the whole launch instead: each measurement gets\n"
           "                          the time left divided by the measurements left, so time that\n"
           "                          early sizes did not need goes to the sizes that do\n"
           "      --min-samples N     minimum samples per size (default 20)\n"
           "      --max-samples N     maximum samples per size (default 1000000)\n"
           "      --iterations-per-sample K  k, the iterations each sample times, instead of calibrating it\n"
           "                          (1: one sample per round trip, per-iteration samples)\n"
           "  -o, --output FILE       run file to write (default msgperf-run.jsonl)\n"
           "      --append            add a launch to an existing run file\n"
           "      --overwrite         replace the run file if it exists (without it an existing file is\n"
           "                          refused: msgperf never overwrites a file without --force)\n"
           "      --repeat N          launches the run is planned to have (recorded in the plan; default 1)\n"
           "      --after LIST        what msgperf run does after the sweep: probe, refine, both (probe,refine)\n"
           "                          or none; recorded in the plan, so that --resume does the same\n"
           "      --launch N          index of this launch in the run file (with --append)\n"
           "      --root WHICH        rooted collectives (bcast, reduce): 0 (default: rank 0 every\n"
           "                          iteration, as OSU) or rotate (root = iteration mod P, as IMB)\n"
           "      --iteration-barrier collectives: one call per sample, each after an MPI_Barrier that\n"
           "                          is not timed (as OSU); default: k calls back to back (as IMB)\n"
           "      --off-cache         collectives: cycle through buffer sets that together exceed twice\n"
           "                          the last-level cache (as IMB -off_cache); default: the same buffers\n"
           "  -q, --quiet             no per-size lines on stdout\n"
           "      --active N,...      pairs: measure only these steps of its 1, 2, 4 ... P/2 sweep\n"
           "      --list-patterns     print the pattern catalog as JSON and stop (needs no launcher)\n"
           "      --np N              with --list-patterns: count the variants for N ranks (default 2)\n"
           "      --test-delay-ns N   test only: every measured rank spins N ns more per iteration, inside\n"
           "                          the timing (a known slowdown: +N/2 on a ping-pong's one-way time)\n"
           "patterns:");
    for (int i = 0; i < patterns_count(); i++)
        printf(" %s", patterns_get(i)->name);
    printf("\n");
}

static int scan_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int scan_pair(const char *text, int *a, int *b)
{
    char *end;
    long x = strtol(text, &end, 10);
    if (end == text || *end != ':' || x < 0 || x > INT_MAX)
        return -1;
    const char *second = end + 1;
    long y = strtol(second, &end, 10);
    if (end == second || *end != '\0' || y < 0 || y > INT_MAX)
        return -1;
    *a = (int)x;
    *b = (int)y;
    return 0;
}

int options_parse(int argc, char **argv, struct mp_options *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->pair_a = 0;
    o->pair_b = 1;
    o->buffer = MP_BUFFER_SEPARATE;
    o->precision = 0.01;
    o->time_budget = 1.0;
    o->min_samples = 20;
    o->max_samples = 1000000;
    o->output = "msgperf-run.jsonl";
    o->test_corrupt = -1;
    o->list_np = 2;
    int np_given = 0;
    o->repeat = 1;
    const char *sizes = "0:64M";
    long value;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":p:s:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (!patterns_find(optarg)) {
                snprintf(err, errlen, "unknown pattern '%s'; run with --help to list the patterns", optarg);
                return -1;
            }
            if (o->npatterns == MP_MAX_PATTERNS) {
                snprintf(err, errlen, "too many patterns (at most %d)", MP_MAX_PATTERNS);
                return -1;
            }
            o->patterns[o->npatterns++] = optarg;
            break;
        case 's': sizes = optarg; break;
        case 'P':
            if (scan_pair(optarg, &o->pair_a, &o->pair_b)) {
                snprintf(err, errlen, "cannot read --pair '%s'; write two ranks like 0:1", optarg);
                return -1;
            }
            if (o->pair_a == o->pair_b) {
                snprintf(err, errlen, "--pair %s names rank %d twice; name two different ranks", optarg, o->pair_a);
                return -1;
            }
            break;
        case 'b':
            if (strcmp(optarg, "separate") == 0)
                o->buffer = MP_BUFFER_SEPARATE;
            else if (strcmp(optarg, "inplace") == 0)
                o->buffer = MP_BUFFER_INPLACE;
            else {
                snprintf(err, errlen, "unknown --buffer '%s'; use separate or inplace", optarg);
                return -1;
            }
            break;
        case 'r':
            if (units_scan_fraction(optarg, &o->precision, err, errlen))
                return -1;
            if (!(o->precision >= 1e-5 && o->precision <= 0.5)) {
                snprintf(err, errlen, "--precision %s is out of range; use 0.001%% to 50%%", optarg);
                return -1;
            }
            break;
        case 't':
            if (units_scan_seconds(optarg, &o->time_budget, err, errlen))
                return -1;
            if (!(o->time_budget > 0 && o->time_budget <= MP_MAX_SECONDS)) {
                snprintf(err, errlen, "--time-budget %s is out of range; use more than 0 and at most %g s", optarg,
                         MP_MAX_SECONDS);
                return -1;
            }
            break;
        case OPT_TOTAL_TIME:
            if (units_scan_seconds(optarg, &o->total_time, err, errlen))
                return -1;
            if (!(o->total_time > 0 && o->total_time <= MP_MAX_SECONDS)) {
                snprintf(err, errlen, "--total-time %s is out of range; use more than 0 and at most %g s", optarg,
                         MP_MAX_SECONDS);
                return -1;
            }
            break;
        case 'n':
            if (scan_long(optarg, 6, 100000000, &o->min_samples)) {
                snprintf(err, errlen, "--min-samples %s is out of range; use 6 to 100000000 (a median CI needs 6)", optarg);
                return -1;
            }
            break;
        case 'N':
            if (scan_long(optarg, 6, 100000000, &o->max_samples)) {
                snprintf(err, errlen, "--max-samples %s is out of range; use 6 to 100000000", optarg);
                return -1;
            }
            break;
        case 'o': o->output = optarg; break;
        case 'a': o->append = 1; break;
        case 'O': o->overwrite = 1; break;
        case 'T': o->list_patterns = 1; break;
        case OPT_NP:
            if (scan_long(optarg, 2, 1000000, &value)) {
                snprintf(err, errlen, "--np %s is out of range; use 2 to 1000000 ranks", optarg);
                return -1;
            }
            o->list_np = (int)value;
            np_given = 1;
            break;
        case OPT_ITERATIONS_PER_SAMPLE:
            if (scan_long(optarg, 1, 1000000000, &o->iterations_per_sample)) {
                snprintf(err, errlen, "--iterations-per-sample %s is out of range; use 1 to 1000000000 "
                         "(1: one iteration per sample)", optarg);
                return -1;
            }
            break;
        case 'D':
            if (scan_long(optarg, 0, 1000000000, &value)) {
                snprintf(err, errlen, "--test-delay-ns %s is out of range; use 0 to 1000000000 ns", optarg);
                return -1;
            }
            o->test_delay_ns = value;
            break;
        case 'R':
            if (scan_long(optarg, 1, 1000, &value)) {
                snprintf(err, errlen, "--repeat %s must be a launch count from 1 to 1000", optarg);
                return -1;
            }
            o->repeat = (int)value;
            break;
        case 'l':
            if (scan_long(optarg, 0, 1000000, &value)) {
                snprintf(err, errlen, "--launch %s must be a launch index >= 0", optarg);
                return -1;
            }
            o->launch_index = (int)value;
            break;
        case 'q': o->quiet = 1; break;
        case 'c': o->command_line = optarg; break;
        case 'x': o->launcher_line = optarg; break;
        case 'L':
            if (strcmp(optarg, "intra") == 0)
                o->placement = MP_PLACE_INTRA;
            else if (strcmp(optarg, "inter") == 0)
                o->placement = MP_PLACE_INTER;
            else if (strcmp(optarg, "both") == 0)
                o->placement = MP_PLACE_BOTH;
            else if (strcmp(optarg, "pair") == 0)
                o->placement = MP_PLACE_PAIR;
            else {
                snprintf(err, errlen, "unknown --placement '%s'; use intra, inter or both", optarg);
                return -1;
            }
            break;
        case 'S': o->test_stall = optarg; break;
        case OPT_ITERATION_BARRIER: o->iteration_barrier = 1; break;
        case OPT_OFF_CACHE: o->off_cache = 1; break;
        case OPT_ROOT:
            if (strcmp(optarg, "0") == 0)
                o->rotate_root = 0;
            else if (strcmp(optarg, "rotate") == 0)
                o->rotate_root = 1;
            else {
                snprintf(err, errlen, "unknown --root '%s'; use 0 or rotate", optarg);
                return -1;
            }
            break;
        case OPT_AFTER: {
            /* recorded only: msgperf, not the kernels, probes and refines after the sweep */
            o->after_given = 1;
            o->after_probe = o->after_refine = 0;
            if (strcmp(optarg, "none") == 0)
                break;
            char *copy = strdup(optarg), *save = NULL;
            for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                if (strcmp(item, "probe") == 0) {
                    o->after_probe = 1;
                } else if (strcmp(item, "refine") == 0) {
                    o->after_refine = 1;
                } else {
                    snprintf(err, errlen, "cannot read --after '%s'; give probe, refine, probe,refine or none", optarg);
                    free(copy);
                    return -1;
                }
            }
            free(copy);
            break;
        }
        case 'A': {
            char *copy = strdup(optarg), *save = NULL;
            for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                if (o->nactive == MP_MAX_ACTIVE || scan_long(item, 1, INT_MAX, &value)) {
                    snprintf(err, errlen, "cannot read --active '%s'; list concurrent-pair counts like 1,2,4", optarg);
                    free(copy);
                    return -1;
                }
                o->active[o->nactive++] = (int)value;
            }
            free(copy);
            break;
        }
        case 'C': o->test_corrupt = atoll(optarg); break;
        case 'h': usage(); return 1;
        case ':':
            snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
            return -1;
        default:
            snprintf(err, errlen, "unknown option %s; run with --help", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'; run with --help", argv[optind]);
        return -1;
    }
    if (o->append && o->overwrite) {
        snprintf(err, errlen, "--append adds to the run file and --overwrite replaces it; give one of them");
        return -1;
    }
    if (np_given && !o->list_patterns) {
        snprintf(err, errlen, "--np is for --list-patterns; the launcher sets the number of ranks (mpiexec -n N)");
        return -1;
    }
    if (o->iteration_barrier && o->iterations_per_sample > 1) {
        snprintf(err, errlen, "--iteration-barrier times one call per sample; drop --iterations-per-sample %ld",
                 o->iterations_per_sample);
        return -1;
    }
    if (o->min_samples > o->max_samples) {
        snprintf(err, errlen, "--min-samples %ld is above --max-samples %ld", o->min_samples, o->max_samples);
        return -1;
    }
    if (o->npatterns == 0)
        o->patterns[o->npatterns++] = "pingpong";
    o->sizes = malloc(MP_MAX_SIZES * sizeof *o->sizes);
    if (!o->sizes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (units_scan_sizes(sizes, o->sizes, MP_MAX_SIZES, &o->nsizes, err, errlen))
        return -1;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > INT_MAX) {
            snprintf(err, errlen, "size %lld is beyond 2^31-1 bytes, the largest MPI count of one MPI_BYTE message; use smaller sizes",
                     o->sizes[i]);
            return -1;
        }
    return 0;
}

int options_active_chosen(const struct mp_options *o, int active)
{
    if (o->nactive == 0)
        return 1;
    for (int i = 0; i < o->nactive; i++)
        if (o->active[i] == active)
            return 1;
    return 0;
}

void options_free(struct mp_options *o)
{
    free(o->sizes);
    o->sizes = NULL;
}

const char *options_buffer_name(enum mp_buffer_mode mode)
{
    return mode == MP_BUFFER_INPLACE ? "inplace" : "separate";
}
