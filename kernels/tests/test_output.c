#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../output.h"
#include "test.h"

static int holds(const char *path, const char *expected)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strcmp(buf, expected) == 0;
}

static int put(const struct mp_options *o, const char *text)
{
    char err[MP_ERRLEN];
    FILE *f = output_open(o, err, sizeof err);
    if (!f)
        return -1;
    fputs(text, f);
    fclose(f);
    return 0;
}

int main(void)
{
    char dir[256], path[300], err[MP_ERRLEN];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/msgperf-test-output-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    check(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/run.jsonl", dir);
    struct mp_options o;
    memset(&o, 0, sizeof o);
    o.output = path;

    check(put(&o, "first\n") == 0 && holds(path, "first\n")); /* a new file: created */
    /* It exists now: refused with one line naming it, and the file is untouched. */
    check(output_open(&o, err, sizeof err) == NULL);
    check(strstr(err, path) && strstr(err, "exists; msgperf never overwrites a file without --force"));
    check(!strchr(err, '\n') && holds(path, "first\n"));
    o.append = 1;
    check(put(&o, "second\n") == 0 && holds(path, "first\nsecond\n"));
    o.append = 0;
    o.overwrite = 1;
    check(put(&o, "third\n") == 0 && holds(path, "third\n"));
    /* A directory that is not there: a different one-line message. */
    o.overwrite = 0;
    char missing[320];
    snprintf(missing, sizeof missing, "%s/no/such/run.jsonl", dir);
    o.output = missing;
    check(output_open(&o, err, sizeof err) == NULL && strstr(err, "cannot write run file") && strstr(err, "-o"));
    o.output = "-";
    check(output_open(&o, err, sizeof err) == stdout);

    unlink(path);
    rmdir(dir);
    return done("test_output");
}
