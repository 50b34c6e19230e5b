/* The profile file (docs/profile.md): a "profile" header record, then one "rank" record per
 * rank, JSON Lines. At MPI_Finalize every rank turns its tables into its record, the records
 * are gathered on world rank 0 (PMPI calls on the profiler's own communicator) and rank 0
 * writes the file to a temporary name and links it to its place, so that an existing file is
 * never replaced. A rank that ends without MPI_Finalize (exit, MPI_Abort, a signal: signals.c)
 * writes its own record to <output>.rank<N>.
 *
 * That last path runs in a signal handler, so the records are formatted here by hand, with
 * async-signal-safe calls only (no printf family, no stdio, no allocation: a partial record
 * streams to its file through a fixed buffer); whatever the header needs from MPI or /proc is
 * gathered at MPI_Init (output_start). */
#include "prof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct buf {
    char *p;
    size_t n, cap;
    int failed;
    int stream;  /* 1: p is a fixed buffer, written to fd whenever it is full */
    int fd;
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void put(struct buf *b, const char *s, size_t len)
{
    if (b->failed)
        return;
    if (b->stream) {
        while (len) {
            if (b->n == b->cap) {
                if (write_all(b->fd, b->p, b->n)) {
                    b->failed = 1;
                    return;
                }
                b->n = 0;
            }
            size_t k = len < b->cap - b->n ? len : b->cap - b->n;
            memcpy(b->p + b->n, s, k);
            b->n += k;
            s += k;
            len -= k;
        }
        return;
    }
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->n + len + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = '\0';
}

#define PUT(b, literal) put((b), literal, sizeof(literal) - 1)

/* `v` in `base`, at least `width` digits */
static void put_unsigned(struct buf *b, unsigned long long v, int width, unsigned base)
{
    char digits[64];
    int n = 0;
    do {
        digits[sizeof digits - 1 - n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && n < (int)sizeof digits);
    while (n < width && n < (int)sizeof digits)
        digits[sizeof digits - 1 - n++] = '0';
    put(b, digits + sizeof digits - n, (size_t)n);
}

static void put_signed(struct buf *b, long long v)
{
    if (v < 0) {
        PUT(b, "-");
        put_unsigned(b, 0ull - (unsigned long long)v, 0, 10);
    } else {
        put_unsigned(b, (unsigned long long)v, 0, 10);
    }
}

/* printf's %d, %ld, %lld, %u, %lu, %llu, %s, %c and %0Nx/%0Nu, without the printf family
 * (not async-signal-safe: it may allocate or take locks). */
static void putf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') {
            const char *text = f;
            while (f[1] && f[1] != '%')
                f++;
            put(b, text, (size_t)(f - text + 1));
            continue;
        }
        int width = 0, longs = 0;
        if (*++f == '0')
            while (*++f >= '0' && *f <= '9')
                width = width * 10 + (*f - '0');
        while (*f == 'l') {
            longs++;
            f++;
        }
        switch (*f) {
        case 'd':
            put_signed(b, longs == 2 ? va_arg(ap, long long) : longs ? va_arg(ap, long) : va_arg(ap, int));
            break;
        case 'u':
        case 'x':
            put_unsigned(b, longs == 2 ? va_arg(ap, unsigned long long)
                            : longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned),
                         width, *f == 'x' ? 16 : 10);
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            put(b, s, strlen(s));
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            put(b, &c, 1);
            break;
        }
        default:  /* '%' */
            put(b, f, 1);
        }
        if (!*f)
            break;
    }
    va_end(ap);
}

static void put_string(struct buf *b, const char *s)
{
    PUT(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            putf(b, "\\%c", *c);
        else if (*c < 0x20)
            putf(b, "\\u%04x", *c);
        else
            put(b, (const char *)c, 1);
    }
    PUT(b, "\"");
}

/* Whole units, then up to 9 decimals without trailing zeros (at least one): ns nanoseconds
 * print as the exact decimal of ns / 1e9, which a reader parses to the same double. */
