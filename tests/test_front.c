/* Issue 14: a front end as strict and as broad as ptxas.
 *
 * 1. The invalid forms of the issue are rejected, each with a message that
 *    names the legal set, at the position of the offending token.
 * 2. Real PTX that ptxas accepts parses, prints as a fixed point and (with
 *    ptxas) round-trips: WARP_SZ, block-scoped labels and variables, elect
 *    with a sink, PTX 2.x declarations without ';', .extern prototypes,
 *    every .version 1.0-9.0, targets up to sm_120a, a UTF-8 BOM. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "toolchain.h"

#define HDR ".version 8.0\n.target sm_80\n.address_size 64\n\n"
#define KHEAD ".visible .entry k(\n\t.param .u64 p\n)\n{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
/* with K(body), body starts on line 12 */
#define K(body) HDR KHEAD body "\tret;\n}\n"

/* with KV(version, target, body), body starts on line 14 */
#define KV(v, t, body) ".version " v "\n.target " t "\n.address_size 64\n\n" KHEAD "\t.reg .b16 %h<4>;\n" \
                       "\t.reg .f32 %f<4>;\n" body "\tret;\n}\n"

typedef struct {
    const char *name, *text;
    unsigned line, col;
    const char *msg; /* the whole first message */
} bad_case;

