#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "json.h"
#include "patterns.h"

#ifndef MSGPERF_VERSION /* written once, in src/msgperf/__init__.py: kernels/Makefile and msgperf build pass it */
#error "define MSGPERF_VERSION (make -C kernels does)"
#endif

extern char **environ;

/* The environment that explains MPI behaviour (tuning knobs, batch system). */
static const char *const env_prefixes[] = {
    "MPICH_", "MPIR_CVAR_", "MPIEXEC_", "HYDRA_", "OMPI_", "PMIX_", "UCX_", "FI_", "I_MPI_",
    "SLURM_", "PMI_", "MV2_",
};

/* A full disk or a lost file shows here: 0 when the record reached the kernel, else -1. */
static int record_flush(FILE *f)
{
    return (fflush(f) != 0 || ferror(f)) ? -1 : 0;
}

void record_utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int record_run(FILE *f, const struct mp_options *o, const struct mp_run_info *info)
{
    char now[32];
    record_utc_now(now, sizeof now);
    fprintf(f, "{\"type\":\"run\",\"format\":\"msgperf-run\",\"format_version\":%d,"
               "\"msgperf_version\":", MP_FORMAT_VERSION);
    json_string(f, MSGPERF_VERSION);
    fputs(",\"command_line\":", f);
    json_string(f, info->command_line);
    fprintf(f, ",\"start_time\":\"%s\",\"source\":\"msgperf\",\"plan\":{\"patterns\":[", now);
    for (int i = 0; i < o->npatterns; i++) {
        if (i)
            fputc(',', f);
        json_string(f, o->patterns[i]);
    }
    fputs("],\"sizes\":[", f);
    for (int i = 0; i < o->nsizes; i++)
        fprintf(f, "%s%lld", i ? "," : "", o->sizes[i]);
    fprintf(f, "],\"buffer\":\"%s\",\"pair\":[%d,%d],\"nranks\":%d,\"precision\":",
            options_buffer_name(o->buffer), info->pair_a, info->pair_b, info->nranks);
    json_double(f, o->precision);
    fputs(",\"time_budget_s\":", f);
    json_double(f, o->time_budget);
    fputs(",\"total_time_s\":", f);
    json_double(f, o->total_time);
    static const char *const placements[] = {"pair", "intra", "inter", "both"};
    fprintf(f, ",\"min_samples\":%ld,\"max_samples\":%ld,\"placement\":\"%s\",\"repeat\":%d,\"active\":[",
            o->min_samples, o->max_samples, placements[o->placement], o->repeat);
    for (int i = 0; i < o->nactive; i++)
        fprintf(f, "%s%d", i ? "," : "", o->active[i]);
    fputc(']', f);
    /* The collectives' methodology, defaults included, so that every run states it. */
    fprintf(f, ",\"root\":\"%s\",\"iteration_barrier\":%s,\"off_cache\":%s", o->rotate_root ? "rotate" : "0",
            o->iteration_barrier ? "true" : "false", o->off_cache ? "true" : "false");
    if (o->iterations_per_sample > 0) /* absent: k calibrated per measurement */
        fprintf(f, ",\"iterations_per_sample\":%ld", o->iterations_per_sample);
    if (o->after_given) /* absent: a file from before the field, or the kernels run by hand */
        fprintf(f, ",\"after\":[%s%s%s]", o->after_probe ? "\"probe\"" : "",
                o->after_probe && o->after_refine ? "," : "", o->after_refine ? "\"refine\"" : "");
    /* The planned patterns' catalog entries for this world size: what each record will be. */
    const struct mp_pattern *planned[MP_MAX_PATTERNS];
    for (int i = 0; i < o->npatterns; i++)
        planned[i] = patterns_find(o->patterns[i]);
    char err[128];
    fputs("},\"catalog\":", f);
    if (catalog_write(f, planned, o->npatterns, info->nranks, err, sizeof err))
        return -1;
    fputs("}\n", f);
    return record_flush(f);
}

/* The launch's machine: one object per host, then the MPI_T thresholds. An unknown number is
 * null, an unknown word "unknown": never a guess. */
