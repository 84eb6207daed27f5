#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "printer.h"

static void put(FILE *o, ptx_str s) { fwrite(s.p, 1, s.n, o); }

static const char *binop(int op) {
    static _Thread_local char one[2]; /* per thread: batches print in parallel */
    switch (op) {
    case PTX_OP_SHL: return "<<";
    case PTX_OP_SHR: return ">>";
    case PTX_OP_LAND: return "&&";
    case PTX_OP_LOR: return "||";
    case PTX_OP_EQ: return "==";
    case PTX_OP_NE: return "!=";
    case PTX_OP_LE: return "<=";
    case PTX_OP_GE: return ">=";
    default: one[0] = (char)op; one[1] = 0; return one;
    }
}

void ptx_print_expr(FILE *o, const ptx_expr *e) {
    switch (e->kind) {
    case PTX_E_INT:
        if (e->text.p) put(o, e->text);
        else fprintf(o, "%" PRId64, e->u.i);
        break;
    case PTX_E_FLOAT:
        if (e->text.p) put(o, e->text);
        else if (e->fkind == 'f') fprintf(o, "0f%08" PRIX32, (uint32_t)e->u.i);
        else fprintf(o, "0d%016" PRIX64, (uint64_t)e->u.i);
        break;
    case PTX_E_SYM: put(o, e->text); break;
    case PTX_E_UNARY: fputc(e->op, o); ptx_print_expr(o, e->u.a); break;
    case PTX_E_PAREN: fputc('(', o); ptx_print_expr(o, e->u.a); fputc(')', o); break;
    case PTX_E_BINARY:
        /* spaced, so operator and operands cannot lex as one token
         * ("2 % r" printed as "2%r" would read as 2 and the register %r) */
        ptx_print_expr(o, e->u.a);
        fputc(' ', o);
        fputs(binop(e->op), o);
        fputc(' ', o);
        ptx_print_expr(o, e->b);
        break;
    case PTX_E_COND:
        ptx_print_expr(o, e->u.a);
        fputs(" ? ", o);
        ptx_print_expr(o, e->b);
        fputs(" : ", o);
        ptx_print_expr(o, e->c);
        break;
    case PTX_E_CALL:
        put(o, e->text);
        fputc('(', o);
        for (uint32_t i = 0; i < e->nargs; i++) {
            if (i) fputs(", ", o);
            ptx_print_expr(o, e->u.args[i]);
        }
        fputc(')', o);
        break;
    }
}

typedef struct hook {
    ptx_reg_hook fn;
    void *ctx;
} hook;

static void operand(FILE *o, const ptx_func *f, const ptx_operand *x, const hook *h);

static void print_list(FILE *o, const ptx_func *f, const ptx_operand *el, uint32_t n, const hook *h) {
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputs(", ", o);
        operand(o, f, &el[i], h);
    }
}

