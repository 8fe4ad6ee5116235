/* Boolean gadgets as bellpepper-core builds them; see boolean.h. */
#include "gadgets/boolean.h"

#include <pthread.h>

static cz_fr pow2_tab[256];
static pthread_once_t pow2_once = PTHREAD_ONCE_INIT;

static void pow2_init(void) {
    pow2_tab[0] = CZ_FR_ONE_V;
    for (int i = 1; i < 256; i++) cz_fr_double(&pow2_tab[i], &pow2_tab[i - 1]);
}

const cz_fr *cz_gadget_pow2(unsigned k) {
    pthread_once(&pow2_once, pow2_init);
    return &pow2_tab[k & 255];
}

static inline const cz_fr *bit_value(bool v) { return v ? &CZ_FR_ONE_V : &CZ_FR_ZERO_V; }

/* Allocates a bit-valued aux variable (no constraint). */
static inline cz_var alloc_raw(cz_cs *cs, bool v) { return cz_cs_alloc(cs, bit_value(v)); }

cz_bool cz_bit_alloc(cz_cs *cs, bool value) {
    cz_var b = alloc_raw(cs, value);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc l = CZ_LC_ZERO, r = CZ_LC_ZERO;
        cz_lc_add(cs, &l, CZ_CS_ONE, NULL);
        cz_lc_sub(cs, &l, b, NULL);
        cz_lc_add(cs, &r, b, NULL);
        cz_cs_enforce(cs, &l, &r, NULL);
        cz_lc_free(cs, &l);
        cz_lc_free(cs, &r);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return (cz_bool){b, CZ_BOOL_IS, (uint8_t)value};
}

void cz_bool_lc_add(cz_cs *cs, cz_lc *lc, cz_bool b, const cz_fr *coeff) {
    if (!cz_cs_needs_lcs(cs)) return;
    switch (b.kind) {
    case CZ_BOOL_CONST:
        if (b.val) cz_lc_add(cs, lc, CZ_CS_ONE, coeff);
        break;
    case CZ_BOOL_IS: cz_lc_add(cs, lc, b.var, coeff); break;
    default:
        cz_lc_add(cs, lc, CZ_CS_ONE, coeff);
        cz_lc_sub(cs, lc, b.var, coeff);
    }
}

void cz_bool_lc_sub(cz_cs *cs, cz_lc *lc, cz_bool b, const cz_fr *coeff) {
    if (!cz_cs_needs_lcs(cs)) return;
    cz_fr m;
    cz_fr_neg(&m, coeff ? coeff : &CZ_FR_ONE_V);
    cz_bool_lc_add(cs, lc, b, &m);
}

/* Enforces a * b = c for three LCs built by the caller and frees them. */
static void enforce_free(cz_cs *cs, cz_lc *a, cz_lc *b, cz_lc *c) {
    cz_cs_enforce(cs, a, b, c);
    cz_lc_free(cs, a);
    cz_lc_free(cs, b);
    cz_lc_free(cs, c);
}

/* AllocatedBit::xor: (2a) * b = a + b - c, on the underlying bits. */
static cz_bool bit_xor(cz_cs *cs, cz_var a, uint8_t av, cz_var b, uint8_t bv) {
    uint8_t v = av ^ bv;
    cz_var c = alloc_raw(cs, v);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_lc_add(cs, &la, a, NULL);
        cz_lc_add(cs, &la, a, NULL);
        cz_lc_add(cs, &lb, b, NULL);
        cz_lc_add(cs, &lc, a, NULL);
        cz_lc_add(cs, &lc, b, NULL);
        cz_lc_sub(cs, &lc, c, NULL);
        enforce_free(cs, &la, &lb, &lc);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return (cz_bool){c, CZ_BOOL_IS, v};
}

/* AllocatedBit::and (a*b = c), and_not (a*(1-b) = c), nor ((1-a)*(1-b) = c): na / nb say which
 * operand enters negated; av / bv are the underlying bit values. */
static cz_bool bit_and_kind(cz_cs *cs, cz_var a, uint8_t av, bool na, cz_var b, uint8_t bv, bool nb) {
    uint8_t v = (av ^ na) & (bv ^ nb);
    cz_var c = alloc_raw(cs, v);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        if (na) {
            cz_lc_add(cs, &la, CZ_CS_ONE, NULL);
            cz_lc_sub(cs, &la, a, NULL);
        } else {
            cz_lc_add(cs, &la, a, NULL);
        }
        if (nb) {
            cz_lc_add(cs, &lb, CZ_CS_ONE, NULL);
            cz_lc_sub(cs, &lb, b, NULL);
        } else {
            cz_lc_add(cs, &lb, b, NULL);
        }
        cz_lc_add(cs, &lc, c, NULL);
        enforce_free(cs, &la, &lb, &lc);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return (cz_bool){c, CZ_BOOL_IS, v};
}

