/* The warps of a block shape, grouped into classes of warps whose thread
 * coordinates, lane by lane, are the same up to offsets that are uniform
 * within each warp (docs/divergence.md, "Warp-granular reasoning").
 *
 * Warp w's lane l has the coordinates tid(w, l) = U(w) + g(l), U(w) its
 * lane 0's: every warp of a class has the same g for tid.x, tid.y and
 * tid.z (and the same number of threads).  A class is described by warp
 * forms (warp_form.h): g exact, U known in the low bits its warps agree
 * on.  The default shape, 16×16 and 32×8 have one class; 48×2 two (warps
 * 0 and 2 lie in one row, warp 1 spans two); a partial last warp is a
 * class of its own.
 *
 * With no known shape the x extent is taken to be a multiple of 32: one
 * class stands for every warp, with tid.x = U + lane, U ≡ 0 (mod 32), and
 * tid.y, tid.z uniform and unknown.
 *
 * The forms of the monomials of the affine polynomials (aff_poly.h) are
 * built from the coordinates' forms with the warp form's own rules, once
 * per shape.  Where a class' U does not know enough bits for a product
 * (tid.x·tid.y at 16×16: tid.y's U differs between the warps), the
 * monomial is ⊥ for the class and its form is kept per warp, where U is
 * known: the class is split only for the polynomials that use it. */
#ifndef PTXRAY_WARP_CLASSES_H
#define PTXRAY_WARP_CLASSES_H
#include <stdbool.h>
#include "divergence.h"
#include "warp_form.h"

#define WC_MAXWARPS 32 /* 1024 threads, the largest block */
#define WC_MONO2 5  /* the first monomial of degree 2 (aff_fac) */
#define WC_NMONO2 9 /* those that may lack U's bits: all but laneid² */

typedef struct wc_class {
    uint32_t nlanes;          /* threads of the block in each of its warps */
    uint32_t nwarps, warp[WC_MAXWARPS];
    uint16_t bot;             /* monomials ⊥ for the class (see wc_mono) */
    uint8_t vary;             /* coordinates (bit DIV_C_X..DIV_C_LANE) that vary in the warp */
    /* 1, tid.x, tid.y, tid.z, laneid, then monomial i, over the class;
     * the lanes past nlanes are given lane 0's value (g = 0) */
    wform t[DIV_C_LANE + 1];
    wform mono[DIV_NCOEF2];
} wc_class;

typedef struct wc_shape {
    uint32_t block[3];        /* all 0: not known */
    uint32_t nwarps, nclasses;
    uint8_t cls[WC_MAXWARPS]; /* class of each warp */
    uint32_t u[WC_MAXWARPS][3]; /* tid of each warp's lane 0 (known shape) */
    /* Monomial i in lane 0 of warp w: U ≡ r (mod 2^k). */
    uint64_t r0[WC_MAXWARPS][DIV_NCOEF2];
    uint8_t k0[WC_MAXWARPS][DIV_NCOEF2];
    /* |c·m| ≤ INT64_MAX / 16 for every lane offset m of a monomial when
     * |c| ≤ climit: a sum of 15 such terms does not overflow. */
    int64_t climit;
    wc_class c[WC_MAXWARPS];
    /* Monomial i of degree 2 (WC_MONO2 + j, j < WC_NMONO2, the products
     * of two coordinates other than laneid²) in warp w, U known: where the
     * class' is ⊥. */
    wform wmono[WC_MAXWARPS][WC_NMONO2];
} wc_shape;

/* The classes of block shape block (all 0: unknown), built once and kept
 * per thread for the last shape asked for.  A block of more than 1024
 * threads has its first 32 warps. */
const wc_shape *wc_classes(const uint32_t block[3]);

/* Monomial i's form in warp w: its class' form, or the warp's own where
 * the class' is ⊥ (bit i of the class' bot). */
const wform *wc_mono(const wc_shape *s, uint32_t w, unsigned i);

/* Whether monomial i, ⊥ for class c (only the unknown shape's, whose U
 * is never known), has two factors that vary within the warp: its lane
 * offsets then depend on where the warp sits (tid.x², tid.x·laneid),
 * rather than on a uniform unknown times the lane (tid.x·tid.y). */
bool wc_position(const wc_class *c, unsigned i);

#endif
