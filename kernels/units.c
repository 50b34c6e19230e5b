#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int suffix_multiplier(const char *s, long long *mult)
{
    static const struct { const char *name; long long mult; } table[] = {
        {"", 1}, {"b", 1}, {"k", 1LL << 10}, {"kb", 1LL << 10}, {"kib", 1LL << 10},
        {"m", 1LL << 20}, {"mb", 1LL << 20}, {"mib", 1LL << 20},
        {"g", 1LL << 30}, {"gb", 1LL << 30}, {"gib", 1LL << 30},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcasecmp(s, table[i].name) == 0) {
            *mult = table[i].mult;
            return 0;
        }
    return -1;
}

int units_scan_size(const char *text, long long *bytes, char *err, size_t errlen)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '-') {
        snprintf(err, errlen, "size '%s' is negative; sizes are byte counts >= 0", text);
        return -1;
    }
    if (!isdigit((unsigned char)*p)) {
        snprintf(err, errlen, "cannot read size '%s'; write bytes like 64, 4K, 1M or 2G", text);
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long value = strtoull(p, &end, 10);
    char suffix[8];
    size_t n = strlen(end);
    while (n > 0 && isspace((unsigned char)end[n - 1]))
        n--;
    long long mult;
    if (errno != 0 || n >= sizeof suffix) {
        snprintf(err, errlen, "cannot read size '%s'; write bytes like 64, 4K, 1M or 2G", text);
        return -1;
    }
    memcpy(suffix, end, n);
    suffix[n] = '\0';
    if (suffix_multiplier(suffix, &mult) != 0) {
        snprintf(err, errlen, "unknown unit in size '%s'; use K, M or G (powers of 1024)", text);
        return -1;
    }
    if (value > (unsigned long long)(1LL << 62) / (unsigned long long)mult) {
        snprintf(err, errlen, "size '%s' is too large", text);
        return -1;
    }
    *bytes = (long long)value * mult;
    return 0;
}

static int add_size(long long *out, int max, int *count, long long value, char *err, size_t errlen)
{
    if (*count >= max) {
        snprintf(err, errlen, "too many sizes (at most %d)", max);
        return -1;
    }
    out[(*count)++] = value;
    return 0;
}

static int scan_range(const char *text, long long *out, int max, int *count, char *err, size_t errlen)
{
    char buf[128];
    if (strlen(text) >= sizeof buf) {
        snprintf(err, errlen, "size range '%.40s...' is too long", text);
        return -1;
    }
    strcpy(buf, text);
    char *second = strchr(buf, ':');
    *second++ = '\0';
    char *third = strchr(second, ':');
    long long lo, hi, ratio = 2;
    if (third)
        *third++ = '\0';
    if (units_scan_size(buf, &lo, err, errlen) || units_scan_size(second, &hi, err, errlen))
        return -1;
    if (third) {
        char *end;
        ratio = strtoll(third, &end, 10);
        if (*end != '\0' || ratio < 2) {
            snprintf(err, errlen, "range step in '%s' must be an integer ratio >= 2", text);
            return -1;
        }
    }
    if (hi < lo) {
        snprintf(err, errlen, "range '%s' ends below where it starts", text);
        return -1;
    }
    if (lo == 0) {
        if (add_size(out, max, count, 0, err, errlen))
            return -1;
        lo = 1;
    }
    for (long long s = lo; s <= hi; s *= ratio) {
        if (add_size(out, max, count, s, err, errlen))
            return -1;
        if (s > hi / ratio)
            break;
    }
    return 0;
}

int units_scan_sizes(const char *text, long long *out, int max, int *count, char *err, size_t errlen)
{
    *count = 0;
    if (text == NULL || *text == '\0') {
        snprintf(err, errlen, "no sizes given; use a list like 0,1,4K or a range like 1:64M");
        return -1;
    }
    char *copy = strdup(text);
    if (!copy) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && rc == 0; item = strtok_r(NULL, ",", &save)) {
        if (strchr(item, ':')) {
            rc = scan_range(item, out, max, count, err, errlen);
        } else {
            long long value;
            rc = units_scan_size(item, &value, err, errlen);
            if (rc == 0)
                rc = add_size(out, max, count, value, err, errlen);
        }
    }
    free(copy);
    if (rc == 0 && *count == 0) {
        snprintf(err, errlen, "no sizes given; use a list like 0,1,4K or a range like 1:64M");
        rc = -1;
    }
    return rc;
}

int units_scan_seconds(const char *text, double *seconds, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    double mult = 1.0;
    if (strcmp(end, "ms") == 0)
        mult = 1e-3;
    else if (strcmp(end, "us") == 0)
        mult = 1e-6;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mult = 60.0;
    else if (*end != '\0' && strcmp(end, "s") != 0)
        mult = -1.0;
    if (end == text || errno != 0 || mult < 0 || !isfinite(value)) {
        snprintf(err, errlen, "cannot read duration '%s'; write seconds like 1.5, 500ms or 2s", text);
        return -1;
    }
    *seconds = value * mult;
    return 0;
}

int units_scan_fraction(const char *text, double *fraction, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(value) || (*end != '\0' && strcmp(end, "%") != 0)) {
        snprintf(err, errlen, "cannot read precision '%s'; write a percentage like 1%% or a fraction like 0.01", text);
        return -1;
    }
    *fraction = (*end == '%') ? value / 100.0 : value;
    return 0;
}
