#include <stdlib.h>
#include <string.h>

#include "../json.h"
#include "test.h"

/* What json_* write, as a string (the caller frees it). */
static char *written(void (*write)(FILE *, const char *), const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    write(f, s);
    fclose(f);
    return text;
}

static void write_double(FILE *f, const char *s) { json_double(f, strtod(s, NULL)); }

static int writes(void (*write)(FILE *, const char *), const char *in, const char *expected)
{
    char *text = written(write, in);
    int same = strcmp(text, expected) == 0;
    if (!same)
        fprintf(stderr, "wrote %s, expected %s\n", text, expected);
    free(text);
    return same;
}

int main(void)
{
    check(writes(json_string, "plain", "\"plain\""));
    check(writes(json_string, "a \"quoted\" \\ path", "\"a \\\"quoted\\\" \\\\ path\""));
    check(writes(json_string, "tab\tline\nbell\a del\x7f", "\"tab\\u0009line\\u000abell\\u0007 del\\u007f\""));
    check(writes(json_string, "µs é", "\"µs é\"")); /* UTF-8 passes through */
    check(writes(json_string, "", "\"\""));
    /* 17 significant digits: the double read back is the one written */
    char *text = written(write_double, "0.1");
    check(strtod(text, NULL) == 0.1);
    free(text);
    text = written(write_double, "1.2345678901234567e-07");
    check(strtod(text, NULL) == 1.2345678901234567e-07);
    free(text);
    char *t = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&t, &len);
    json_bool(f, 1);
    fputc(',', f);
    json_bool(f, 0);
    fclose(f);
    check(strcmp(t, "true,false") == 0);
    free(t);
    return done("test_json");
}
