#include "catalog.h"

#include "json.h"

static const char *const family_names[] = {
    [MP_FAMILY_PINGPONG] = "pingpong",     [MP_FAMILY_BIDIRECTIONAL] = "bidirectional",
    [MP_FAMILY_COMPAT] = "compat",         [MP_FAMILY_MANY_RANKS] = "many-ranks",
    [MP_FAMILY_BUFFERING] = "buffering",   [MP_FAMILY_COMBINING] = "combining",
    [MP_FAMILY_OVERLAP] = "overlap",       [MP_FAMILY_PROBE] = "probe",
    [MP_FAMILY_HARDWARE] = "hardware",     [MP_FAMILY_COLLECTIVE] = "collective",
};

const char *catalog_family_name(enum mp_family family)
{
    if ((int)family <= 0 || (size_t)family >= sizeof family_names / sizeof family_names[0])
        return NULL;
    return family_names[family];
}

/* One entry per record the kernels write per size: the variant's name as the record's
 * "variant" says it ("" when the record has none) and, for a contention sweep, its pairs. */
static void write_variants(FILE *f, const struct mp_pattern *p, int world_size)
{
    int variants = p->variants ? p->variants(world_size) : 1;
    fputc('[', f);
    for (int v = 0; v < variants; v++) {
        char name[64] = "";
        if (p->variant_name)
            p->variant_name(v, world_size, name, sizeof name);
        fputs(v ? ",{\"name\":" : "{\"name\":", f);
        json_string(f, name);
        fputs(",\"active_pairs\":", f);
        if (p->active_pairs)
            fprintf(f, "%d", p->active_pairs(world_size, v));
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputc(']', f);
}

int catalog_write(FILE *f, const struct mp_pattern *const *patterns, int npatterns, int world_size, char *err,
                  size_t errlen)
{
    for (int i = 0; i < npatterns; i++)
        if (!catalog_family_name(patterns[i]->family)) {
            snprintf(err, errlen, "pattern %s has no family in its table entry; give it one (pattern.h)",
                     patterns[i]->name);
            return -1;
        }
    fputc('[', f);
    for (int i = 0; i < npatterns; i++) {
        const struct mp_pattern *p = patterns[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        json_string(f, p->name);
        fputs(",\"family\":", f);
        json_string(f, catalog_family_name(p->family));
        fputs(",\"modelled\":", f);
        json_bool(f, p->modelled);
        fprintf(f, ",\"participants\":\"%s\",\"even_ranks\":", p->participants == MP_ALL ? "all" : "pair");
        json_bool(f, p->even_ranks);
        fputs(",\"metric\":", f);
        json_string(f, p->metric);
        /* divisor 0: the number of ranks taking part (a ring's hops) */
        fprintf(f, ",\"divisor\":%d,\"flows\":%d,\"inplace_ok\":", p->divisor, p->flows ? p->flows : 1);
        json_bool(f, p->inplace_ok);
        fputs(",\"timing\":", f);
        json_string(f, p->timing);
        fputs(",\"variants\":", f);
        write_variants(f, p, world_size);
        fputc('}', f);
    }
    fputc(']', f);
    if (ferror(f)) {
        snprintf(err, errlen, "cannot write the pattern catalog");
        return -1;
    }
    return 0;
}
