/* Where the time inside MPI is spent: per call site (the return address of a wrapped call,
 * resolved to file:line by msgperf, not here) and, for the collectives, per (call,
 * communicator size, bytes), which is what a collective's model needs to predict it.
 * Both are fixed tables allocated at MPI_Init; a site or a collective that finds its table
 * full is summed apart (sites_other_*, colls_other_*), so nothing is lost from the totals. */
#define _GNU_SOURCE 1  /* dladdr */
#include "prof.h"

#include <dlfcn.h>
#include <errno.h>  /* program_invocation_name */
#include <stdlib.h>
#include <string.h>

const char *const call_kind_name[K_COUNT] = {
    "point-to-point", "wait/test", "collective", "one-sided", "probe",
    "communicator/datatype", "other MPI",
};

int prof_sites_init(void)
{
    P.sites = calloc(SITES, sizeof *P.sites);
    P.colls = calloc(COLL_SLOTS, sizeof *P.colls);
    return !P.sites || !P.colls;
}

/* dladdr names the program as it was started ("./app", or "app" found on PATH): relative to the
 * program's directory, which msgperf reading the profile elsewhere does not know. The program is
 * then /proc/self/exe, any other relative name the file it names now; resolved once per object
 * (new sites are rare), kept for the run; the name as given where it cannot be resolved. */
static const char *absolute_object(const char *name)
{
    static const char *last_name, *last_path;
    if (name[0] == '/' || !name[0])
        return name;
    if (name == last_name)
        return last_path;
    char *path = strcmp(name, program_invocation_name) == 0 ? realpath("/proc/self/exe", NULL) : NULL;
    if (!path)
        path = realpath(name, NULL);
    last_name = name;
    last_path = path ? path : name;
    return last_path;
}

/* A site not in its home slot: probe on; a new site notes its object (dladdr, once). */
void prof_site_slow(const void *addr, int call, uint64_t ticks)
{
    uintptr_t a = (uintptr_t)addr;
    if (!P.sites || !a) {
        P.sites_other_n++;
        P.sites_other_ticks += ticks;
        return;
    }
    size_t home = (size_t)((a ^ (a >> 12)) * 0x9E3779B97F4A7C15ull >> 54);
    for (size_t k = 0; k < 16; k++) {  /* a short probe: beyond it, the table is as good as full */
        struct site *s = &P.sites[(home + k) % SITES];
        if (s->addr == a) {
            s->n++;
            s->ticks += ticks;
            return;
        }
        if (!s->addr) {
            Dl_info info;
            s->addr = a;
            s->call = call;
            s->n = 1;
            s->ticks = ticks;
            if (dladdr(addr, &info) && info.dli_fname) {
                s->object = absolute_object(info.dli_fname);
                s->base = (uintptr_t)info.dli_fbase;
            }
            P.slow = 1;  /* dladdr's time is not the application's gap */
            return;
        }
    }
    P.sites_other_n++;
    P.sites_other_ticks += ticks;
}

int comm_size_of(MPI_Comm comm)
{
    int size = 0, inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(comm, &size);
    else
        PMPI_Comm_size(comm, &size);
    return size;
}

/* The predefined types a reduction's γ can be told for; the rest are "other". */
static const char *const datatype_names[] = {
    "MPI_DOUBLE", "MPI_FLOAT", "MPI_INT", "MPI_LONG", "MPI_LONG_LONG", "MPI_UNSIGNED", "MPI_UNSIGNED_LONG",
    "MPI_UNSIGNED_CHAR", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_SHORT", "MPI_DOUBLE_PRECISION", "MPI_REAL",
    "MPI_INTEGER",
};

static int datatype_code(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return 0;
    const MPI_Datatype known[] = {
        MPI_DOUBLE, MPI_FLOAT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_CHAR, MPI_CHAR, MPI_SIGNED_CHAR, MPI_SHORT, MPI_DOUBLE_PRECISION, MPI_REAL, MPI_INTEGER,
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (type == known[i])
            return (int)i + 1;
    return DATATYPE_OTHER;
}

const char *prof_datatype_name(int datatype)
{
    if (datatype == DATATYPE_OTHER)
        return "other";
    if (datatype == DATATYPE_MIXED)
        return "mixed";
    if (datatype > 0 && (size_t)datatype <= sizeof datatype_names / sizeof datatype_names[0])
        return datatype_names[datatype - 1];
    return NULL;
}

void prof_coll(enum call_id call, MPI_Comm comm, uint64_t bytes, uint64_t ticks, int64_t faults,
               int64_t preempted, MPI_Datatype reduced)
{
    int size = comm_size_of(comm);
    int datatype = datatype_code(reduced);
    P.calls[call].bytes += bytes;
    uint64_t h = ((uint64_t)call * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)size * 0xC2B2AE3D27D4EB4Full)
                 ^ (bytes * 0x165667B19E3779F9ull);
    size_t home = (size_t)(h >> 56);  /* 8 bits: COLL_SLOTS */
    for (size_t k = 0; k < 16 && P.colls; k++) {
        struct coll_stat *c = &P.colls[(home + k) % COLL_SLOTS];
        if (c->call == (int)call && c->comm_size == size && c->bytes == bytes) {
            c->n++;
            c->ticks += ticks;
            if (c->datatype != datatype)
                c->datatype = DATATYPE_MIXED;
            if (faults >= 0) {
                c->faults_n++;
                c->faults += (uint64_t)faults;
                c->faulted_n += faults > 0;
                c->preempted_n += preempted > 0;
            }
            return;
        }
        if (!c->call) {
            *c = (struct coll_stat){.call = call, .comm_size = size, .bytes = bytes, .n = 1, .ticks = ticks,
                                    .faults_n = faults >= 0, .faults = faults >= 0 ? (uint64_t)faults : 0,
                                    .faulted_n = faults > 0, .preempted_n = faults >= 0 && preempted > 0,
                                    .datatype = datatype};
            return;
        }
    }
    P.colls_other_n++;
    P.colls_other_ticks += ticks;
}