static void machine_fields(FILE *f, const struct mp_launch_info *info)
{
    fputs(",\"host_facts\":[", f);
    for (int i = 0; i < info->nhosts; i++) {
        const struct mp_host_facts *h = &info->hosts[i];
        fputs(i ? ",{\"host\":" : "{\"host\":", f);
        json_string(f, h->host);
        fputs(",\"cpu_model\":", f);
        json_string(f, h->cpu_model);
        const struct { const char *name; long long value; } counts[] = {
            {"logical_cpus", h->logical_cpus}, {"physical_cores", h->physical_cores},
            {"usable_cpus", h->usable_cpus}, {"memory_bytes", h->memory_bytes}, {"ranks", h->ranks}};
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            if (counts[c].value < 0)
                fprintf(f, ",\"%s\":null", counts[c].name);
            else
                fprintf(f, ",\"%s\":%lld", counts[c].name, counts[c].value);
        }
        fprintf(f, ",\"smt\":\"%s\",\"os\":", h->smt < 0 ? "unknown" : h->smt ? "on" : "off");
        json_string(f, h->os);
        fputs(",\"kernel\":", f);
        json_string(f, h->kernel);
        fputs(",\"arch\":", f);
        json_string(f, h->arch);
        fputs(",\"governor\":", f);
        json_string(f, h->governor);
        fputc('}', f);
    }
    fputc(']', f);
    if (info->ncvars < 0)
        return;
    fputs(",\"mpi_t_cvars\":{", f);
    for (int i = 0; i < info->ncvars; i++) {
        const struct mp_cvar *c = &info->cvars[i];
        fputs(i ? "," : "", f);
        json_string(f, c->name);
        fputc(':', f);
        if (c->kind == MP_CVAR_STRING)
            json_string(f, c->s);
        else if (c->kind == MP_CVAR_DOUBLE && isfinite(c->d))
            json_double(f, c->d);
        else if (c->kind == MP_CVAR_DOUBLE)
            fputs("null", f); /* JSON has no nan or inf: a value the run file cannot hold */
        else
            fprintf(f, "%lld", c->i);
    }
    fputc('}', f);
}

int record_launch(FILE *f, const struct mp_options *o, const struct mp_launch_info *info)
{
    char now[32];
    record_utc_now(now, sizeof now);
    const struct mp_rank_place *r = info->ranks;
    fprintf(f, "{\"type\":\"launch\",\"launch\":%d,\"start_time\":\"%s\",\"mpi_library\":",
            o->launch_index, now);
    json_string(f, info->mpi_library);
    fprintf(f, ",\"mpi_version\":\"%d.%d\",\"nranks\":%d,\"pair\":[%d,%d],\"pair_shares_node\":%s,\"ranks\":[",
            info->mpi_version, info->mpi_subversion, info->nranks, info->pair_a, info->pair_b,
            r[info->pair_a].node == r[info->pair_b].node ? "true" : "false");
    for (int i = 0; i < info->nranks; i++) {
        fprintf(f, "%s{\"rank\":%d,\"host\":", i ? "," : "", r[i].rank);
        json_string(f, r[i].host);
        fprintf(f, ",\"cpu\":%d,\"node\":%d}", r[i].cpu, r[i].node);
    }
    fputs("],\"clock\":{\"source\":\"clock_gettime(CLOCK_MONOTONIC)\",\"resolution_s\":", f);
    json_double(f, info->clock->resolution);
    fputs(",\"overhead_s\":", f);
    json_double(f, info->clock->overhead);
    fprintf(f, ",\"monotonic\":%s,\"reported_resolution_s\":", info->clock->monotonic ? "true" : "false");
    json_double(f, info->clock->reported_resolution);
    fputs(",\"mpi_wtick_s\":", f);
    json_double(f, info->wtick);
    fputs("},\"environment\":{", f);
    int first = 1;
    for (char **e = environ; *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq)
            continue;
        for (size_t p = 0; p < sizeof env_prefixes / sizeof env_prefixes[0]; p++) {
            if (strncmp(*e, env_prefixes[p], strlen(env_prefixes[p])) != 0)
                continue;
            char name[256];
            size_t len = (size_t)(eq - *e) < sizeof name - 1 ? (size_t)(eq - *e) : sizeof name - 1;
            memcpy(name, *e, len);
            name[len] = '\0';
            fputs(first ? "" : ",", f);
            json_string(f, name);
            fputc(':', f);
            json_string(f, eq + 1);
            first = 0;
            break;
        }
    }
    fputc('}', f);
    machine_fields(f, info);
    if (info->launcher_line) {
        fputs(",\"launcher_command_line\":", f);
        json_string(f, info->launcher_line);
    }
    fputs("}\n", f);
    return record_flush(f);
}