static void put_fixed9(struct buf *b, unsigned long long whole, unsigned long long nano)
{
    put_unsigned(b, whole, 0, 10);
    PUT(b, ".");
    int digits = 9;
    while (digits > 1 && nano % 10 == 0) {
        nano /= 10;
        digits--;
    }
    put_unsigned(b, nano, digits, 10);
}

static void put_seconds(struct buf *b, const char *name, int64_t ns)
{
    putf(b, ",\"%s\":", name);
    unsigned long long magnitude = ns < 0 ? 0ull - (unsigned long long)ns : (unsigned long long)ns;
    if (ns < 0)
        PUT(b, "-");
    put_fixed9(b, magnitude / 1000000000ull, magnitude % 1000000000ull);
}

/* A clock rate (ticks per second: 5e7 to 2e10), to 1e-9 of a tick per second. */
static void put_rate(struct buf *b, const char *name, double per_s)
{
    putf(b, ",\"%s\":", name);
    if (!(per_s >= 0 && per_s < 1e18))
        per_s = 0;
    unsigned long long whole = (unsigned long long)per_s;
    unsigned long long nano = (unsigned long long)((per_s - (double)whole) * 1e9 + 0.5);
    if (nano >= 1000000000ull) {
        whole++;
        nano -= 1000000000ull;
    }
    put_fixed9(b, whole, nano);
}

/* "2026-11-27T18:10:00Z" without gmtime_r (which takes a lock): days to a civil date as in
 * H. Hinnant, "chrono-Compatible Low-Level Date Algorithms". */
static void put_iso_time(struct buf *b, const struct timespec *t)
{
    long long s = t->tv_sec, days = s / 86400, sec = s % 86400;
    if (sec < 0) {
        sec += 86400;
        days--;
    }
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    long long year = (long long)yoe + era * 400 + (month <= 2);
    putf(b, "\"%04llu-%02u-%02uT%02u:%02u:%02uZ\"", (unsigned long long)year, month, day,
         (unsigned)(sec / 3600), (unsigned)(sec / 60 % 60), (unsigned)(sec % 60));
}

/* This rank's clock: which, its calibration (the header's clock is rank 0's). */
static void put_clock(struct buf *b)
{
    PUT(b, ",\"clock\":");
    put_string(b, ticks_clock_name());
    put_rate(b, "clock_ticks_per_s", P.ticks_per_ns * 1e9);
    put_rate(b, "clock_ticks_per_s_at_init", P.ticks_per_ns_init * 1e9);
    put_seconds(b, "clock_calibration_s", P.cal_span_ns);
    put_seconds(b, "clock_read_s", P.clock_read_ns);
}

/* ---- the rank record ------------------------------------------------------------------- */