cz_bool cz_bool_xor(cz_cs *cs, cz_bool a, cz_bool b) {
    /* (Constant(false), x) | (x, Constant(false)) => x; (Constant(true), x) | (x, Constant(true)) => !x */
    if (a.kind == CZ_BOOL_CONST && !a.val) return b;
    if (b.kind == CZ_BOOL_CONST && !b.val) return a;
    if (a.kind == CZ_BOOL_CONST) return cz_bool_not(b);
    if (b.kind == CZ_BOOL_CONST) return cz_bool_not(a);
    cz_bool r = bit_xor(cs, a.var, cz_bool_bit(a), b.var, cz_bool_bit(b));
    return a.kind == b.kind ? r : cz_bool_not(r);
}

cz_bool cz_bool_and(cz_cs *cs, cz_bool a, cz_bool b) {
    if ((a.kind == CZ_BOOL_CONST && !a.val) || (b.kind == CZ_BOOL_CONST && !b.val)) return cz_bool_const(false);
    if (a.kind == CZ_BOOL_CONST) return b;
    if (b.kind == CZ_BOOL_CONST) return a;
    if (a.kind == CZ_BOOL_IS && b.kind == CZ_BOOL_IS)
        return bit_and_kind(cs, a.var, cz_bool_bit(a), false, b.var, cz_bool_bit(b), false);
    if (a.kind == CZ_BOOL_NOT && b.kind == CZ_BOOL_NOT)
        return bit_and_kind(cs, a.var, cz_bool_bit(a), true, b.var, cz_bool_bit(b), true);
    /* (Is(is), Not(not)) | (Not(not), Is(is)) => and_not(is, not) */
    if (a.kind == CZ_BOOL_IS) return bit_and_kind(cs, a.var, cz_bool_bit(a), false, b.var, cz_bool_bit(b), true);
    return bit_and_kind(cs, b.var, cz_bool_bit(b), false, a.var, cz_bool_bit(a), true);
}

#define K(x) ((x).kind == CZ_BOOL_CONST)
#define KF(x) (K(x) && !(x).val)
#define KT(x) (K(x) && (x).val)

cz_bool cz_bool_sha256_ch(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c) {
    uint8_t v = (a.val & b.val) ^ ((a.val ^ 1) & c.val);
    if (K(a) && K(b) && K(c)) return cz_bool_const(v);
    if (KF(a)) return c;
    if (KF(b)) return cz_bool_and(cs, cz_bool_not(a), c);
    if (KF(c)) return cz_bool_and(cs, a, b);
    if (KT(c)) return cz_bool_not(cz_bool_and(cs, a, cz_bool_not(b)));
    if (KT(b)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(c)));
    /* general case (a may be constant true): a ch; (b - c) * a = ch - c */
    cz_var ch = alloc_raw(cs, v);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_bool_lc_add(cs, &la, b, NULL);
        cz_bool_lc_sub(cs, &la, c, NULL);
        cz_bool_lc_add(cs, &lb, a, NULL);
        cz_lc_add(cs, &lc, ch, NULL);
        cz_bool_lc_sub(cs, &lc, c, NULL);
        enforce_free(cs, &la, &lb, &lc);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return (cz_bool){ch, CZ_BOOL_IS, v};
}

cz_bool cz_bool_sha256_maj(cz_cs *cs, cz_bool a, cz_bool b, cz_bool c) {
    uint8_t v = (a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val);
    if (K(a) && K(b) && K(c)) return cz_bool_const(v);
    if (KF(a)) return cz_bool_and(cs, b, c);
    if (KF(b)) return cz_bool_and(cs, a, c);
    if (KF(c)) return cz_bool_and(cs, a, b);
    if (KT(c)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(b)));
    if (KT(b)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(a), cz_bool_not(c)));
    if (KT(a)) return cz_bool_not(cz_bool_and(cs, cz_bool_not(b), cz_bool_not(c)));
    /* maj is allocated before bc = b and c; (2bc - b - c) * a = bc - maj */
    cz_var maj = alloc_raw(cs, v);
    cz_bool bc = cz_bool_and(cs, b, c);
    if (cz_cs_needs_lcs(cs)) {
        cz_lc la = CZ_LC_ZERO, lb = CZ_LC_ZERO, lc = CZ_LC_ZERO;
        cz_bool_lc_add(cs, &la, bc, NULL);
        cz_bool_lc_add(cs, &la, bc, NULL);
        cz_bool_lc_sub(cs, &la, b, NULL);
        cz_bool_lc_sub(cs, &la, c, NULL);
        cz_bool_lc_add(cs, &lb, a, NULL);
        cz_bool_lc_add(cs, &lc, bc, NULL);
        cz_lc_sub(cs, &lc, maj, NULL);
        enforce_free(cs, &la, &lb, &lc);
    } else {
        cz_cs_enforce(cs, NULL, NULL, NULL);
    }
    return (cz_bool){maj, CZ_BOOL_IS, v};
}