static const bad_case bad[] = {
    {"ld_globl", K("\tld.globl.u32 %r1, [%rd1];\n"), 12, 4,
     "'globl' is not a state space of ld; expected one of .global .shared .shared::cta .shared::cluster .local "
     ".const .param .param::entry .param::func"},
    {"ld_shraed", K("\tld.shraed.u32 %r1, [%rd1];\n"), 12, 4,
     "'shraed' is not a state space of ld; expected one of .global .shared .shared::cta .shared::cluster .local "
     ".const .param .param::entry .param::func"},
    {"add_s33", K("\tadd.s33 %r1, %r2, 1;\n"), 12, 5,
     "'s33' is not a type of add; expected one of .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64 .f16 .f16x2 .bf16 "
     ".bf16x2 .f32x2 .u16x2 .s16x2"},
    {"mul_wide_u33", K("\tmul.wide.u33 %rd1, %r1, 4;\n"), 12, 10,
     "'u33' is not a type of mul; expected one of .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64 .f16 .f16x2 .bf16 .bf16x2 "
     ".f32x2"},
    {"bar_snyc", K("\tbar.snyc 0;\n"), 12, 5, "'snyc' is not an operation of bar; expected one of .sync .arrive .red"},
    {"st_shared_v3", K("\tst.shared.v3.u32 [%rd1], {%r1, %r2, %r3};\n"), 12, 11,
     "'v3' is not a vector width of st; expected one of .v2 .v4 .v8"},
    {"setp_bogus_cmp", K("\tsetp.foo.s32 %p1, %r1, 0;\n"), 12, 6,
     "'foo' is not a comparison of setp; expected one of .eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ .neu .ltu "
     ".leu .gtu .geu ..."},
    {"ldd", K("\tldd.global.u32 %r1, [%rd1];\n"), 12, 2, "unknown instruction 'ldd'; did you mean ld, ldu or add?"},
    {"setp_no_cmp", K("\tsetp.s32 %p1, %r1, 0;\n"), 12, 2,
     "'setp.s32' needs a comparison: one of .eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ .neu .ltu .leu .gtu .geu ..."},
    {"too_new_target", K("\telect.sync %r1|%p1, -1;\n"), 12, 2, "'elect' requires sm_90 or higher (the .target is sm_80)"},
    {"too_new_version",
     ".version 7.0\n.target sm_80\n.address_size 64\n\n" KHEAD "\tmapa.u64 %rd1, %rd2, %r1;\n\tret;\n}\n", 12, 2,
     "'mapa' requires PTX ISA 7.8 or later (the file is .version 7.0)"},
    {"register_type", K("\tadd.s64 %r1, %r2, 1;\n"), 12, 10,
     "operand 1 of 'add.s64': '%r1' is a .b32 register, not compatible with .s64"},
    {"operand_count", K("\tadd.s32 %r1, %r2;\n"), 12, 2, "'add.s32' takes 3 operands, not 2"},
    {"vector_count", K("\tld.global.v4.u32 {%r1, %r2}, [%rd1];\n"), 12, 19,
     "operand 1 of 'ld.global.v4.u32' must be a vector of 4 elements {a, b, ...}"},
    {"result_not_register", K("\tadd.s32 5, %r2, %r3;\n"), 12, 10,
     "operand 1 of 'add.s32' is its result and must be a register"},
    /* the unordered comparisons and .num/.nan are for floating-point types
     * (ptxas 13.0: "Mismatch between instruction type and comparison qualifier") */
    {"unordered_comparison_on_integer", K("\tsetp.equ.s32 %p1, %r1, %r2;\n"), 12, 2,
     "'setp.equ.s32': comparison .equ applies only to floating-point types"},
    /* .ftz is for .f32 and the half types; on .f64 only rcp and rsqrt take
     * it, and cvt needs an .f32 side; an integer .sat is add's, sub's and
     * mad.hi's; .approx on .f64 is rcp.approx.ftz.f64 alone (ptxas 13.0:
     * "Illegal modifier ...") */
    {"ftz_on_f64_fma", K("\tfma.rn.ftz.f64 %rd1, %rd2, %rd3, %rd1;\n"), 12, 2,
     "'fma.rn.ftz.f64': .ftz applies only to .f32, .f16, .f16x2 and .f32x2"},
    {"ftz_on_f64_setp", K("\tsetp.lt.ftz.f64 %p1, %rd2, %rd3;\n"), 12, 2,
     "'setp.lt.ftz.f64': .ftz applies only to .f32, .f16 and .f16x2"},
    {"ftz_on_integer_min", K("\tmin.ftz.s32 %r1, %r2, %r3;\n"), 12, 2,
     "'min.ftz.s32': .ftz applies only to .f32, .f16 and .f16x2"},
    {"ftz_cvt_without_f32", K("\tcvt.rzi.ftz.s32.f64 %r1, %rd2;\n"), 12, 2,
     "'cvt.rzi.ftz.s32.f64': .ftz applies only to a conversion from or to .f32"},
    {"sat_on_mul_lo", K("\tmul.lo.sat.s32 %r1, %r2, %r3;\n"), 12, 2,
     "'mul.lo.sat.s32': .sat applies only to .f32, .f16 and .f16x2"},
    {"sat_on_mad_lo", K("\tmad.lo.sat.s32 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'mad.lo.sat.s32': an integer .sat applies to mad only with .hi"},
    {"sat_on_mad24_lo", K("\tmad24.lo.sat.s32 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'mad24.lo.sat.s32': .sat applies only to mad24.hi.s32"},
    {"approx_sqrt_f64", K("\tsqrt.approx.f64 %rd1, %rd2;\n"), 12, 2,
     "'sqrt.approx.f64': .approx applies to .f64 only as rcp.approx.ftz.f64"},
    /* a float .sat is for .f32, .f16 and .f16x2 (not .f64 nor .bf16); .ftz
     * not on .bf16 except ex2, whose .bf16 forms need it and whose .f16
     * forms refuse it; mad has no half types; rsqrt, ex2, lg2, sin, cos
     * need .approx even with .ftz (ptxas 13.0: "Illegal modifier '.sat'",
     * "Unexpected instruction types specified for 'mad'", ".approx modifier
     * required", ".ftz modifier required for instruction 'ex2.bf16'") */
    {"sat_on_f64_add", K("\tadd.rn.sat.f64 %rd1, %rd2, %rd3;\n"), 12, 2,
     "'add.rn.sat.f64': .sat applies only to .s32, .f32, .f16 and .f16x2"},
    /* the packed integer types (no ptx_type of their own) and .f32x2 */
    {"rnd_on_s16x2_add", KV("8.0", "sm_90", "\tadd.rn.s16x2 %r1, %r2, %r3;\n"), 14, 2,
     "'add.rn.s16x2': a rounding modifier applies only to floating-point types"},
    {"sat_on_u16x2_add", KV("8.0", "sm_90", "\tadd.sat.u16x2 %r1, %r2, %r3;\n"), 14, 2,
     "'add.sat.u16x2': .sat applies only to .s32, .f32, .f16 and .f16x2"},
    {"ftz_on_s16x2_min", KV("8.0", "sm_90", "\tmin.ftz.s16x2 %r1, %r2, %r3;\n"), 14, 2,
     "'min.ftz.s16x2': .ftz applies only to .f32, .f16 and .f16x2"},
    {"lo_on_f32x2_mul", KV("8.6", "sm_100", "\tmul.lo.f32x2 %rd1, %rd2, %rd3;\n"), 14, 2,
     "'mul.lo.f32x2': .lo, .hi and .wide apply only to integer types"},
    {"sat_on_f32x2_add", KV("8.6", "sm_100", "\tadd.sat.f32x2 %rd1, %rd2, %rd3;\n"), 14, 2,
     "'add.sat.f32x2': .sat applies only to .s32, .f32, .f16 and .f16x2"},
    {"sat_on_f64_fma", K("\tfma.rn.sat.f64 %rd1, %rd2, %rd3, %rd1;\n"), 12, 2,
     "'fma.rn.sat.f64': .sat applies only to .f32, .f16 and .f16x2"},
    {"sat_on_bf16_fma", K("\tfma.rn.sat.bf16x2 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'fma.rn.sat.bf16x2': .sat applies only to .f32, .f16 and .f16x2"},
    {"ftz_on_bf16_max", K("\tmax.ftz.bf16x2 %r1, %r2, %r3;\n"), 12, 2,
     "'max.ftz.bf16x2': .ftz applies only to .f32, .f16 and .f16x2"},
    {"ftz_on_bf16_abs", KV("7.0", "sm_80", "\tabs.ftz.bf16 %h1, %h2;\n"), 14, 2,
     "'abs.ftz.bf16': .ftz applies only to .f32, .f16 and .f16x2"},
    {"ftz_on_f16_ex2", K("\tex2.approx.ftz.f16x2 %r1, %r2;\n"), 12, 2,
     "'ex2.approx.ftz.f16x2': .ftz applies only to .f32, .bf16 and .bf16x2"},
    {"ex2_bf16_without_ftz", KV("7.8", "sm_90", "\tex2.approx.bf16 %h1, %h2;\n"), 14, 2,
     "'ex2.approx.bf16' needs .ftz"},
    {"mad_f16", K("\tmad.rn.f16x2 %r1, %r2, %r3, %r1;\n"), 12, 8,
     "'f16x2' is not a type of mad; expected one of .u16 .u32 .u64 .s16 .s32 .s64 .f32 .f64"},
    {"abs_bf16_before_sm80", KV("7.0", "sm_75", "\tabs.bf16 %h1, %h2;\n"), 14, 5,
     "'.bf16' requires sm_80 or higher (the .target is sm_75)"},
    /* min/max: .relu for .s32 and .s16x2, .NaN and .xorsign.abs (both) for
     * .f32 and the half types; fma: .relu for the half types, not with
     * .sat; the half types round to nearest only but for fma.bf16 (ptxas
     * 13.0: "Illegal modifier '.relu' for instruction 'min' with type
     * '.u32'", "Modifier '.abs' requires modifier '.xorsign'", "Illegal
     * rounding modifier for instruction 'add'") */
    {"relu_on_u32_min", KV("8.0", "sm_90", "\tmin.relu.u32 %r1, %r2, %r3;\n"), 14, 2,
     "'min.relu.u32': .relu applies only to .s32 and .s16x2"},
    {"nan_on_f64_max", K("\tmax.NaN.f64 %rd1, %rd2, %rd3;\n"), 12, 2,
     "'max.NaN.f64': .NaN applies only to .f32, .f16, .f16x2, .bf16 and .bf16x2"},
    {"abs_without_xorsign", KV("8.0", "sm_90", "\tmin.abs.f32 %f1, %f2, %f3;\n"), 14, 2, "'min.abs.f32' needs .xorsign"},
    {"relu_on_f32_fma", K("\tfma.rn.relu.f32 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'fma.rn.relu.f32': .relu applies only to .f16, .f16x2, .bf16 and .bf16x2"},
    {"relu_with_sat_fma", K("\tfma.rn.relu.sat.f16x2 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'fma.rn.relu.sat.f16x2': .relu and .sat exclude each other"},
    {"rz_on_f16_fma", K("\tfma.rz.f16x2 %r1, %r2, %r3, %r1;\n"), 12, 2,
     "'fma.rz.f16x2': .f16 and .f16x2 take only the rounding modifier .rn"},
    {"rm_on_f16_add", K("\tadd.rm.f16x2 %r1, %r2, %r3;\n"), 12, 2,
     "'add.rm.f16x2': the half types take only the rounding modifier .rn"},
    /* set's destination type goes with its source type (ptxas 13.0:
     * "Unexpected instruction types specified for 'set'") */
    {"set_f32_from_f16x2", K("\tset.lt.f32.f16x2 %r1, %r2, %r3;\n"), 12, 2,
     "'set.lt.f32.f16x2': from .f16x2, set's destination type is one of .u32 .s32 .f16x2"},
    {"set_u64_from_s32", K("\tset.lt.u64.s32 %rd1, %r2, %r3;\n"), 12, 2,
     "'set.lt.u64.s32': from .s32, set's destination type is one of .u32 .s32 .f32 .f16 .bf16"},
    /* .cc is for 32- and 64-bit integers, not with .sat nor .wide; .approx
     * and .full take no rounding modifier (ptxas 13.0: "Illegal modifier
     * '.cc' for instruction 'add'", "Illegal rounding modifier for
     * instruction 'div.full'") */
    {"cc_on_f32_add", K("\tadd.cc.f32 %r1, %r2, %r3;\n"), 12, 2,
     "'add.cc.f32': .cc applies only to .u32, .s32, .u64 and .s64"},
    {"cc_with_sat_add", K("\tadd.cc.sat.s32 %r1, %r2, %r3;\n"), 12, 2, "'add.cc.sat.s32': .cc and .sat exclude each other"},
    {"cc_on_mad_wide", K("\tmad.wide.cc.u32 %rd1, %r2, %r3, %rd1;\n"), 12, 2,
     "'mad.wide.cc.u32': .cc does not apply to .wide"},
    {"rounding_with_full_div", K("\tdiv.full.rn.f32 %r1, %r2, %r3;\n"), 12, 2,
     "'div.full.rn.f32': a rounding modifier does not go with .full"},
    {"rounding_with_approx_sqrt", K("\tsqrt.approx.rn.f32 %r1, %r2;\n"), 12, 2,
     "'sqrt.approx.rn.f32': a rounding modifier does not go with .approx"},
    {"rsqrt_ftz_without_approx", K("\trsqrt.ftz.f32 %r1, %r2;\n"), 12, 2, "'rsqrt.ftz.f32' needs .approx"},
    {"sin_ftz_without_approx", K("\tsin.ftz.f32 %r1, %r2;\n"), 12, 2, "'sin.ftz.f32' needs .approx"},
    {"two_spaces", K("\tst.global.shared.u32 [%rd1], %r1;\n"), 12, 11, "more than one state space in 'st.global.shared.u32'"},
    {"float_literal_int", K("\tadd.s32 %r1, %r2, 1.5;\n"), 12, 20,
     "operand 3 of 'add.s32': a floating-point literal where the type is .s32"},
    {"unknown_version", ".version 9.1\n.target sm_80\n.address_size 64\n\n" KHEAD "\tret;\n}\n", 1, 10,
     "unknown PTX ISA version 9.1; the versions are 1.0-1.5, 2.0-2.3, 3.0-3.2, 4.0-4.3, 5.0-5.1, 6.0-6.5, "
     "7.0-7.8, 8.0-8.8 and 9.0"},
    {"target_needs_version", ".version 7.0\n.target sm_90\n.address_size 64\n\n" KHEAD "\tret;\n}\n", 2, 9,
     ".target sm_90 requires PTX ISA 7.8 or later (the file is .version 7.0)"},
    {"unknown_target", ".version 8.0\n.target sm_99\n.address_size 64\n\n" KHEAD "\tret;\n}\n", 2, 9,
     "unknown target 'sm_99'; expected sm_NN (sm_75 ... sm_121a), texmode_unified, texmode_independent, debug or "
     "map_f64_to_f32"},
    {"sibling_label_not_visible", K("\t@%p1 bra IN;\n\t{\nIN:\n\tadd.u32 %r1, %r1, 1;\n\t}\n"), 12, 11,
     "use of undeclared identifier 'IN'"},
    /* one namespace per block, parameters in the body's outermost one (ptxas: "Duplicate definition") */
    {"param_and_reg_same_name", K("\t.reg .pred p;\n"), 12, 13,
     "redeclaration of 'p' in the same scope: already declared as a parameter at line 6, column 14"},
    {"param_and_shared_same_name", K("\t.shared .u32 p;\n"), 12, 15,
     "redeclaration of 'p' in the same scope: already declared as a parameter at line 6, column 14"},
    {"param_and_label_same_name", K("p:\n"), 12, 1,
     "redeclaration of 'p' in the same scope: already declared as a parameter at line 6, column 14"},
    {"label_and_local_same_name", K("\t.local .u32 x;\nx:\n"), 13, 1,
     "redeclaration of 'x' in the same scope: already declared as a variable at line 12, column 14"},
    {"reg_and_shared_same_name", K("\t.reg .b32 x;\n\t.shared .u32 x;\n"), 13, 15,
     "redeclaration of 'x' in the same scope: already declared as a register at line 12, column 12"},
    {"range_element_redeclared", K("\t.reg .b32 %r5;\n"), 12, 12,
     "redeclaration of '%r5' in the same scope: already declared by the register range '%r<8>' at line 10, column 12"},
    {"range_element_leading_zero", K("\t.reg .b32 %r07;\n"), 12, 12,
     "redeclaration of '%r07' in the same scope: already declared by the register range '%r<8>' at line 10, column 12"},
    {"range_covers_earlier_name", K("\t.reg .b32 %q3;\n\t.reg .b32 %q<4>;\n"), 13, 12,
     "register range '%q<4>' declares '%q3', already declared in the same scope as a register at line 12, column 12"},
    /* cvt's packed and narrow formats (ptxparse/cvt_forms.def); ptxas 13.0 rejects each */
    {"cvt_e4m3x2_needs_satfinite", KV("8.7", "sm_100a", "\tcvt.rn.e4m3x2.f32 %h1, %f1, %f2;\n"), 14, 2,
     "'cvt.rn.e4m3x2.f32' needs .satfinite"},
    {"cvt_e4m3x2_rounding", KV("8.7", "sm_100a", "\tcvt.rz.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n"), 14, 5,
     "'rz' is not a rounding modifier of cvt.e4m3x2.f32; expected one of .rn"},
    {"cvt_e2m1x2_destination_width", KV("8.7", "sm_100a", "\tcvt.rn.satfinite.e2m1x2.f32 %h1, %f1, %f2;\n"), 14, 30,
     "operand 1 of 'cvt.rn.satfinite.e2m1x2.f32': '%h1' is a .b16 register, not compatible with .b8"},
    {"cvt_rs_arch_specific_only", KV("8.7", "sm_100", "\tcvt.rs.f16x2.f32 %r1, %f1, %f2, %r2;\n"), 14, 2,
     "cvt.rs.f16x2.f32 is not available on .target sm_100; it needs sm_100a, sm_103a"},
    {"cvt_e4m3x2_sm89_needs_8_1", KV("8.0", "sm_89", "\tcvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;\n"), 14, 2,
     "cvt.rn.e4m3x2.f32 is not available on .target sm_89; it needs sm_89+ with PTX ISA 8.1, sm_90+"},
    {"cvt_no_such_conversion", KV("8.7", "sm_100a", "\tcvt.rn.f32.e4m3x2 %f1, %h1;\n"), 14, 8,
     "cvt has no conversion from .e4m3x2 to .f32; the forms with .e4m3x2 are .e4m3x2.f32 .e4m3x2.f16x2 .f16x2.e4m3x2"},
    {"cvt_ue8m0x2_no_relu", KV("8.7", "sm_100a", "\tcvt.rz.relu.ue8m0x2.f32 %h1, %f1, %f2;\n"), 14, 8,
     "'relu' is not a modifier of cvt.rz.ue8m0x2.f32; it takes .satfinite"},
    {"prefetch_needs_l2", KV("8.0", "sm_90", "\tcp.async.bulk.prefetch.global [%rd1], 256;\n"), 14, 2,
     "'cp.async.bulk.prefetch.global' needs the level .L2"},
    {"prefetch_operands", KV("8.0", "sm_90", "\tcp.async.bulk.prefetch.L2.global [%rd1];\n"), 14, 2,
     "'cp.async.bulk.prefetch.L2.global' takes 2 operands ([a], size), not 1"},
    {"prefetch_tensor_coordinates", KV("8.0", "sm_90", "\tcp.async.bulk.prefetch.tensor.1d.L2.global [%rd1, {%r1, %r2}];\n"),
     14, 45, "operand 1 of 'cp.async.bulk.prefetch.tensor.1d.L2.global' needs 1 coordinate for .1d, not 2"},
    /* recent families (probes against ptxas 13.0) */
    {"setmaxnreg_multiple_of_8", KV("8.0", "sm_90a", "\tsetmaxnreg.dec.sync.aligned.u32 41;\n"), 14, 34,
     "operand 1 of 'setmaxnreg.dec.sync.aligned.u32' must be a multiple of 8 from 24 to 256, not 41"},
    {"prefetch_tensormap_global", KV("8.0", "sm_90", "\tprefetch.global.tensormap [%rd1];\n"), 14, 2,
     "'prefetch.global.tensormap': .tensormap takes the state space .const or .param, or none"},
    {"f32x2_register_pair", KV("8.6", "sm_100a", "\tadd.rn.f32x2 %rd1, %rd2, 0f3F800000;\n"), 14, 27,
     "operand 3 of 'add.rn.f32x2' must be a .b64 register (a pair of .f32)"},
    {"b128_needs_8_3", ".version 8.2\n.target sm_90\n.address_size 64\n\n" KHEAD "\t.reg .b128 %q;\n\tret;\n}\n", 12, 13,
     "'.b128' requires PTX ISA 8.3 or later (the file is .version 8.2)"},
    /* a modifier written twice (ptxas 13.0: "Duplicate .volatile modifier"...) */
    {"volatile_twice", K("\tld.volatile.volatile.global.u32 %r1, [%rd1];\n"), 12, 13,
     "'.volatile' is repeated in 'ld.volatile.volatile.global.u32'"},
    {"relaxed_twice", K("\tld.relaxed.relaxed.gpu.global.u32 %r1, [%rd1];\n"), 12, 12,
     "'.relaxed' is repeated in 'ld.relaxed.relaxed.gpu.global.u32'"},
    {"evict_last_twice", K("\tld.global.L1::evict_last.L1::evict_last.u32 %r1, [%rd1];\n"), 12, 26,
     "'.L1::evict_last' is repeated in 'ld.global.L1::evict_last.L1::evict_last.u32'"},
    {"ftz_twice", K("\tadd.ftz.ftz.f32 %r1, %r2, %r3;\n"), 12, 9, "'.ftz' is repeated in 'add.ftz.ftz.f32'"},
    {"return_and_parameter_same_name", HDR ".func (.param .b32 p) f(.param .b32 p)\n{\n\tret;\n}\n", 5, 37,
     "redeclaration of 'p' in the same scope: already declared as a parameter at line 5, column 20"},
};

ParameterizedTestParameters(front, rejected) {
    static size_t idx[sizeof bad / sizeof bad[0]];
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) idx[i] = i;
    return cr_make_param_array(size_t, idx, sizeof idx / sizeof idx[0]);
}

ParameterizedTest(size_t *i, front, rejected) {
    const bad_case *c = &bad[*i];
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("t.ptx", c->text, strlen(c->text), &d);
    cr_expect_null(m, "%s: accepted", c->name);
    ptx_module_free(m);
    cr_assert_geq(d.n, 1, "%s: no diagnostic", c->name);
    cr_expect_eq(d.nerrors, 1, "%s: %u errors", c->name, d.nerrors);
    cr_expect(d.v[0].severity == PTX_DIAG_ERROR);
    cr_expect(d.v[0].loc.line == c->line && d.v[0].loc.col == c->col, "%s: at %u:%u, want %u:%u", c->name,
              d.v[0].loc.line, d.v[0].loc.col, c->line, c->col);
    cr_expect_str_eq(d.v[0].msg, c->msg, "%s", c->name);
    ptx_diags_free(&d);
}

/* The legal neighbours of the rejected .ftz/.sat/.approx forms above, each
 * assembled by ptxas 13.0 for sm_80. */
Test(front, ftz_sat_approx_neighbours_accepted) {
    const char *text = K("\trcp.approx.ftz.f64 %rd1, %rd2;\n\trcp.rn.ftz.f64 %rd1, %rd2;\n"
                         "\trsqrt.approx.ftz.f64 %rd1, %rd2;\n\trsqrt.approx.f64 %rd1, %rd2;\n"
                         "\tmad.hi.sat.s32 %r1, %r2, %r3, %r1;\n\tmad24.hi.sat.s32 %r1, %r2, %r3, %r1;\n"
                         "\tadd.sat.s32 %r1, %r2, %r3;\n\tcvt.ftz.f64.f32 %rd1, %r2;\n\tcvt.rn.ftz.f32.f64 %r1, %rd2;\n"
                         "\tcvt.rn.ftz.f32.s32 %r1, %r2;\n\tslct.ftz.u32.f32 %r1, %r2, %r3, %r4;\n"
                         "\tmin.ftz.NaN.f32 %r1, %r2, %r3;\n\tdiv.rn.ftz.f32 %r1, %r2, %r3;\n"
                         "\tadd.rn.sat.f32 %r1, %r2, %r3;\n\tmad.rn.ftz.sat.f32 %r1, %r2, %r3, %r1;\n"
                         "\tfma.rn.ftz.sat.f16x2 %r1, %r2, %r3, %r1;\n\tfma.rn.relu.bf16x2 %r1, %r2, %r3, %r1;\n"
                         "\tfma.rn.bf16x2 %r1, %r2, %r3, %r1;\n\tmax.ftz.NaN.f16x2 %r1, %r2, %r3;\n"
                         "\tmin.NaN.bf16x2 %r1, %r2, %r3;\n\tex2.approx.f16x2 %r1, %r2;\n"
                         "\tex2.approx.ftz.f32 %r1, %r2;\n\trsqrt.approx.ftz.f32 %r1, %r2;\n"
                         "\tlg2.approx.ftz.f32 %r1, %r2;\n\tsetp.ftz.lt.f16x2 %p1|%p2, %r1, %r2;\n"
                         "\tmin.NaN.f32 %r1, %r2, %r3;\n\tmax.NaN.bf16x2 %r1, %r2, %r3;\n"
                         "\tfma.rz.bf16x2 %r1, %r2, %r3, %r1;\n\tfma.rm.relu.bf16x2 %r1, %r2, %r3, %r1;\n"
                         "\tfma.rn.ftz.relu.f16x2 %r1, %r2, %r3, %r1;\n\tadd.rn.f16x2 %r1, %r2, %r3;\n"
                         "\tadd.cc.s32 %r1, %r2, %r3;\n\tmad.lo.cc.u64 %rd1, %rd2, %rd3, %rd1;\n"
                         "\tdiv.full.ftz.f32 %r1, %r2, %r3;\n\tsqrt.approx.ftz.f32 %r1, %r2;\n");
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("t.ptx", text, strlen(text), &d);
    cr_expect_not_null(m, "%s", d.n ? d.v[0].msg : "");
    ptx_module_free(m);
    ptx_diags_free(&d);
}

/* abs and neg have .bf16 since PTX ISA 7.0 and sm_80 (add, sub and mul
 * only from sm_90), ex2's .bf16 forms with .ftz, min/max .relu and
 * .xorsign.abs on sm_90, set's pairs of types: ptxas 13.0 assembles each. */
Test(front, bf16_abs_neg_ex2_accepted) {
    static const char *const text[] = {
        KV("7.0", "sm_80", "\tabs.bf16 %h1, %h2;\n\tneg.bf16x2 %r1, %r2;\n\tabs.ftz.f16 %h1, %h2;\n"
                           "\tset.lt.u16.f16 %h1, %h2, %h3;\n\tset.lt.ftz.u32.f16x2 %r1, %r2, %r3;\n"
                           "\tset.lt.f16.f32 %h1, %f2, %f3;\n\tset.lt.f32.s32 %f1, %r2, %r3;\n"),
        KV("8.0", "sm_90", "\tex2.approx.ftz.bf16 %h1, %h2;\n\tex2.approx.ftz.bf16x2 %r1, %r2;\n"
                           "\tadd.rn.bf16 %h1, %h2, %h3;\n\tmul.rn.sat.f16 %h1, %h2, %h3;\n"
                           "\tmin.relu.s32 %r1, %r2, %r3;\n\tmax.relu.s16x2 %r1, %r2, %r3;\n"
                           "\tmin.NaN.xorsign.abs.f32 %f1, %f2, %f3;\n\tmax.xorsign.abs.bf16x2 %r1, %r2, %r3;\n"
                           "\tset.lt.bf16.f16 %h1, %h2, %h3;\n\tset.lt.bf16x2.bf16x2 %r1, %r2, %r3;\n"),
    };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *m = ptx_parse_string("t.ptx", text[i], strlen(text[i]), &d);
        cr_expect_not_null(m, "%zu: %s", i, d.n ? d.v[0].msg : "");
        ptx_module_free(m);
        ptx_diags_free(&d);
    }
}

/* The binary: exit 2, the message with its source line and caret, nothing written. */
Test(front, cli_rejects_with_caret) {
    char dir[] = "/tmp/ptxray-front-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char in[128], out[128];
    snprintf(in, sizeof in, "%s/bad.ptx", dir);
    snprintf(out, sizeof out, "%s/out.ptx", dir);
    FILE *f = fopen(in, "w");
    fputs(K("\tld.globl.u32 %r1, [%rd1];\n"), f);
    fclose(f);
    char *argv[] = {(char *)tu_bin(), "print", in, "-o", out, NULL};
    char *o, *e;
    int rc = tu_run(argv, &o, &e);
    cr_expect_eq(rc, 2);
    char want[512];
    snprintf(want, sizeof want,
             "%s:12:4: error: 'globl' is not a state space of ld; expected one of .global .shared .shared::cta "
             ".shared::cluster .local .const .param .param::entry .param::func\n \tld.globl.u32 %%r1, [%%rd1];\n \t  ^\n",
             in);
    cr_expect_str_eq(e, want);
    cr_expect_str_eq(o, "");
    FILE *w = fopen(out, "r");
    cr_expect_null(w, "output written despite the error");
    if (w) fclose(w);
    free(o);
    free(e);
    remove(in);
    remove(dir);
}

static ptx_module *parse_file_ok(const char *path) {
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_file(path, &d);
    if (!m || d.n) ptx_diags_print(&d, path, NULL, 0, stderr);
    cr_assert_not_null(m, "%s does not parse", path);
    cr_expect_eq(d.n, 0, "%s: %u diagnostics", path, d.n);
    ptx_diags_free(&d);
    return m;
}

static void fixed_point(const char *path) {
    ptx_module *m = parse_file_ok(path);
    size_t l1, l2;
    char *p1 = tu_print(m, &l1);
    ptx_module *m2 = tu_parse_ok("printed", p1);
    char *p2 = tu_print(m2, &l2);
    cr_expect(l1 == l2 && !memcmp(p1, p2, l1), "%s: print(parse(print(x))) != print(x)", path);
    free(p1);
    free(p2);
    ptx_module_free(m);
    ptx_module_free(m2);
}

Test(front, accepted_files_are_fixed_points) {
    const char *files[] = {"tests/data/front/block_scopes_sm100a.ptx", "tests/data/front/warp_sz.ptx",
                           "tests/data/front/targets_sm120a.ptx", "tests/front/decl_no_semicolon_2.3.ptx",
                           "tests/front/old_1.4.ptx", "tests/front/bom.ptx",
                           "tests/data/front/cvt_packed_sm100a.ptx", "tests/data/front/repeated_sat.ptx",
                           "tests/data/front/range_leading_zero.ptx"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) fixed_point(tu_src(files[i]));
}

/* An inner block may reuse a name of an enclosing one (a parameter, a
 * register), and a range's prefix or an element past its end is another
 * name (ptxas accepts all of these). */
Test(front, inner_blocks_and_ranges_reuse_names) {
    ptx_module_free(tu_parse_ok("shadow", K("\t{\n\t.reg .pred p;\n\t.shared .u32 %r1;\n\t{\np:\n\t}\n\t}\n"
                                               "\t.reg .b32 %r8;\n\t.reg .b32 %r;\n\t.reg .b32 %r08;\n")));
    ptx_module_free(tu_parse_ok("range_prefix", HDR ".visible .entry k(.param .u32 p, .param .u32 q2)\n{\n"
                                                    "\t.reg .pred p<2>;\n\t.reg .pred q<2>;\n\tret;\n}\n"));
}

/* A range element is read by value, as ptxas reads it: %r01 and %r001 are
 * %r1, %r010 is %r10, %r00 is %r0; the register is named without the
 * zeros.  Past the range's end a spelling is still undeclared. */
Test(front, range_elements_by_value) {
    char *text = tu_read(tu_src("tests/data/front/range_leading_zero.ptx"), NULL);
    ptx_module *m = tu_parse_ok("range_leading_zero", text);
    const ptx_func *f = m->funcs[0];
    const ptx_inst *in[8];
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nstmts && n < 8; i++)
        if (f->stmts[i]->kind == PTX_S_INST) in[n++] = &f->stmts[i]->u.inst;
    cr_assert_eq(n, 8);
    /* mov %r01; add %r2, %r1, %r001; mov %r10; add %r3, %r010, %r02; st ..., %r00 */
    uint32_t r1 = in[1]->opd[0].n;
    cr_expect_eq(in[2]->opd[1].n, r1);
    cr_expect_eq(in[2]->opd[2].n, r1);
    cr_expect_eq(in[4]->opd[1].n, in[3]->opd[0].n);
    cr_expect(ptx_str_eq(f->regs[r1].name, "%r1"), "%.*s", (int)f->regs[r1].name.n, f->regs[r1].name.p);
    cr_expect(ptx_str_eq(f->regs[in[4]->opd[2].n].name, "%r2"));
    cr_expect(ptx_str_eq(f->regs[in[6]->opd[1].n].name, "%r0"));
    ptx_module_free(m);
    free(text);
    ptx_diags d;
    ptx_diags_init(&d);
    const char *past = K("\tmov.u32 %r008, 1;\n");
    cr_expect_null(ptx_parse_string("past_end", past, strlen(past), &d));
    cr_assert_gt(d.n, 0);
    cr_expect_str_eq(d.v[0].msg, "use of undeclared register '%r008'");
    ptx_diags_free(&d);
}

/* Sibling blocks reuse a label: each branch reaches the label of its block. */
Test(front, block_scoped_labels_resolve_per_block) {
    ptx_module *m = parse_file_ok(tu_src("tests/data/front/block_scopes_sm100a.ptx"));
    const ptx_func *f = ptx_module_find_func(m, "k");
    uint32_t seen = 0;
    for (uint32_t i = 0; i < f->nstmts; i++) {
        const ptx_inst *in = &f->stmts[i]->u.inst;
        if (f->stmts[i]->kind != PTX_S_INST || in->op != PTX_OPC_BRA) continue;
        uint32_t t = ptx_label_ref(f, &in->opd[0]);
        cr_assert_neq(t, UINT32_MAX);
        /* the next label after the branch is its own block's */
        uint32_t next = i;
        while (f->stmts[next]->kind != PTX_S_LABEL) next++;
        cr_expect_eq(t, next);
        seen++;
    }
    cr_expect_eq(seen, 2);
    ptx_module_free(m);
}

Test(front, bom_reads_as_blanks) {
    size_t n;
    char *t = tu_read(tu_src("tests/front/bom.ptx"), &n);
    cr_assert(n > 3 && (unsigned char)t[0] == 0xEF);
    ptx_module *a = tu_parse_ok("bom", t), *b = tu_parse_ok("nobom", t + 3);
    size_t la, lb;
    char *pa = tu_print(a, &la), *pb = tu_print(b, &lb);
    cr_expect(la == lb && !memcmp(pa, pb, la));
    free(pa);
    free(pb);
    free(t);
    ptx_module_free(a);
    ptx_module_free(b);
}

/* Every PTX ISA version ptxas 13.0 knows, with a target it allows. */
Test(front, every_version) {
    const char *v[] = {"1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2",
                       "4.0", "4.1", "4.2", "4.3", "5.0", "5.1", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0",
                       "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4",
                       "8.5", "8.6", "8.7", "8.8", "9.0"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, ".version %s\n.target sm_10\n.entry k\n{\n\tret;\n}\n", v[i]);
        ptx_module_free(tu_parse_ok(v[i], text));
    }
    const char *tg[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a",
                        "sm_110", "sm_120", "sm_120a", "sm_121a"};
    for (size_t i = 0; i < sizeof tg / sizeof tg[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, ".version 9.0\n.target %s\n.address_size 64\n.entry k()\n{\n\tret;\n}\n", tg[i]);
        ptx_module_free(tu_parse_ok(tg[i], text));
    }
}

/* The printer's oracle on the new files (tests/data/front/ is also in
 * corpus::ptxas_code_identical_after_print); PTX 2.3 at sm_75. */
Test(front, ptxas_round_trip, .timeout = 300) {
    if (!tc_find_ptxas()) cr_skip_test("ptxas not found: round trip not checked");
    char *argv[] = {(char *)tu_bin(), "roundtrip", "--arch", "sm_75",
                    (char *)strdup(tu_src("tests/front/decl_no_semicolon_2.3.ptx")), NULL};
    char *o, *e;
    int rc = tu_run(argv, &o, &e);
    cr_expect_eq(rc, 0, "%s%s", o, e);
    cr_expect(strstr(o, ": identical (sm_75") != NULL, "%s%s", o, e);
    free(argv[4]);
    free(o);
    free(e);
}

/* Arena chunks freed with one module serve the next (arena.c): a module
 * built in reused memory is the same as one built in fresh memory. */
Test(front, modules_in_reused_arena_chunks_are_identical) {
    const char *a = tu_src("ptx-corpus/sm_90/fir_unrolled.ptx"), *b = tu_src("ptx-corpus/sm_80/fir_unrolled.ptx");
    size_t la, lb;
    char *ta = tu_read(a, &la), *tb = tu_read(b, &lb);
    cr_assert(ta && tb);
    char *first = NULL;
    size_t lfirst = 0;
    for (int round = 0; round < 3; round++) {
        ptx_diags d;
        ptx_diags_init(&d);
        ptx_module *ma = ptx_parse_string(a, ta, la, &d);
        ptx_module *mb = ptx_parse_string(b, tb, lb, &d);
        cr_assert(ma && mb && d.n == 0, "round %d: %u diagnostics", round, d.n);
        cr_expect(ma->src_in_arena && ma->src_len == la && !memcmp(ma->src, ta, la));
        size_t l;
        char *p = tu_print(ma, &l);
        if (!first) {
            first = p;
            lfirst = l;
        } else {
            cr_expect(l == lfirst && !memcmp(p, first, l), "round %d prints differently", round);
            free(p);
        }
        ptx_module_free(mb); /* freed in the other order: chunks are reused crosswise */
        ptx_module_free(ma);
        ptx_diags_free(&d);
    }
    free(first);
    free(ta);
    free(tb);
}

/* The validator checks instructions as they are built but holds its messages
 * back: a file with a syntax error reports that error only, and the error
 * limit counts the validator's messages in source order. */
Test(front, validator_messages_wait_for_a_clean_parse) {
    const char *head = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                       "\t.reg .b32 %r<4>;\n";
    char text[4096];
    int n = snprintf(text, sizeof text, "%s\tadd.s33 %%r1, %%r2, %%r3;\n\tmov.b32 %%r1 %%r2;\n\tret;\n}\n", head);
    cr_assert(n > 0 && (size_t)n < sizeof text);
    ptx_diags d;
    ptx_diags_init(&d);
    ptx_module *m = ptx_parse_string("t.ptx", text, (size_t)n, &d);
    cr_assert_null(m);
    cr_assert_eq(d.nerrors, 1);
    cr_expect_eq(d.v[0].loc.line, 8, "the syntax error, not add.s33 on line 7: %s", d.v[0].msg);
    ptx_diags_free(&d);

    /* 25 bad instructions: the first 20 are reported, in order */
    n = snprintf(text, sizeof text, "%s", head);
    for (int i = 0; i < 25; i++) n += snprintf(text + n, sizeof text - (size_t)n, "\tadd.s%d %%r1, %%r2, %%r3;\n", 33 + i);
    n += snprintf(text + n, sizeof text - (size_t)n, "\tret;\n}\n");
    ptx_diags_init(&d);
    m = ptx_parse_string("t.ptx", text, (size_t)n, &d);
    cr_assert_null(m);
    cr_expect_eq(d.nerrors, 20);
    cr_expect(d.truncated);
    for (uint32_t i = 0; i < d.n && i < 20; i++) {
        char want[16];
        snprintf(want, sizeof want, "'s%u'", 33 + i);
        cr_expect_eq(d.v[i].loc.line, 7 + i);
        cr_expect(strstr(d.v[i].msg, want) != NULL, "message %u: %s", i, d.v[i].msg);
    }
    ptx_diags_free(&d);
}