static void put_sizes(struct buf *b, const struct size_stats *s)
{
    /* exact sizes, most frequent first */
    int order[SIZE_SLOTS];
    for (int i = 0; i < s->nsizes; i++) {
        int j = i;
        while (j > 0 && s->size_count[order[j - 1]] < s->size_count[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    PUT(b, ",\"sizes\":[");
    for (int i = 0; i < s->nsizes; i++)
        putf(b, "%s[%llu,%llu]", i ? "," : "", (unsigned long long)s->size[order[i]],
             (unsigned long long)s->size_count[order[i]]);
    putf(b, "],\"other_count\":%llu,\"other_bytes\":%llu,\"log2\":[",
         (unsigned long long)s->other_count, (unsigned long long)s->other_bytes);
    int first = 1;
    for (int k = 0; k < LOG2_BUCKETS; k++)
        if (s->log2[k]) {
            unsigned long long low = k == 0 ? 0 : 1ull << (k - 1);
            putf(b, "%s[%llu,%llu]", first ? "" : ",", low, (unsigned long long)s->log2[k]);
            first = 0;
        }
    PUT(b, "]");
}

static void put_messages(struct buf *b)
{
    PUT(b, ",\"messages\":[");
    int first = 1;
    for (int w = 0; w < P.size; w++) {
        const struct peer *p = P.peers[w];
        if (!p)
            continue;
        for (int k = 0; k < MK_COUNT; k++) {
            const struct size_stats *s = p->kind[k];
            if (!s)
                continue;
            putf(b, "%s{\"peer\":%d,\"direction\":\"%s\",\"kind\":\"%s\",\"count\":%llu,\"bytes\":%llu",
                 first ? "" : ",", w, msg_kind_is_recv[k] ? "recv" : "send", msg_kind_name[k],
                 (unsigned long long)s->count, (unsigned long long)s->bytes);
            put_sizes(b, s);
            PUT(b, "}");
            first = 0;
        }
    }
    PUT(b, "]");
}

static void put_shape(struct buf *b, const struct shape *sh, int first)
{
    const struct run *r = &sh->run;
    putf(b, "%s{\"count\":%llu,\"length\":%llu,\"bytes\":%llu,\"min_bytes\":%llu,\"max_bytes\":%llu,\"kinds\":[",
         first ? "" : ",", (unsigned long long)sh->count, (unsigned long long)r->length,
         (unsigned long long)r->bytes, (unsigned long long)r->min_bytes, (unsigned long long)r->max_bytes);
    int k1 = 1;
    for (int k = 0; k < MK_COUNT; k++)
        if (r->kinds & (1u << k)) {
            putf(b, "%s\"%s\"", k1 ? "" : ",", msg_kind_name[k]);
            k1 = 0;
        }
    if (r->nsizes > RUN_SIZES) {
        PUT(b, "],\"sizes\":null}");
        return;
    }
    PUT(b, "],\"sizes\":[");
    for (int i = 0; i < r->nsizes; i++)
        putf(b, "%s[%llu,%llu]", i ? "," : "", (unsigned long long)r->size[i],
             (unsigned long long)r->size_count[i]);
    PUT(b, "]}");
}

static void put_sequences(struct buf *b)
{
    PUT(b, ",\"sequences\":[");
    int first = 1;
    for (int w = 0; w < P.size; w++) {
        const struct peer *p = P.peers[w];
        if (!p || !p->seq_count)
            continue;
        putf(b, "%s{\"peer\":%d,\"count\":%llu,\"messages\":%llu,\"bytes\":%llu,\"shapes\":[",
             first ? "" : ",", w, (unsigned long long)p->seq_count,
             (unsigned long long)p->seq_messages, (unsigned long long)p->seq_bytes);
        for (int i = 0; i < p->nshapes; i++)
            put_shape(b, &p->shapes[i], i == 0);
        putf(b, "],\"other_count\":%llu,\"other_messages\":%llu,\"other_bytes\":%llu,\"other_max_length\":%llu}",
             (unsigned long long)p->other_count, (unsigned long long)p->other_messages,
             (unsigned long long)p->other_bytes, (unsigned long long)p->other_max_length);
        first = 0;
    }
    PUT(b, "]");
}

static void put_ticks(struct buf *b, const char *name, uint64_t ticks)
{
    put_seconds(b, name, ticks_to_ns(ticks));
}

static void put_call(struct buf *b, int first, const char *name, int kind, const struct call_stat *c)
{
    putf(b, "%s\"%s\":{\"n\":%llu", first ? "" : ",", name, (unsigned long long)c->n);
    put_ticks(b, "time_s", c->ticks);
    putf(b, ",\"kind\":\"%s\",\"bytes\":%llu}", call_kind_name[kind], (unsigned long long)c->bytes);
}

static const char *site_call_name(int call)
{
    return call < C_COUNT ? call_name[call] : prof_other_name[call - C_COUNT];
}

/* The TOP_SITES sites with the most time, by selection (no qsort: this also runs in a
 * signal handler), then what the table could not hold. */
#define TOP_SITES 32
static void put_sites(struct buf *b)
{
    PUT(b, ",\"sites\":[");
    uint64_t shown_n = 0, shown_ticks = 0, total_n = P.sites_other_n, total_ticks = P.sites_other_ticks;
    int picked[TOP_SITES], npicked = 0;
    for (int i = 0; P.sites && i < SITES; i++)
        if (P.sites[i].addr) {
            total_n += P.sites[i].n;
            total_ticks += P.sites[i].ticks;
        }
    while (P.sites && npicked < TOP_SITES) {
        int best = -1;
        for (int i = 0; i < SITES; i++) {
            const struct site *s = &P.sites[i];
            int taken = 0;
            for (int k = 0; k < npicked && !taken; k++)
                taken = picked[k] == i;
            if (s->addr && !taken && (best < 0 || s->ticks > P.sites[best].ticks))
                best = i;
        }
        if (best < 0)
            break;
        picked[npicked++] = best;
        const struct site *s = &P.sites[best];
        putf(b, "%s{\"call\":\"%s\",\"object\":", npicked > 1 ? "," : "", site_call_name(s->call));
        if (s->object)
            put_string(b, s->object);
        else
            PUT(b, "null");
        putf(b, ",\"offset\":%llu,\"n\":%llu", (unsigned long long)(s->object ? s->addr - s->base : s->addr),
             (unsigned long long)s->n);
        put_ticks(b, "time_s", s->ticks);
        PUT(b, "}");
        shown_n += s->n;
        shown_ticks += s->ticks;
    }
    putf(b, "],\"sites_other_n\":%llu", (unsigned long long)(total_n - shown_n));
    put_ticks(b, "sites_other_time_s", total_ticks - shown_ticks);
}

static void put_collectives(struct buf *b)
{
    PUT(b, ",\"collectives\":[");
    int first = 1;
    for (int i = 0; P.colls && i < COLL_SLOTS; i++) {
        const struct coll_stat *c = &P.colls[i];
        if (!c->call)
            continue;
        putf(b, "%s{\"call\":\"%s\",\"comm_size\":%d,\"bytes\":%llu,\"n\":%llu", first ? "" : ",",
             call_name[c->call], c->comm_size, (unsigned long long)c->bytes, (unsigned long long)c->n);
        put_ticks(b, "time_s", c->ticks);
        putf(b, ",\"faults_n\":%llu,\"faults\":%llu,\"faulted_n\":%llu,\"preempted_n\":%llu,\"datatype\":",
             (unsigned long long)c->faults_n, (unsigned long long)c->faults, (unsigned long long)c->faulted_n,
             (unsigned long long)c->preempted_n);
        if (prof_datatype_name(c->datatype))
            put_string(b, prof_datatype_name(c->datatype));
        else
            PUT(b, "null");
        PUT(b, "}");
        first = 0;
    }
    putf(b, "],\"collectives_other_n\":%llu", (unsigned long long)P.colls_other_n);
    put_ticks(b, "collectives_other_time_s", P.colls_other_ticks);
}

/* What a page costs here, measured only where a counted collective faulted (faults.c); not
 * in a record a signal ends (mmap is not for a signal handler). */
static void put_page_fault(struct buf *b, int measure)
{
    int faulted = 0;
    for (int i = 0; measure && P.colls && i < COLL_SLOTS; i++)
        faulted |= P.colls[i].call && P.colls[i].faults > 0;
    double ns = faulted ? prof_page_fault_ns() : 0.0;
    if (ns > 0)
        put_seconds(b, "page_fault_s", (int64_t)(ns + 0.5));
    else
        PUT(b, ",\"page_fault_s\":null");
}

static void rank_record(struct buf *b, const char *ended_by, uint64_t t_end, int finalized)
{
    putf(b, "{\"type\":\"rank\",\"rank\":%d,\"host\":", P.rank);
    put_string(b, P.host);
    putf(b, ",\"pid\":%ld,\"ended_by\":", (long)getpid());
    put_string(b, ended_by);
    put_ticks(b, "wall_s", t_end - P.t_init);
    put_ticks(b, "mpi_time_s", P.mpi_ticks);
    put_ticks(b, "wait_time_s", P.wait_ticks);
    PUT(b, ",\"calls\":{");
    int first = 1;
    for (int c = 0; c < C_COUNT; c++)
        if (P.calls[c].n) {
            put_call(b, first, call_name[c], call_kind_of((enum call_id)c), &P.calls[c]);
            first = 0;
        }
    for (int i = 0; i < prof_other_count; i++)
        if (prof_other_stat[i].n) {
            put_call(b, first, prof_other_name[i], prof_other_kind[i], &prof_other_stat[i]);
            first = 0;
        }
    PUT(b, "}");
    put_sites(b);
    put_collectives(b);
    put_messages(b);
    put_sequences(b);
    putf(b, ",\"proc_null\":%llu,\"unknown_peer\":%llu,\"untracked_requests\":%llu",
         (unsigned long long)P.proc_null, (unsigned long long)P.unknown_peer,
         (unsigned long long)P.requests_untracked);
    put_clock(b);
    put_page_fault(b, finalized);
    PUT(b, "}\n");
}

/* ---- the header ------------------------------------------------------------------------ */

/* What the header needs from MPI and /proc, gathered at MPI_Init (see the top of the file). */
static char library[16384];
static int mpi_version, mpi_subversion;
static struct buf argv_json;
static char part_path[4200], part_tmp[4300];

static void put_argv(struct buf *b)
{
    PUT(b, "[");
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (f) {
        static char cmd[65536];
        size_t n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        cmd[n] = '\0';
        for (size_t i = 0; i < n; i += strlen(cmd + i) + 1) {
            if (i)
                PUT(b, ",");
            put_string(b, cmd + i);
        }
    }
    PUT(b, "]");
}

void output_start(void)
{
    int len = 0;
    PMPI_Get_library_version(library, &len);
    PMPI_Get_version(&mpi_version, &mpi_subversion);
    while (len > 0 && (library[len - 1] == '\n' || library[len - 1] == ' ' || library[len - 1] == '\0'))
        library[--len] = '\0';
    put_argv(&argv_json);
    snprintf(part_path, sizeof part_path, "%s.rank%d", P.output, P.rank);
    snprintf(part_tmp, sizeof part_tmp, "%s.tmp.%ld", part_path, (long)getpid());
    /* <output>.started tells msgperf that the program reached MPI_Init under the profiler, so
     * that a run without any record is told apart from one that never started recording. */
    char started[4200];
    snprintf(started, sizeof started, "%s.started", P.output);
    int fd = open(started, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
}

static const char *thread_level_name(int level)
{
    return level == MPI_THREAD_MULTIPLE ? "multiple"
         : level == MPI_THREAD_SERIALIZED ? "serialized"
         : level == MPI_THREAD_FUNNELED ? "funneled" : "single";
}

/* hosts: nranks names of stride `stride`, or NULL (a rank's own file: its host only) */
static void header(struct buf *b, const char *hosts, int stride, const struct timespec *end, int complete)
{
    PUT(b, "{\"type\":\"profile\",\"format\":\"msgperf-profile\",\"format_version\":4,\"profiler_version\":");
    put_string(b, MSGPERF_VERSION);
    PUT(b, ",\"argv\":");
    if (argv_json.failed || !argv_json.n)
        PUT(b, "[]");
    else
        put(b, argv_json.p, argv_json.n);
    PUT(b, ",\"mpi_library\":");
    put_string(b, library);
    putf(b, ",\"mpi_version\":\"%d.%d\",\"nranks\":%d,\"hosts\":[", mpi_version, mpi_subversion, P.size);
    for (int r = 0; hosts && r < P.size; r++) {
        if (r)
            PUT(b, ",");
        put_string(b, hosts + (size_t)r * (size_t)stride);
    }
    PUT(b, "],\"start_time\":");
    put_iso_time(b, &P.real_start);
    PUT(b, ",\"end_time\":");
    put_iso_time(b, end);
    putf(b, ",\"thread_level\":\"%s\"", thread_level_name(P.thread_level));
    PUT(b, ",\"clock\":");
    put_string(b, ticks_clock_name());
    put_seconds(b, "clock_read_s", P.clock_read_ns);
    put_seconds(b, "sequence_gap_s", P.gap_ns);
    putf(b, ",\"complete\":%s}\n", complete ? "true" : "false");
}

/* ---- writing --------------------------------------------------------------------------- */

/* Write `text` to a temporary file beside `path`, then link it there: a file that exists
 * already is never replaced (the next free "<path>.<n>" is used, and said). */
static void publish(const char *path, const char *text, size_t n)
{
    char tmp[4200], final[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write_all(fd, text, n) || fsync(fd) || close(fd)) {
        fprintf(stderr, "msgperf profile: cannot write %s: %s; the profile is lost\n", tmp, strerror(errno));
        if (fd >= 0)
            unlink(tmp);
        return;
    }
    snprintf(final, sizeof final, "%s", path);
    for (int i = 2; link(tmp, final) != 0; i++) {
        if (errno != EEXIST || i > 1000) {
            fprintf(stderr, "msgperf profile: cannot create %s: %s; the profile is in %s\n", final,
                    strerror(errno), tmp);
            return;
        }
        snprintf(final, sizeof final, "%s.%d", path, i);
    }
    unlink(tmp);
    if (strcmp(final, path) != 0)
        fprintf(stderr, "msgperf profile: %s exists; the profile is in %s\n", path, final);
}

void output_finalize(void)
{
    uint64_t t_end = prof_ticks();
    ticks_end();
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    struct buf mine = {0};
    rank_record(&mine, "MPI_Finalize", t_end, 1);
    /* Our own communicator for the gather, made now that the program's run is over (see record.c), by a
     * split: a dup would run the program's attribute copy and delete callbacks on it. */
    if (PMPI_Comm_split(MPI_COMM_WORLD, 0, P.rank, &P.comm) != MPI_SUCCESS)
        P.comm = MPI_COMM_WORLD;
    int len = mine.failed ? 0 : (int)mine.n;
    int *lens = NULL, *offs = NULL;
    char *all = NULL, *hosts = NULL;
    const int stride = MPI_MAX_PROCESSOR_NAME + 1;
    if (P.rank == 0) {
        lens = calloc((size_t)P.size, sizeof *lens);
        offs = calloc((size_t)P.size, sizeof *offs);
        hosts = calloc((size_t)P.size, (size_t)stride);
    }
    PMPI_Gather(P.host, stride, MPI_CHAR, hosts, stride, MPI_CHAR, 0, P.comm);
    PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, P.comm);
    size_t total = 0;
    if (P.rank == 0) {
        for (int r = 0; r < P.size; r++) {
            offs[r] = (int)total;
            total += (size_t)lens[r];
        }
        all = malloc(total + 1);
    }
    PMPI_Gatherv(mine.p ? mine.p : "", len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, P.comm);
    if (P.rank == 0) {
        struct buf file = {0};
        int complete = 1;
        for (int r = 0; r < P.size; r++)
            complete &= lens[r] > 0;
        header(&file, hosts, stride, &end, complete);
        put(&file, all, total);
        if (file.failed)
            fprintf(stderr, "msgperf profile: out of memory writing the profile; it is lost\n");
        else
            publish(P.output, file.p, file.n);
        free(file.p);
    }
    if (P.comm != MPI_COMM_WORLD)
        PMPI_Comm_free(&P.comm);
    free(mine.p);
    free(lens);
    free(offs);
    free(all);
    free(hosts);
    P.done = 1;
}

/* libc's strerror is not async-signal-safe: these lines name the file only. */
static void say(const char *a, const char *b, const char *c)
{
    struct buf line = {.p = (char[512]){0}, .cap = 512, .stream = 1, .fd = 2};
    putf(&line, "msgperf profile: %s%s%s\n", a, b, c);
    if (!line.failed)
        write_all(2, line.p, line.n);
}

void output_partial(const char *ended_by)
{
    if (P.done)
        return;
    P.done = 1;
    uint64_t t_end = prof_ticks();
    ticks_end();
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    static char chunk[1 << 16];
    int fd = open(part_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        say("cannot create ", part_tmp, "; this rank's part is lost");
        return;
    }
    struct buf b = {.p = chunk, .cap = sizeof chunk, .stream = 1, .fd = fd};
    header(&b, NULL, 0, &end, 0);
    rank_record(&b, ended_by, t_end, 0);
    if (!b.failed && b.n && write_all(fd, b.p, b.n))
        b.failed = 1;
    if (b.failed | fsync(fd) | close(fd)) {
        say("cannot write ", part_tmp, "; this rank's part is lost");
        unlink(part_tmp);
        return;
    }
    if (link(part_tmp, part_path) != 0) {  /* never replaces a file */
        say("cannot create ", part_path, "; this rank's part is left in its .tmp file");
        return;
    }
    unlink(part_tmp);
}
