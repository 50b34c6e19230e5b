/* What a host is, as its OS says (docs/record-format.md, the launch record's "host_facts"):
 * CPU model, core counts, SMT, OS and kernel, frequency governor, memory. Read from /proc, /sys,
 * uname and sysconf only; a fact the host does not expose (a VM has no cpufreq) is recorded as
 * unknown, never guessed. MPI-free, so plain cc tests it against a fake /proc and /sys. */
#ifndef MP_HOST_FACTS_H
#define MP_HOST_FACTS_H

#define MP_FACT_LEN 128
#define MP_HOST_LEN 256 /* at least MPI_MAX_PROCESSOR_NAME (host_facts_gather.c checks) */

struct mp_host_facts {
    char host[MP_HOST_LEN + 1];     /* MPI_Get_processor_name, as in the ranks' placement */
    char cpu_model[MP_FACT_LEN];  /* "unknown" when /proc/cpuinfo names none */
    int logical_cpus;             /* online CPUs (sysconf) */
    int physical_cores;           /* distinct (physical id, core id) of /proc/cpuinfo; -1 unknown */
    int usable_cpus;              /* CPUs the job's ranks on this host may run on (sched_getaffinity) */
    int smt;                      /* 1 on, 0 off, -1 unknown */
    char os[MP_FACT_LEN];         /* /etc/os-release PRETTY_NAME, else uname's sysname */
    char kernel[MP_FACT_LEN];     /* uname: sysname release */
    char arch[32];                /* uname: machine */
    char governor[MP_FACT_LEN];   /* cpufreq scaling_governor; "a,b" when CPUs differ; "unknown" */
    long long memory_bytes;       /* physical memory (sysconf); -1 unknown */
    int ranks;                    /* the job's ranks on this host */
};

/* The facts of the host this process runs on, reading /proc, /sys and /etc under root ("" for
 * the real ones; tests pass a fake tree). usable_cpus is this process's own affinity, host and
 * ranks are left for the caller. */
void host_facts_read(struct mp_host_facts *out, const char *root);

#endif
