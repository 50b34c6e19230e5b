/* Page faults inside the large collectives, and what one costs on this node.
 *
 * An MPI that allocates a temporary buffer per call (MPICH's generic reduce and allreduce do)
 * gets it from mmap when it is above glibc's mmap threshold and gives it back at the end of the
 * call, so every call faults its pages in again: the PRK's 512 KiB MPI_Reduce ran 3.4-3.9x as
 * long as with the pages kept (bench/RESULTS.md §31). The profiler counts the minor faults of a sample of
 * the calls of at least FAULT_BYTES, one in 8 pseudo-randomly (xorshift, the same sequence in
 * every run; getrusage costs ~0.7 us on a VM, too much to read on every call; not every 8th, so
 * that no cycle of sizes aliases, and not the first calls, whose one-off faults would bias a
 * row's faults per call), and whether the thread was descheduled inside them (involuntary
 * context switches: a busy machine stretches the faults' time beyond a page's cost),
 * and at the end measures what a page costs here: mapped, first touched, unmapped, as such a
 * buffer is. docs/profile.md, "Page faults". */
#define _GNU_SOURCE  /* RUSAGE_THREAD: another thread's faults are not this call's */
#include "prof.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define FAULT_BYTES (64 * 1024)  /* below glibc's smallest mmap threshold (128 KiB): no buffer faults */

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD RUSAGE_SELF
#endif

static PROF_TLS uint64_t rng = 0x9E3779B97F4A7C15ull;  /* each thread its own sequence */

struct prof_usage prof_faults_begin(uint64_t bytes)
{
    const struct prof_usage none = {-1, 0};
    if (bytes < FAULT_BYTES)
        return none;
    rng ^= rng << 13;  /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (rng >> 61) == 0 ? prof_usage_now() : none;  /* the top 3 bits: one in 8 */
}

struct prof_usage prof_usage_now(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_THREAD, &u) != 0)
        return (struct prof_usage){-1, 0};
    return (struct prof_usage){(int64_t)u.ru_minflt, (int64_t)u.ru_nivcsw};
}

static int64_t page_cycle_ns(size_t pages, size_t page)
{
    int64_t t0 = mono_ns();
    char *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    for (size_t i = 0; i < pages; i++)
        p[i * page] = 1;
    munmap(p, pages * page);
    return mono_ns() - t0;
}

/* The median over 9 rounds of 256 pages (1 MiB of 4 KiB pages, ~5 ms in all on a VM; one round
 * alone moved by a third from run to run): what one page of a buffer mapped, first touched and
 * unmapped costs; 0 when it could not be measured. */
double prof_page_fault_ns(void)
{
    enum { PAGES = 256, ROUNDS = 9 };
    long page = sysconf(_SC_PAGESIZE);
    int64_t t[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        t[r] = page_cycle_ns(PAGES, page > 0 ? (size_t)page : 4096);
        if (t[r] < 0)
            return 0.0;
        for (int k = r; k > 0 && t[k] < t[k - 1]; k--) {
            int64_t x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    }
    return (double)t[ROUNDS / 2] / PAGES;
}
