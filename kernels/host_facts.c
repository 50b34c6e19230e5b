#define _GNU_SOURCE
#include "host_facts.h"

#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* src into dst[len], cut short if need be (a fact is a label, not a key). */
static void copy(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    n = n < len - 1 ? n : len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t start = strspn(s, " \t");
    memmove(s, s + start, n - start + 1);
}

/* The first line of a small file, trimmed; 0 when read, -1 when absent. */
static int read_line(const char *root, const char *path, char *out, size_t len)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    FILE *f = fopen(full, "r");
    if (!f)
        return -1;
    int ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    trim(out);
    return 0;
}

/* "key : value" of /proc/cpuinfo; the value, or NULL when the line is another key. */
static const char *cpuinfo_value(char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    char *colon = line + n + strspn(line + n, " \t"); /* "cpu" must not match "cpu MHz" */
    if (*colon != ':')
        return NULL;
    trim(colon + 1);
    return colon + 1;
}

/* CPU model and physical cores from /proc/cpuinfo. x86 names the model "model name"; other
 * architectures "Processor", "cpu model" or "cpu". Cores count distinct (physical id, core id);
 * without those fields the count is unknown. */
static void read_cpuinfo(struct mp_host_facts *out, const char *root)
{
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/proc/cpuinfo", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static const char *const model_keys[] = {"model name", "Processor", "cpu model", "cpu"};
    int model_rank = 99;
    long physical = -1, seen = 0;
    long (*cores)[2] = NULL; /* distinct (physical id, core id) */
    size_t ncores = 0, cap = 0;
    int complete = 1, any_core = 0;
    while (fgets(line, sizeof line, f)) {
        const char *v;
        for (int k = 0; k < (int)(sizeof model_keys / sizeof model_keys[0]); k++)
            if (k < model_rank && (v = cpuinfo_value(line, model_keys[k])) && *v) {
                copy(out->cpu_model, sizeof out->cpu_model, v);
                model_rank = k;
            }
        if (cpuinfo_value(line, "processor")) {
            if (seen && physical < 0)
                complete = 0;
            seen++;
            physical = -1;
        }
        if ((v = cpuinfo_value(line, "physical id")))
            physical = atol(v);
        if ((v = cpuinfo_value(line, "core id"))) {
            any_core = 1;
            long core = atol(v);
            size_t i = 0;
            while (i < ncores && !(cores[i][0] == physical && cores[i][1] == core))
                i++;
            if (i == ncores) {
                if (ncores == cap) {
                    cap = cap ? 2 * cap : 64;
                    void *grown = realloc(cores, cap * sizeof *cores);
                    if (!grown) {
                        complete = 0;
                        break;
                    }
                    cores = grown;
                }
                cores[ncores][0] = physical;
                cores[ncores][1] = core;
                ncores++;
            }
        }
    }
    if (seen && physical < 0)
        complete = 0;
    fclose(f);
    free(cores);
    out->physical_cores = complete && any_core ? (int)ncores : -1;
}

/* One governor for the host: every CPU's scaling_governor, "a,b" when they differ. */
static void read_governor(struct mp_host_facts *out, const char *root)
{
    char dirpath[512];
    snprintf(dirpath, sizeof dirpath, "%s/sys/devices/system/cpu", root);
    DIR *dir = opendir(dirpath);
    if (!dir)
        return;
    struct dirent *e;
    char found[MP_FACT_LEN] = "";
    while ((e = readdir(dir))) {
        if (strncmp(e->d_name, "cpu", 3) != 0 || !isdigit((unsigned char)e->d_name[3]))
            continue;
        char path[512], value[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/cpufreq/scaling_governor", e->d_name);
        if (read_line(root, path, value, sizeof value) || !*value)
            continue;
        /* found is a comma list of distinct names */
        char needle[80];
        snprintf(needle, sizeof needle, ",%s,", value);
        char haystack[MP_FACT_LEN + 2];
        snprintf(haystack, sizeof haystack, ",%s,", found);
        if (strstr(haystack, needle))
            continue;
        size_t used = strlen(found);
        snprintf(found + used, sizeof found - used, "%s%s", used ? "," : "", value);
    }
    closedir(dir);
    if (*found)
        copy(out->governor, sizeof out->governor, found);
}

static void read_os(struct mp_host_facts *out, const char *root, const char *sysname)
{
    char path[512], line[256];
    copy(out->os, sizeof out->os, sysname);
    snprintf(path, sizeof path, "%s/etc/os-release", root);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        char *v = line + 12;
        trim(v);
        size_t n = strlen(v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        if (*v)
            copy(out->os, sizeof out->os, v);
        break;
    }
    fclose(f);
}

void host_facts_read(struct mp_host_facts *out, const char *root)
{
    memset(out, 0, sizeof *out);
    copy(out->cpu_model, sizeof out->cpu_model, "unknown");
    copy(out->governor, sizeof out->governor, "unknown");
    copy(out->os, sizeof out->os, "unknown");
    copy(out->kernel, sizeof out->kernel, "unknown");
    copy(out->arch, sizeof out->arch, "unknown");
    out->physical_cores = -1;
    out->smt = -1;
    out->memory_bytes = -1;

    long online = sysconf(_SC_NPROCESSORS_ONLN);
    out->logical_cpus = online > 0 ? (int)online : -1;
    cpu_set_t mask;
    out->usable_cpus = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : -1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        out->memory_bytes = (long long)pages * page;

    struct utsname u;
    const char *sysname = "unknown";
    if (uname(&u) == 0) {
        copy(out->kernel, sizeof out->kernel, u.sysname);
        size_t used = strlen(out->kernel);
        copy(out->kernel + used, sizeof out->kernel - used, " ");
        copy(out->kernel + used + 1, sizeof out->kernel - used - 1, u.release);
        copy(out->arch, sizeof out->arch, u.machine);
        sysname = u.sysname;
    }
    read_os(out, root, sysname);
    read_cpuinfo(out, root);
    read_governor(out, root);

    /* SMT as the kernel states it; else from the counts when both are known. */
    char smt[16];
    if (read_line(root, "/sys/devices/system/cpu/smt/active", smt, sizeof smt) == 0 && (*smt == '0' || *smt == '1'))
        out->smt = *smt == '1';
    else if (out->physical_cores > 0 && out->logical_cpus > 0)
        out->smt = out->logical_cpus > out->physical_cores;
}
