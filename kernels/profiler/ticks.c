/* The profiler's clock: the TSC read directly where it is invariant, else
 * clock_gettime(CLOCK_MONOTONIC).
 *
 * clock_gettime costs two to three TSC reads (the vDSO reads the TSC and converts), and a
 * wrapped call reads the clock twice, so on x86 the wrappers read the TSC itself and convert
 * ticks to seconds only when the profile is written. That needs a TSC that ticks at one rate
 * whatever the core's frequency or sleep state, the same on every core: the kernel's
 * constant_tsc and nonstop_tsc flags in /proc/cpuinfo. The rate is calibrated against
 * CLOCK_MONOTONIC: a pair of readings at MPI_Init, a second pair 2 ms later (the rate the run
 * converts its sequence gap with), and a last pair at the end; the rate written is that of
 * the first and the last pair, so it spans the whole run. MSGPERF_PROFILE_CLOCK=monotonic
 * forces the fallback. docs/profile.md, "Time". */
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INIT_SPAN_NS 2000000   /* the first calibration: 2 ms, a rate good to about 1e-5 */
#define PAIR_TRIES 5

/* One (ticks, monotonic ns) pair: the tick read between two monotonic reads, the closest of
 * a few tries, dated at the middle of its two reads. */
static void pair(uint64_t *ticks, int64_t *ns)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < PAIR_TRIES; i++) {
        int64_t a = mono_ns();
        uint64_t t = prof_ticks();
        int64_t b = mono_ns();
        if (b - a < best) {
            best = b - a;
            *ticks = t;
            *ns = a + (b - a) / 2;
        }
    }
}

#ifdef PROF_TSC
/* The kernel's word on the TSC: both flags on the first "flags" line of /proc/cpuinfo. */
static int invariant_tsc(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0) {
            for (char *w = strtok(line + 5, " \t\n:"); w; w = strtok(NULL, " \t\n:")) {
                constant |= strcmp(w, "constant_tsc") == 0;
                nonstop |= strcmp(w, "nonstop_tsc") == 0;
            }
            break;
        }
    fclose(f);
    return constant && nonstop;
}
#endif

static int64_t read_cost_ns(void)
{
    int64_t a = mono_ns();
    uint64_t sink = 0;
    for (int i = 0; i < 1000; i++)
        sink += prof_ticks();
    __asm__ volatile("" : : "r"(sink));  /* keep the reads */
    return (mono_ns() - a) / 1000;
}

void ticks_start(void)
{
    const char *force = getenv("MSGPERF_PROFILE_CLOCK");
    P.tsc = 0;
#ifdef PROF_TSC
    P.tsc = !(force && strcmp(force, "monotonic") == 0) && invariant_tsc();
#else
    (void)force;
#endif
    pair(&P.cal_ticks0, &P.cal_ns0);
    if (P.tsc) {
        uint64_t t;
        int64_t ns;
        do
            pair(&t, &ns);
        while (ns - P.cal_ns0 < INIT_SPAN_NS);
        P.ticks_per_ns_init = (double)(t - P.cal_ticks0) / (double)(ns - P.cal_ns0);
        if (!(t > P.cal_ticks0 && P.ticks_per_ns_init > 0.05 && P.ticks_per_ns_init < 20)) {
            P.tsc = 0;  /* not a TSC between 50 MHz and 20 GHz that moves forward: do not trust it */
            pair(&P.cal_ticks0, &P.cal_ns0);
        }
    }
    if (!P.tsc)
        P.ticks_per_ns_init = 1.0;
    P.ticks_per_ns = P.ticks_per_ns_init;
    P.clock_read_ns = read_cost_ns();
}

/* The last pair: the rate over the whole run (never shorter than the first calibration). */
void ticks_end(void)
{
    uint64_t t;
    int64_t ns;
    pair(&t, &ns);
    P.cal_span_ns = ns - P.cal_ns0;
    if (P.tsc && P.cal_span_ns > 0 && t > P.cal_ticks0)
        P.ticks_per_ns = (double)(t - P.cal_ticks0) / (double)P.cal_span_ns;
}

int64_t ticks_to_ns(uint64_t ticks)
{
    return (int64_t)((double)ticks / P.ticks_per_ns + 0.5);
}

uint64_t ns_to_ticks(int64_t ns)
{
    return (uint64_t)((double)ns * P.ticks_per_ns_init + 0.5);
}

const char *ticks_clock_name(void)
{
    return P.tsc ? "tsc" : "clock_gettime(CLOCK_MONOTONIC)";
}
