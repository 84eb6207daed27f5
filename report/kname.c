/* Kernel names in reports (kname.h). */
#include "kname.h"
#include "names.h"
#include <stdlib.h>
#include <string.h>

void kn_json(json_t *o, const char *key, const ptx_func *fn)
{
    char *shown = ptx_func_shown(fn);
    json_object_set_new(o, key, json_string(shown));
    json_object_set_new(o, "symbol", json_stringn(fn->name.p, fn->name.n));
    free(shown);
}

void kn_print(FILE *o, const ptx_func *fn)
{
    char *shown = ptx_func_shown(fn);
    fputs(shown, o);
    if (strlen(shown) != fn->name.n || memcmp(shown, fn->name.p, fn->name.n))
        fprintf(o, " [%.*s]", (int)fn->name.n, fn->name.p);
    free(shown);
}