static void operand(FILE *o, const ptx_func *f, const ptx_operand *x, const hook *h) {
    if (x->neg) fputc('!', o);
    if (h && (x->kind == PTX_O_REG || x->kind == PTX_O_SREG) && h->fn(o, h->ctx, x)) return;
    switch (x->kind) {
    case PTX_O_REG:
        put(o, f->regs[x->n].name);
        if (x->comp) fprintf(o, ".%c", x->comp);
        break;
    case PTX_O_SREG:
        if (x->p.text) {
            /* the spelling ends at the name (and component) */
            const char *p = x->p.text;
            size_t n = 1;
            while (p[n] == '_' || p[n] == '$' || (p[n] >= '0' && p[n] <= '9') ||
                   ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z'))
                n++;
            fwrite(p, 1, n, o);
        } else {
            fputs(ptx_sreg_name((ptx_sreg)x->n), o);
            if (x->n == PTX_SR_PM || x->n == PTX_SR_ENVREG) fprintf(o, "%" PRId64, x->v);
            else if (x->n == PTX_SR_PM64) fprintf(o, "%" PRId64 "_64", x->v);
        }
        if (x->comp) fprintf(o, ".%c", x->comp);
        break;
    case PTX_O_IMM:
        if (x->p.text) put(o, ptx_opd_text(x));
        else if (x->flags == PTX_IMM_F32) fprintf(o, "0f%08" PRIX32, (uint32_t)x->v);
        else if (x->flags == PTX_IMM_F64 || x->flags == PTX_IMM_DEC) fprintf(o, "0d%016" PRIX64, (uint64_t)x->v);
        else fprintf(o, "%" PRId64, x->v);
        break;
    case PTX_O_SYM: put(o, ptx_opd_text(x)); break;
    case PTX_O_EXPR: ptx_print_expr(o, x->p.expr); break;
    case PTX_O_ADDR:
        fputc('[', o);
        print_list(o, f, x->p.elems, x->n, h);
        if (x->flags & PTX_ADDR_OFF) fprintf(o, "+%" PRId64, x->v);
        fputc(']', o);
        break;
    case PTX_O_VEC:
        fputc('{', o);
        print_list(o, f, x->p.elems, x->n, h);
        fputc('}', o);
        break;
    case PTX_O_PAIR:
        operand(o, f, &x->p.elems[0], h);
        fputc('|', o);
        operand(o, f, &x->p.elems[1], h);
        break;
    case PTX_O_LIST:
        fputc('(', o);
        print_list(o, f, x->p.elems, x->n, h);
        fputc(')', o);
        break;
    case PTX_O_SINK: fputc('_', o); break;
    }
}

static void inst(FILE *o, const ptx_func *f, const ptx_inst *in, const hook *h) {
    if (in->has_guard) {
        fputc('@', o);
        if (in->guard_neg) fputc('!', o);
        if (!h || !h->fn(o, h->ctx, NULL)) put(o, f->regs[in->guard].name);
        fputc(' ', o);
    }
    fwrite(in->opcode, 1, in->opcode_len, o);
    if (in->nopd) {
        fputs(h ? " " : " \t", o);
        print_list(o, f, in->opd, in->nopd, h);
    }
    fputc(';', o);
}

void ptx_print_inst(FILE *o, const ptx_func *f, const ptx_inst *in) {
    fputc('\t', o);
    inst(o, f, in, NULL);
    fputc('\n', o);
}

void ptx_print_inst_hooked(FILE *o, const ptx_func *f, const ptx_inst *in, ptx_reg_hook fn, void *ctx) {
    hook h = {fn, ctx};
    inst(o, f, in, &h);
}

static void print_init(FILE *o, const ptx_init *in) {
    switch (in->kind) {
    case 'e': ptx_print_expr(o, in->expr); break;
    case 'k': put(o, in->key); fputs(" = ", o); ptx_print_expr(o, in->expr); break;
    default:
        fputc('{', o);
        for (uint32_t i = 0; i < in->n; i++) {
            if (i) fputs(", ", o);
            print_init(o, in->items[i]);
        }
        fputc('}', o);
    }
}

/* Declaration without the trailing ';'.  nvcc separates the name with a tab
 * in bodies ("\t.reg .b32 \t%r<5>"); sep gives that separator. */
static void print_linkage(FILE *o, unsigned linkage) {
    if (linkage & PTX_LINK_EXTERN) fputs(".extern ", o);
    if (linkage & PTX_LINK_VISIBLE) fputs(".visible ", o);
    if (linkage & PTX_LINK_WEAK) fputs(".weak ", o);
    if (linkage & PTX_LINK_COMMON) fputs(".common ", o);
}

static void print_var(FILE *o, const ptx_var *v, const char *sep) {
    print_linkage(o, v->linkage);
    fputs(ptx_space_name((ptx_space)v->space), o);
    if (v->attrs.n) { fputc(' ', o); put(o, v->attrs); }
    if (v->align) fprintf(o, " .align %u", v->align);
    if (v->vec) fprintf(o, " .v%u", v->vec);
    fputc(' ', o);
    fputs(ptx_type_name((ptx_type)v->type), o);
    if (v->is_ptr) {
        fputs(" .ptr", o);
        if (v->ptr_space) { fputc(' ', o); fputs(ptx_space_name((ptx_space)v->ptr_space), o); }
        if (v->ptr_align) fprintf(o, " .align %u", v->ptr_align);
    }
    fputs(sep, o);
    put(o, v->name);
    if (v->has_range) fprintf(o, "<%u>", v->range);
    for (uint32_t i = 0; i < v->ndims; i++) {
        if (v->dims[i]) fprintf(o, "[%" PRIu64 "]", v->dims[i]);
        else fputs("[]", o);
    }
    if (v->init) {
        fputs(" = ", o);
        print_init(o, v->init);
    }
}

static void print_params(FILE *o, ptx_var *const *v, uint32_t n, int multiline) {
    fputc('(', o);
    if (multiline && n) fputc('\n', o);
    for (uint32_t i = 0; i < n; i++) {
        if (multiline) fputc('\t', o);
        print_var(o, v[i], " ");
        if (i + 1 < n) fputs(multiline ? ",\n" : ", ", o);
    }
    if (multiline && n) fputc('\n', o);
    fputc(')', o);
}

static void print_sig(FILE *o, const ptx_func *f, int is_proto) {
    if (f->has_rets) {
        fputc(' ', o);
        print_params(o, f->rets, f->nrets, 0);
    }
    fputc(' ', o);
    if (is_proto) fputc('_', o);
    else put(o, f->name);
    if (f->has_params) {
        if (is_proto) fputc(' ', o);
        print_params(o, f->params, f->nparams, !is_proto);
    }
    for (uint32_t i = 0; i < f->nfdirs; i++) {
        const ptx_fdirective *d = &f->fdirs[i];
        fputs(is_proto ? " " : "\n", o);
        put(o, d->name);
        if (d->raw.n) { fputc(' ', o); put(o, d->raw); fputc(';', o); }
        for (uint32_t k = 0; k < d->n; k++) fprintf(o, "%s%" PRIu64, k ? ", " : " ", d->vals[k]);
    }
}

static void print_strs(FILE *o, const ptx_str *s, uint32_t n, const char *sep) {
    for (uint32_t i = 0; i < n; i++) {
        if (i) fputs(sep, o);
        put(o, s[i]);
    }
}

static void print_loc(FILE *o, const ptx_locinfo *l) {
    fprintf(o, "\t.loc\t%u %u %u", l->file, l->line, l->col);
    if (l->fn_name) fprintf(o, ", function_name %.*s", (int)l->fn_name_len, l->fn_name);
    if (l->ia_file) fprintf(o, ", inlined_at %u %u %u", l->ia_file, l->ia_line, l->ia_col);
    fputc('\n', o);
}

static void print_body(FILE *o, const ptx_func *f) {
    fputs("{\n", o);
    for (uint32_t i = 0; i < f->nstmts; i++) {
        const ptx_stmt *s = f->stmts[i];
        switch (s->kind) {
        case PTX_S_INST: ptx_print_inst(o, f, &s->u.inst); break;
        case PTX_S_LABEL: fputc('\n', o); put(o, s->u.name); fputs(":\n", o); break;
        case PTX_S_VAR: fputc('\t', o); print_var(o, s->u.var, " \t"); fputs(";\n", o); break;
        case PTX_S_LOC: print_loc(o, &s->u.locinfo); break;
        case PTX_S_PRAGMA: fputs("\t.pragma ", o); print_strs(o, s->u.dir->items, s->u.dir->n, ", "); fputs(";\n", o); break;
        case PTX_S_SCOPE_BEGIN: fputs("\t{\n", o); break;
        case PTX_S_SCOPE_END: fputs("\t}\n", o); break;
        case PTX_S_PROTO:
            fputc('\t', o);
            put(o, s->u.dir->name);
            fputs(" : .callprototype", o);
            print_sig(o, s->u.dir->proto, 1);
            fputs(";\n", o);
            break;
        case PTX_S_TARGETS:
            fputc('\t', o);
            put(o, s->u.dir->name);
            fputs(s->flag == 'b' ? ": .branchtargets " : ": .calltargets ", o);
            print_strs(o, s->u.dir->items, s->u.dir->n, ", ");
            fputs(";\n", o);
            break;
        default: break;
        }
    }
    fputs("}\n", o);
}

static void print_func(FILE *o, const ptx_func *f) {
    print_linkage(o, f->linkage);
    fputs(f->is_entry ? ".entry" : ".func", o);
    print_sig(o, f, 0);
    fputc('\n', o);
    if (f->has_body) print_body(o, f);
    else fputs(";\n", o);
}

void ptx_print_module(FILE *o, const ptx_module *m) {
    for (uint32_t i = 0; i < m->nstmts; i++) {
        const ptx_stmt *s = m->stmts[i];
        const ptx_dirinfo *d = s->u.dir;
        switch (s->kind) {
        case PTX_S_VERSION: fputs(".version ", o); put(o, d->raw); fputc('\n', o); break;
        case PTX_S_TARGET: fputs(".target ", o); print_strs(o, d->items, d->n, ", "); fputc('\n', o); break;
        case PTX_S_ADDRSIZE: fputs(".address_size ", o); put(o, d->raw); fputs("\n\n", o); break;
        case PTX_S_FILE:
            fputs("\t.file\t", o);
            put(o, d->raw);
            fputc(' ', o);
            put(o, d->name);
            for (uint32_t k = 0; k < d->n; k++) { fputs(", ", o); put(o, d->items[k]); }
            fputc('\n', o);
            break;
        case PTX_S_SECTION:
            fputs("\t.section\t", o);
            put(o, d->name);
            fputs("\n\t{", o);
            put(o, d->raw);
            fputs("}\n", o);
            break;
        case PTX_S_ALIAS: fputs(".alias ", o); print_strs(o, d->items, 2, ", "); fputs(";\n", o); break;
        case PTX_S_PRAGMA: fputs(".pragma ", o); print_strs(o, d->items, d->n, ", "); fputs(";\n", o); break;
        case PTX_S_VAR: print_var(o, s->u.var, " "); fputs(";\n", o); break;
        case PTX_S_LOC: print_loc(o, &s->u.locinfo); break;
        case PTX_S_FUNC: print_func(o, s->u.func); fputc('\n', o); break;
        default: break;
        }
    }
}

char *ptx_print_text(const ptx_module *m, size_t *len) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) abort();
    ptx_print_module(f, m);
    fclose(f);
    *len = n;
    return buf;
}
