#include "output.h"

#include <errno.h>
#include <string.h>

FILE *output_open(const struct mp_options *o, char *err, size_t errlen)
{
    if (strcmp(o->output, "-") == 0)
        return stdout;
    FILE *f = fopen(o->output, o->append ? "a" : o->overwrite ? "w" : "wx");
    if (f)
        return f;
    if (errno == EEXIST)
        snprintf(err, errlen,
                 "run file '%s' exists; msgperf never overwrites a file without --force (msgperf-kernels: "
                 "--overwrite); choose another -o, or --append to add a launch to it", o->output);
    else
        snprintf(err, errlen, "cannot write run file '%s': %s; choose a writable path with -o", o->output,
                 strerror(errno));
    return NULL;
}
