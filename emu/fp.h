/* Floating-point rounding without the host's rounding mode.
 *
 * A result is described exactly by a double s (the correctly rounded value)
 * and the sign of the rounding error (exact - s), which error-free
 * transformations give for add (TwoSum), mul (fma), div and sqrt (residual
 * by fma).  fp_round() then rounds that exact value to any binary format
 * (f16, bf16, tf32, f32, f64, e4m3, e5m2) in any PTX rounding mode, so
 * every .rn/.rz/.rm/.rp/.rna result is exact, including subnormals and
 * overflow. */
#ifndef PTXRAY_EMU_FP_H
#define PTXRAY_EMU_FP_H
#include <stdbool.h>
#include <stdint.h>

typedef struct fpfmt {
    uint8_t ebits, mbits;
    uint8_t kind;   /* FK_IEEE, FK_E4M3 (no infinities, S.1111.111 is NaN) */
} fpfmt;
enum { FK_IEEE, FK_E4M3 };

extern const fpfmt FMT_F16, FMT_BF16, FMT_TF32, FMT_F32, FMT_F64, FMT_E4M3, FMT_E5M2;

/* Rounding modes as in emu_internal.h: RND_RN=1, RZ, RM, RP, RNA. */
uint64_t fp_round(double s, int esign, fpfmt f, int mode, bool satfinite);
double fp_decode(uint64_t bits, fpfmt f);

static inline int fp_sign(double e) { return e > 0 ? 1 : e < 0 ? -1 : 0; }

/* Error-free transformations: exact = s + (returned error). */
double fp_two_sum_err(double a, double b, double s);

/* f32 helpers (raw bits in and out). */
uint32_t f32_bits(float f);
float f32_from(uint32_t b);
uint64_t f64_bits(double d);
double f64_from(uint64_t b);
float f32_ftz(float f);   /* flush a subnormal to a same-signed zero */
double f64_ftz(double d);

/* Arithmetic with an explicit rounding mode into format f (f32/f64/f16/bf16). */
uint64_t fp_add(double a, double b, fpfmt f, int mode);
uint64_t fp_mul(double a, double b, fpfmt f, int mode);
uint64_t fp_fma(double a, double b, double c, fpfmt f, int mode);
uint64_t fp_div(double a, double b, fpfmt f, int mode);
uint64_t fp_sqrt(double a, fpfmt f, int mode);

/* Exact integer -> format conversion in a rounding mode. */
uint64_t fp_from_i64(int64_t v, fpfmt f, int mode);
uint64_t fp_from_u64(uint64_t v, fpfmt f, int mode);

static inline float f16_to_f32(uint16_t h) { return (float)fp_decode(h, FMT_F16); }
static inline float bf16_to_f32(uint16_t h) { return (float)fp_decode(h, FMT_BF16); }

#endif