int record_measurement(FILE *f, const struct mp_options *o, const struct mp_measurement *m)
{
    fprintf(f, "{\"type\":\"measurement\",\"launch\":%d,\"pattern\":", o->launch_index);
    json_string(f, m->pattern);
    fprintf(f, ",\"bytes\":%lld,\"buffer\":\"%s\",\"ranks\":[", m->bytes, m->buffer);
    for (int i = 0; i < m->nranks; i++)
        fprintf(f, "%s%d", i ? "," : "", m->ranks[i]);
    fprintf(f, "],\"k\":%ld,\"divisor\":%d,\"flows\":%d,\"metric\":", m->k, m->divisor, m->flows);
    json_string(f, m->metric);
    fputs(",\"timing\":", f);
    json_string(f, m->timing);
    fprintf(f, ",\"warmup\":%ld,\"first_s\":", m->warmup);
    json_double(f, m->first);
    fputs(",\"elapsed_s\":", f);
    json_double(f, m->elapsed);
    fprintf(f, ",\"stop_reason\":\"%s\",\"validation\":\"%s\"", m->stop_reason,
            m->mismatch < 0 ? "ok" : "mismatch");
    if (m->mismatch >= 0)
        fprintf(f, ",\"mismatch_byte\":%lld", m->mismatch);
    if (m->variant) {
        fputs(",\"variant\":", f);
        json_string(f, m->variant);
    }
    if (m->fields)
        fputs(m->fields, f);
    if (m->first_of_job) { /* the job's first message of a pattern: see driver.h */
        fputs(",\"first_message_of_job_s\":", f);
        json_double(f, m->first);
    }
    if (m->npairs > 0) {
        fputs(",\"pairs\":[", f);
        for (int i = 0; i < m->npairs; i++)
            fprintf(f, "%s[%d,%d]", i ? "," : "", m->ranks[2 * i], m->ranks[2 * i + 1]);
        fputs("],\"pair_median_s\":[", f);
        for (int i = 0; i < m->npairs; i++) {
            fputs(i ? "," : "", f);
            json_double(f, m->pair_median_s[i]);
        }
        fputs("],\"pair_samples_s\":[", f);
        for (int i = 0; i < m->npairs; i++) {
            fputs(i ? ",[" : "[", f);
            for (long s = 0; s < m->pair_nsamples; s++) {
                fputs(s ? "," : "", f);
                json_double(f, m->pair_samples_s[i * m->pair_nsamples + s]);
            }
            fputc(']', f);
        }
        fputc(']', f);
    }
    if (m->placement) {
        fputs(",\"placement\":", f);
        json_string(f, m->placement);
    }
    fputs(",\"samples_s\":[", f);
    for (long i = 0; i < m->nsamples; i++) {
        if (i)
            fputc(',', f);
        json_double(f, m->samples[i]);
    }
    fputs("]}\n", f);
    return record_flush(f);
}

int record_launch_end(FILE *f, const struct mp_options *o, const int *cpus, const long *max_rss_kib, int nranks)
{
    char now[32];
    record_utc_now(now, sizeof now);
    fprintf(f, "{\"type\":\"launch_end\",\"launch\":%d,\"end_time\":\"%s\",\"cpus\":[", o->launch_index, now);
    for (int i = 0; i < nranks; i++)
        fprintf(f, "%s%d", i ? "," : "", cpus[i]);
    fputs("],\"max_rss_kib\":[", f);
    for (int i = 0; i < nranks; i++)
        fprintf(f, "%s%ld", i ? "," : "", max_rss_kib[i]);
    fputs("]}\n", f);
    return record_flush(f);
}

/* ---- a pattern's own members ---------------------------------------------------------------- */

int record_fields_begin(struct mp_fields *out)
{
    out->text = NULL;
    out->len = 0;
    out->f = open_memstream(&out->text, &out->len);
    return out->f ? 0 : -1;
}

static void field_name(struct mp_fields *out, const char *name)
{
    fputc(',', out->f);
    json_string(out->f, name);
    fputc(':', out->f);
}

void record_field_int(struct mp_fields *out, const char *name, long long value)
{
    field_name(out, name);
    fprintf(out->f, "%lld", value);
}

void record_field_double(struct mp_fields *out, const char *name, double value)
{
    field_name(out, name);
    json_double(out->f, value);
}

void record_field_bool(struct mp_fields *out, const char *name, int value)
{
    field_name(out, name);
    json_bool(out->f, value);
}

void record_field_string(struct mp_fields *out, const char *name, const char *value)
{
    field_name(out, name);
    json_string(out->f, value);
}

void record_field_null(struct mp_fields *out, const char *name)
{
    field_name(out, name);
    fputs("null", out->f);
}

char *record_fields_end(struct mp_fields *out)
{
    int failed = ferror(out->f);
    fclose(out->f);
    out->f = NULL;
    if (failed || !out->text) {
        free(out->text);
        return NULL;
    }
    return out->text;
}
