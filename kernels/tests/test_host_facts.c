/* host_facts_read against fake /proc, /sys and /etc trees: what a host exposes is read, what it
 * does not is "unknown" or -1, never a guess. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../host_facts.h"
#include "test.h"

static void put(const char *root, const char *path, const char *text)
{
    char full[512], dir[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    /* every parent folder */
    for (char *slash = strchr(full + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - full), full);
        mkdir(dir, 0700);
    }
    FILE *f = fopen(full, "w");
    fputs(text, f);
    fclose(f);
}

static void tree(char *root, size_t len, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, len, "%s/msgperf-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    check(mkdtemp(root) != NULL);
}

int main(void)
{
    char smt[256], bare[256], arm[256];
    struct mp_host_facts f;

    /* Two cores with two threads each; governors that differ; a distribution named. */
    tree(smt, sizeof smt, "smt");
    put(smt, "/proc/cpuinfo",
        "processor\t: 0\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2000.0\nphysical id\t: 0\ncore id\t\t: 0\n\n"
        "processor\t: 1\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2000.0\nphysical id\t: 0\ncore id\t\t: 1\n\n"
        "processor\t: 2\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2000.0\nphysical id\t: 0\ncore id\t\t: 0\n\n"
        "processor\t: 3\nmodel name\t: Test CPU 9000\ncpu MHz\t\t: 2000.0\nphysical id\t: 0\ncore id\t\t: 1\n\n");
    put(smt, "/sys/devices/system/cpu/smt/active", "1\n");
    put(smt, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    put(smt, "/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
    put(smt, "/sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "performance\n");
    put(smt, "/etc/os-release", "NAME=\"Test\"\nPRETTY_NAME=\"Test OS 1.2\"\n");
    host_facts_read(&f, smt);
    check(strcmp(f.cpu_model, "Test CPU 9000") == 0);
    check(f.physical_cores == 2);
    check(f.smt == 1);
    check(strstr(f.governor, "performance") && strstr(f.governor, "powersave") && strlen(f.governor) == 21);
    check(strcmp(f.os, "Test OS 1.2") == 0);
    check(f.logical_cpus >= 1 && f.usable_cpus >= 1 && f.memory_bytes > 0); /* this machine's own */

    /* A host that exposes nothing (no cpuinfo, no cpufreq as in a VM, no os-release). */
    tree(bare, sizeof bare, "bare");
    host_facts_read(&f, bare);
    check(strcmp(f.cpu_model, "unknown") == 0);
    check(f.physical_cores == -1);
    check(f.smt == -1);
    check(strcmp(f.governor, "unknown") == 0);
    check(strcmp(f.os, "Linux") == 0); /* uname's sysname */
    check(strncmp(f.kernel, "Linux ", 6) == 0);

    /* No topology fields (as on many ARM hosts): cores unknown; "cpu MHz" is not a model name. */
    tree(arm, sizeof arm, "arm");
    put(arm, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\ncpu MHz\t\t: 1000\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n");
    put(arm, "/sys/devices/system/cpu/smt/active", "0\n");
    host_facts_read(&f, arm);
    check(strcmp(f.cpu_model, "unknown") == 0);
    check(f.physical_cores == -1);
    check(f.smt == 0);
    for (const char *const *dir = (const char *const[]){smt, bare, arm, NULL}; *dir; dir++) {
        char rm[300];
        snprintf(rm, sizeof rm, "rm -rf '%s'", *dir);
        check(system(rm) == 0);
    }
    return done("test_host_facts");
}
