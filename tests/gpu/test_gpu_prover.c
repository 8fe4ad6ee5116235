/* GPU partition prover pieces against the CPU prover, on fresh random data each run:
 *  - H pipeline (cz_gpu_groth16_h, and cz_gpu_groth16_h_two_ with c written into b's vector by a callback)
 *    against cz_groth16_compute_h, every coefficient, 2^1..2^16, a/b/c zero-padded past a random row count;
 *  - c = a b (cz_gpu_ab_product_, natural and bit-reversed) against the host's products, 2^1..2^18;
 *  - resident SpMV (cz_gpu_csr_mul_vec) against cz_r1cs_eval, including the zero padding to n, with the
 *    coefficients stored as values and dictionary-coded (CZ_GPU_CSR_DICT), the provers in both forms, and
 *    the long rows summed by a warp each (CZ_GPU_SPMV_LONG: the default bound, 1: every row of two terms or
 *    more, 0: none), also on circuits whose A rows run from 0 to ~1,000 terms (PoRep's reach ~930),
 *    lengths at the bound and one past it included;
 *  - the whole prover: random satisfiable circuits (several sizes, one with 2,500 public inputs; c from a b, and from C's SpMV with C's
 *    matrix on the device, CZ_GPU_C_SPMV=1, in turn), witnesses with a PoRep-like mix
 *    (mostly 0 and 1) and with mostly random values (so both the split path and the full-MSM fallback
 *    run; the second witness uploaded by the prefetch of the first start, and a stale prefetch dropped), and
 *    a third mix (30 % zeros, 30 % ones of the free values) whose tails lie near the split / full-MSM line,
 *    the same r, s on both sides: every pending term equal, the proof bytes equal, the proof
 *    verifies, and a wrong public input does not; the bases uploaded at creation through small pinned
 *    chunks (CZ_GPU_BUILD_CHUNK), the driver's pageable copy and the default in turn; half of the provers (and
 *    of the Lagrange-form ones, L's folded) with pair sums beside their 0/1 queries (CZ_GPU_PROVER_PAIRS=1), one
 *    under a device limit with room for some queries' only; two shapes' partitions with B_G2 started before the
 *    NTTs (CZ_GPU_PROVER_G2_EARLY=1);
 *  - the order of the queries' shared tail buffer: circuits searched on the host for a split B (its tail waiting
 *    for the shared MSM) followed by a full A (which gathers its scalars into the same buffer), proved on both;
 *  - CZ_ENOMEM with a message when the margin leaves no room;
 *  - the engine backend (backend_gpu.c): a proof with OS randomness verifies; a bad device is refused;
 *  - shapes 3-5 with the R1CS's coefficients coded (cz_r1cs_code, as the engine holds it): the device's matrices
 *    from its coding (borrowed) or expanded to values, the CPU reference evaluating it coded; and every SpMV
 *    matrix above uploaded again from a coded copy in each device form;
 *  - the benchmark's synthetic prover (cz_gpu_prover_create_synthetic) at 2^12, plain and dictionary-coded
 *    matrices, resident and streamed, dense and compact witness: every start() succeeds (its data are random
 *    and off the curve, so there is no reference; a plain synthetic prover's SpMV read a NULL value array
 *    from 52b5777 to c934de2 and nothing but the device benchmark ran it).
 * Exits 77 (skipped) without a GPU. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/cs.h"
#include "gpu_circuit.h"
#include "gpu_knobs.h"
#include "testutil.h"

static cz_rng rng;

/* cz_gpu_groth16_h_two_'s make_c for test_h: c (natural, uploaded apart) into d_c bit-reversed; b's vector must
 * hold A B / Z's partner no more (it is overwritten here), so it is poisoned first */
typedef struct {
    const cz_fr *d_c;
    unsigned log_n;
    int calls;
} h_two_ctx;
static int h_two_make_c(void *ctx, cz_fr *d_c_rev, void *s) {
    h_two_ctx *x = ctx;
    x->calls++;
    const size_t n = (size_t)1 << x->log_n;
    int rc = cz_gpu_memset(d_c_rev, 0xa5, n * sizeof *d_c_rev);
    if (!rc) rc = cz_gpu_dtod_async_s_(d_c_rev, x->d_c, n * sizeof *d_c_rev, s);
    return rc ? rc : cz_gpu_bitrev_(d_c_rev, x->log_n, s);
}

/* two: a/b/c in two vectors (cz_gpu_groth16_h_two_, the streamed prover's layout when memory is shortest), c
 * written into b's vector by the callback after A B / Z */
static void test_h(unsigned log_n, int two) {
    size_t n = (size_t)1 << log_n, m = 1 + cz_rng_next(&rng) % n, first = 0;
    cz_fr *h = calloc(3 * n, sizeof *h), *g = malloc(n * sizeof *g), *d = NULL;
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < m; i++) cz_fr_random(&h[k * n + i], &rng);
    cz_gpu_ntt *plan = NULL;
    int rc = cz_gpu_ntt_create(&plan, log_n);
    if (!rc) rc = cz_gpu_malloc((void **)&d, 3 * n * sizeof *d);
    if (!rc) rc = cz_gpu_memcpy_htod(d, h, 3 * n * sizeof *d);
    h_two_ctx x = {d + 2 * n, log_n, 0};
    if (!rc) rc = two ? cz_gpu_groth16_h_two_(plan, log_n, d, d + n, h_two_make_c, &x, NULL)
                      : cz_gpu_groth16_h(plan, log_n, d, d + n, d + 2 * n, NULL);
    if (!rc) rc = cz_gpu_sync();
    memset(g, 0xa5, n * sizeof *g);
    if (!rc) rc = cz_gpu_memcpy_dtoh(g, d, n * sizeof *g);
    CHECK_MSG(rc == 0, "H 2^%u%s: %s", log_n, two ? " in two vectors" : "", cz_error_message());
    CHECK_MSG(x.calls == two, "H 2^%u%s: c made %d times", log_n, two ? " in two vectors" : "", x.calls);
    cz_domain dom;
    cz_domain_init(&dom, log_n);
    cz_groth16_compute_h(&dom, h, h + n, h + 2 * n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_equal(&g[i], &h[i]) && !bad++) first = i;
    CHECK_MSG(bad == 0, "H 2^%u%s (%zu rows): %zu of %zu coefficients differ, first %zu", log_n,
              two ? " in two vectors" : "", m, bad, n, first);
    cz_gpu_free(d);
    cz_gpu_ntt_destroy(plan);
    free(h);
    free(g);
}

/* c = a b (cz_gpu_ab_product_, the prover's c without C's SpMV), natural and into bit-reversed positions,
 * against the host's products: every element of a poisoned output */
static void test_ab(unsigned log_n) {
    const size_t n = (size_t)1 << log_n;
    cz_fr *h = malloc(3 * n * sizeof *h), *d = NULL;
    for (size_t i = 0; i < 2 * n; i++) cz_fr_random(&h[i], &rng);
    int rc = cz_gpu_malloc((void **)&d, 3 * n * sizeof *d);
    if (!rc) rc = cz_gpu_memcpy_htod(d, h, 2 * n * sizeof *d);
    for (int rev = 0; rev < 2 && !rc; rev++) {
        if (!rc) rc = cz_gpu_memset(d + 2 * n, 0xa5, n * sizeof *d);
        if (!rc) rc = cz_gpu_ab_product_(d + 2 * n, d, d + n, log_n, rev, NULL);
        if (!rc) rc = cz_gpu_sync();
        if (!rc) rc = cz_gpu_memcpy_dtoh(h + 2 * n, d + 2 * n, n * sizeof *d);
        size_t bad = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            size_t j = 0;
            for (unsigned k = 0; k < log_n; k++) j |= ((i >> k) & 1) << (log_n - 1 - k);
            cz_fr x;
            cz_fr_mul(&x, &h[i], &h[n + i]);
            bad += !cz_fr_equal(&x, &h[2 * n + (rev ? j : i)]);
        }
        CHECK_MSG(rc == 0 && bad == 0, "a b product 2^%u rev %d: %zu of %zu differ (%s)", log_n, rev, bad, n,
                  rc ? cz_error_message() : "");
    }
    CHECK_MSG(rc == 0, "a b product 2^%u: %s", log_n, cz_error_message());
    cz_gpu_free(d);
    free(h);
}

/* cz_gpu_bitrev_tiled_ (the two-vector layout's c) against the host's permutation, in place, every element */
static void test_bitrev_tiled(unsigned log_n) {
    const size_t n = (size_t)1 << log_n;
    cz_fr *h = malloc(2 * n * sizeof *h), *d = NULL;
    for (size_t i = 0; i < n; i++) cz_fr_random(&h[i], &rng);
    int rc = cz_gpu_malloc((void **)&d, n * sizeof *d);
    if (!rc) rc = cz_gpu_memcpy_htod(d, h, n * sizeof *d);
    if (!rc) rc = cz_gpu_bitrev_tiled_(d, log_n, NULL);
    if (!rc) rc = cz_gpu_sync();
    memset(h + n, 0xa5, n * sizeof *h);
    if (!rc) rc = cz_gpu_memcpy_dtoh(h + n, d, n * sizeof *d);
    size_t bad = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        size_t j = 0;
        for (unsigned k = 0; k < log_n; k++) j |= ((i >> k) & 1) << (log_n - 1 - k);
        bad += !cz_fr_equal(&h[i], &h[n + j]);
    }
    CHECK_MSG(rc == 0 && bad == 0, "tiled bit reversal 2^%u: %zu of %zu differ (%s)", log_n, bad, n,
              rc ? cz_error_message() : "");
    cz_gpu_free(d);
    free(h);
}

/* the matrices' device forms: the default (the smaller), dictionary-coded forced, values forced */
static const char *const dict_modes[3] = {NULL, "1", "0"};
static void set_dict_mode(int k) {
    if (dict_modes[k]) setenv("CZ_GPU_CSR_DICT", dict_modes[k], 1);
    else unsetenv("CZ_GPU_CSR_DICT");
}

static void test_spmv_mode(const circuit *tc, int mode);
static void test_spmv(const circuit *tc) {
    static const char *const long_modes[3] = {NULL, "1", "0"};
    for (int l = 0; l < 3; l++) {
        if (long_modes[l]) setenv("CZ_GPU_SPMV_LONG", long_modes[l], 1);
        else unsetenv("CZ_GPU_SPMV_LONG");
        for (int k = 0; k < 3; k++) test_spmv_mode(tc, k);
    }
    unsetenv("CZ_GPU_SPMV_LONG");
    set_dict_mode(0);
}

/* A circuit for the SpMV only: nc rows (lc of a random length) * ONE = a fresh variable; lengths mostly 1-2, some
 * 3-8, 9 (one past the default long-row bound), 9-40 and 100-1,000 terms, random coefficients and variables. */
static int build_long(circuit *tc, size_t nfree, size_t nc) {
    memset(tc, 0, sizeof *tc);
    cz_cs *cs;
    if (cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS)) return -1;
    cz_var *vars = malloc((nfree + nc + 1) * sizeof *vars);
    cz_fr *vals = malloc((nfree + nc + 1) * sizeof *vals);
    size_t nv = 0;
    vars[nv] = CZ_CS_ONE, vals[nv++] = CZ_FR_ONE_V;
    for (size_t i = 0; i < nfree; i++, nv++) {
        mixed_value(&rng, &vals[nv], 30, 30);
        vars[nv] = cz_cs_alloc(cs, &vals[nv]);
    }
    for (size_t k = 0; k < nc; k++) {
        unsigned u = (unsigned)(cz_rng_next(&rng) % 100), len;
        if (u < 50) len = 1 + u % 2;
        else if (u < 70) len = 3 + u % 6;
        else if (u < 80) len = 8 + u % 2;
        else if (u < 92) len = 9 + (unsigned)(cz_rng_next(&rng) % 32);
        else if (u < 97) len = 100 + (unsigned)(cz_rng_next(&rng) % 900);
        else len = 0;
        cz_lc a = CZ_LC_ZERO, b = CZ_LC_ZERO, c = CZ_LC_ZERO;
        cz_fr v = CZ_FR_ZERO_V, cf, t;
        for (unsigned j = 0; j < len; j++) {
            size_t i = cz_rng_next(&rng) % nv;
            coeff(&cf, &rng);
            cz_lc_add(cs, &a, vars[i], &cf);
            cz_fr_mul(&t, &cf, &vals[i]);
            cz_fr_add(&v, &v, &t);
        }
        cz_lc_add(cs, &b, CZ_CS_ONE, NULL);
        cz_var p = cz_cs_alloc(cs, &v);
        cz_lc_add(cs, &c, p, NULL);
        cz_cs_enforce(cs, &a, &b, &c);
        cz_lc_free(cs, &a);
        cz_lc_free(cs, &b);
        cz_lc_free(cs, &c);
        vars[nv] = p, vals[nv++] = v;
    }
    free(vars);
    free(vals);
    return circuit_take(cs, tc);
}

static void test_spmv_mode(const circuit *tc, int mode) {
    set_dict_mode(mode);
    const cz_r1cs *r = &tc->r;
    size_t rows = r->num_rows, n_out = rows + 7, nw = tc->ni + tc->na;
    cz_fr *cpu = calloc(3 * n_out, sizeof *cpu), *gpu = malloc(n_out * sizeof *gpu), *d_w = NULL, *d_o = NULL;
    cz_r1cs_eval(cpu, cpu + n_out, cpu + 2 * n_out, r, tc->inputs, tc->aux, 0);
    int rc = cz_gpu_malloc((void **)&d_w, nw * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_o, n_out * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_htod(d_w, tc->inputs, tc->ni * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memcpy_htod(d_w + tc->ni, tc->aux, tc->na * sizeof(cz_fr));
    const cz_csr *m[3] = {&r->a, &r->b, &r->c};
    for (int k = 0; k < 6 && !rc; k++) {
        /* k >= 3: matrix k - 3 coded (its structure shared): the device forms from its coding */
        cz_csr coded = *m[k % 3];
        cz_csr_dict cd = {0};
        if (k >= 3) {
            if (!cz_r1cs_nnz(m[k - 3])) continue;
            CHECK(cz_csr_dict_coefs(&cd, m[k - 3], 0, 64) == 0);
            coded.val = NULL, coded.coef = cd.coef, coded.coeffs = cd.coeffs, coded.ncoeffs = cd.ncoeffs;
        }
        cz_gpu_csr *g = NULL;
        rc = cz_gpu_csr_upload(&g, k >= 3 ? &coded : m[k]);
        cz_csr_dict_free(&cd);
        uint32_t nd = 0;
        if (!rc && mode) CHECK_MSG(cz_gpu_csr_is_dict(g, &nd) == (mode == 1), "CZ_GPU_CSR_DICT=%s not honoured", dict_modes[mode]);
        if (!rc && mode == 1) CHECK(nd >= 1 && nd <= cz_r1cs_nnz(m[k % 3]) + 1);
        if (!rc) rc = cz_gpu_memset(d_o, 0xa5, n_out * sizeof(cz_fr));
        if (!rc) rc = cz_gpu_csr_mul_vec(d_o, n_out, g, d_w, NULL);
        if (!rc) rc = cz_gpu_memcpy_dtoh(gpu, d_o, n_out * sizeof(cz_fr));
        cz_gpu_csr_free(g);
        CHECK_MSG(rc == 0, "spmv: %s", cz_error_message());
        CHECK_MSG(!rc && memcmp(gpu, cpu + (k % 3) * n_out, n_out * sizeof(cz_fr)) == 0,
                  "SpMV of matrix %d (%zu rows, dict mode %d, coded %d) differs from cz_r1cs_eval (or padding not zero)",
                  k % 3, rows, mode, k >= 3);
    }
    /* into bit-reversed positions of 2^log_n >= rows (the 6-NTT H pipeline's c), padding zero */
    unsigned log_n = 1;
    while (((size_t)1 << log_n) < rows) log_n++;
    log_n += (unsigned)(cz_rng_next(&rng) % 2);
    const size_t nr = (size_t)1 << log_n;
    cz_fr *rev = malloc(nr * sizeof *rev), *d_r = NULL;
    if (!rc) rc = cz_gpu_malloc((void **)&d_r, nr * sizeof(cz_fr));
    for (int k = 0; k < 3 && !rc; k++) {
        cz_gpu_csr *g = NULL;
        rc = cz_gpu_csr_upload(&g, m[k]);
        if (!rc) rc = cz_gpu_memset(d_r, 0xa5, nr * sizeof(cz_fr));
        if (!rc) rc = cz_gpu_csr_mul_vec_rev(d_r, log_n, g, d_w, NULL);
        if (!rc) rc = cz_gpu_memcpy_dtoh(rev, d_r, nr * sizeof(cz_fr));
        cz_gpu_csr_free(g);
        CHECK_MSG(rc == 0, "spmv rev: %s", cz_error_message());
        size_t bad = 0;
        for (size_t i = 0; !rc && i < nr; i++) {
            size_t j = 0;
            for (unsigned b = 0; b < log_n; b++) j |= ((i >> b) & 1) << (log_n - 1 - b);
            const cz_fr *want = i < rows ? &cpu[k * n_out + i] : &CZ_FR_ZERO_V;
            bad += !cz_fr_equal(&rev[j], want);
        }
        CHECK_MSG(bad == 0, "bit-reversed SpMV of matrix %d (%zu rows, 2^%u, dict mode %d): %zu of %zu differ", k, rows,
                  log_n, mode, bad, nr);
    }
    cz_gpu_free(d_r);
    free(rev);
    cz_gpu_free(d_w);
    cz_gpu_free(d_o);
    free(cpu);
    free(gpu);
}

static int splits, fulls, cap_fulls, g2_early_seen;

/* what NULL: no line for a proof that passes; stats (may be NULL): the GPU start's figures */
static void prove_both_st(const circuit *tc, const cz_groth16_params *p, const cz_groth16_pvk *pvk, cz_gpu_prover *gp,
                          const char *what, cz_gpu_prove_stats *stats) {
    cz_fr r, s;
    cz_fr_random(&r, &rng);
    cz_fr_random(&s, &rng);
    cz_groth16_pending pc, pg;
    cz_gpu_prove_stats st;
    memset(&pg, 0xa5, sizeof pg);
    int rc = cz_groth16_prove_start(&pc, p, &tc->r, tc->inputs, tc->aux, 0);
    CHECK_MSG(rc == 0, "CPU start: %s", cz_error_message());
    rc = cz_gpu_prover_start(&pg, gp, tc->inputs, tc->aux, 0, &st);
    if (stats) *stats = st;
    const int quiet = !what;
    if (!what) what = "(quiet)";
    CHECK_MSG(rc == 0, "GPU start (%s): %s", what, cz_error_message());
    if (rc) return;
    if (st.lag_fold) { /* C's term folded into L: only H's and L's total is the CPU's (prover_fold.c) */
        cz_g1_jac tc_, tg_;
        cz_g1_jac_add(&tc_, &pc.h_msm, &pc.l_msm);
        cz_g1_jac_add(&tg_, &pg.h_msm, &pg.l_msm);
        CHECK_MSG(cz_g1_jac_equal(&tc_, &tg_), "%s: H + L differs (C folded into L)", what);
    } else {
        CHECK_MSG(cz_g1_jac_equal(&pc.h_msm, &pg.h_msm), "%s: H differs", what);
        CHECK_MSG(cz_g1_jac_equal(&pc.l_msm, &pg.l_msm), "%s: L differs (full %d, tail %llu)", what, st.full_msm[0],
                  (unsigned long long)st.tail[0]);
    }
    CHECK_MSG(cz_g1_jac_equal(&pc.a_ans, &pg.a_ans), "%s: A differs (full %d)", what, st.full_msm[1]);
    CHECK_MSG(cz_g1_jac_equal(&pc.b1_ans, &pg.b1_ans), "%s: B_G1 differs (full %d)", what, st.full_msm[2]);
    CHECK_MSG(cz_g2_jac_equal(&pc.b2_ans, &pg.b2_ans), "%s: B_G2 differs", what);
    for (int q = 0; q < 3; q++) st.full_msm[q] ? fulls++ : splits++;
    /* each query's path as prover_run.c run_query must pick it: the 0/1 split when the tail is at most half the query
     * and its scalars and bases (768-B parts) fit the tail buffer, which holds 32 B per position of the longest query
     * (tails up to ~a quarter); else one full MSM. The "mid" witnesses (~40 % tails) take the full MSM for the buffer
     * from a few hundred points on, the "bits" ones (~10 %) split */
    for (int q = 0; q < 3 && !gp->streamed; q++) {
        const uint64_t t = st.tail[q], len = gp->len[q];
        const size_t sb = (t * 32 + 767) / 768 * 768, bb = (t * 96 + 767) / 768 * 768;
        const int half = 2 * t <= len, fit = sb + bb <= gp->tail_cap, want = len && !(half && fit);
        CHECK_MSG(st.full_msm[q] == want, "%s: query %d took the %s path (tail %llu of %llu, tail buffer %zu bytes)", what, q,
                  st.full_msm[q] ? "full MSM" : "split", (unsigned long long)t, (unsigned long long)len,
                  (size_t)gp->tail_cap);
        cap_fulls += len && half && !fit;
    }
    g2_early_seen += st.g2_early;
    cz_groth16_proof pfc, pfg;
    uint8_t bc[CZ_GROTH16_PROOF_BYTES], bg[CZ_GROTH16_PROOF_BYTES];
    CHECK(cz_groth16_prove_finish(&pfc, &pc, &p->vk, &r, &s) == 0);
    CHECK(cz_groth16_prove_finish(&pfg, &pg, &p->vk, &r, &s) == 0);
    cz_groth16_proof_encode(bc, &pfc);
    cz_groth16_proof_encode(bg, &pfg);
    CHECK_MSG(memcmp(bc, bg, sizeof bc) == 0, "%s: GPU proof bytes differ from the CPU's", what);
    CHECK_MSG(cz_groth16_verify(pvk, &pfg, tc->inputs + 1, tc->ni - 1) == 0, "%s: GPU proof does not verify", what);
    if (tc->ni > 1) {
        cz_fr *bad = malloc(tc->ni * sizeof *bad);
        memcpy(bad, tc->inputs, tc->ni * sizeof *bad);
        cz_fr_add(&bad[1], &bad[1], &CZ_FR_ONE_V);
        CHECK_MSG(cz_groth16_verify(pvk, &pfg, bad + 1, tc->ni - 1) == CZ_EVERIFY, "%s: wrong input verifies", what);
        free(bad);
    }
    if (!quiet)
        printf("%s: ok (tails L/A/B %llu/%llu/%llu of %llu/%zu/%zu, full %d%d%d)\n", what, (unsigned long long)st.tail[0],
               (unsigned long long)st.tail[1], (unsigned long long)st.tail[2], (unsigned long long)tc->na, p->a_len, p->b_len,
               st.full_msm[0], st.full_msm[1], st.full_msm[2]);
}
static void prove_both(const circuit *tc, const cz_groth16_params *p, const cz_groth16_pvk *pvk, cz_gpu_prover *gp,
                       const char *what) {
    prove_both_st(tc, p, pvk, gp, what, NULL);
}

/* B_G2 failing (CZ_GPU_PROVER_G2_FAIL, prover_run.c b_g2_on): start() returns its code with its message, also when
 * B_G2 runs on a thread of its own beside the G1 queries (session 71: a 32 GiB Snap job failed there with an empty
 * message), and the prover proves the next witness as before. */
static int g2_fail_done;
static void test_g2_fail(const circuit *tc, const cz_groth16_params *p, const cz_groth16_pvk *pvk, cz_gpu_prover *gp) {
    g2_fail_done = 1;
    cz_groth16_pending pg;
    cz_gpu_prove_stats st;
    setenv("CZ_GPU_PROVER_G2_FAIL", "1", 1);
    cz_error_clear();
    const int rc = cz_gpu_prover_start(&pg, gp, tc->inputs, tc->aux, 0, &st);
    unsetenv("CZ_GPU_PROVER_G2_FAIL");
    char m[512];
    snprintf(m, sizeof m, "%s", cz_error_message());
    CHECK_MSG(rc == CZ_EDEVICE && strstr(m, "B_G2") && strstr(m, "failed on purpose"), "B_G2's failure: rc %d, \"%s\"",
              rc, m);
    prove_both(tc, p, pvk, gp, "after B_G2's failure");
    printf("B_G2's failure reported: %s\n", m);
}

/* The points C's fold leaves on the device (prover_fold.c), downloaded: LhC's input points, then L' (nc points) */
static cz_g1_affine *fold_points(const cz_gpu_prover *gp, size_t ni, size_t na) {
    cz_g1_affine *v = malloc((ni + na + 1) * sizeof *v);
    CHECK(v && gp->d_lhc_in && gp->d_q[Q_L] && !gp->d_lh);
    if (!v || !gp->d_lhc_in || !gp->d_q[Q_L] || cz_gpu_memcpy_dtoh(v, gp->d_lhc_in, ni * sizeof *v) ||
        cz_gpu_memcpy_dtoh(v + ni, gp->d_q[Q_L], na * sizeof *v)) {
        CHECK_MSG(0, "C's fold's points: %s", cz_error_message());
        free(v);
        return NULL;
    }
    return v;
}

/* C's fold point by point: dev (fold_points) against L - C^T Lh over the aux columns and C^T Lh over the input
 * columns, computed here from lh (an unfolded prover's Lh, the same build: cz_gpu_h_lagrange_bases is checked
 * against the CPU's in test_gpu_g1_ntt) by one scalar multiplication a term, by column; every point's bytes. */
static void check_fold_points(const cz_g1_affine *dev, const cz_g1_affine *lh, const cz_groth16_params *p,
                              const cz_r1cs *r, const char *name) {
    const size_t ni = r->num_inputs, na = r->num_aux, nc = ni + na, nnz = cz_r1cs_nnz(&r->c);
    uint64_t *ptr = calloc(nc + 1, sizeof *ptr), *at = malloc(nnz * sizeof *at);
    cz_g1_affine *want = malloc(nc * sizeof *want);
    CHECK(ptr && at && want && na == p->l_len);
    if (!ptr || !at || !want || na != p->l_len) goto out;
    for (size_t k = 0; k < nnz; k++) ptr[r->c.col[k] + 1]++;
    for (size_t j = 0; j < nc; j++) ptr[j + 1] += ptr[j];
    for (uint64_t i = 0; i < r->c.rows; i++) /* at: C's terms by column, as (row << 32 | position) */
        for (uint64_t k = r->c.row_ptr[i]; k < r->c.row_ptr[i + 1]; k++) at[ptr[r->c.col[k]]++] = i << 32 | k;
    for (size_t j = nc; j > 0; j--) ptr[j] = ptr[j - 1];
    ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t j = 0; j < nc; j++) {
        cz_g1_jac acc, t;
        cz_g1_jac_set_infinity(&acc);
        for (uint64_t q = ptr[j]; q < ptr[j + 1]; q++) {
            cz_g1_jac_from_affine(&t, &lh[at[q] >> 32]);
            cz_g1_mul(&t, &t, cz_csr_coeff(&r->c, at[q] & 0xffffffffu));
            cz_g1_jac_add(&acc, &acc, &t);
        }
        if (j >= ni) { /* L - LhC */
            cz_g1_jac_neg(&acc, &acc);
            cz_g1_jac_from_affine(&t, &p->l[j - ni]);
            cz_g1_jac_add(&acc, &acc, &t);
        }
        cz_g1_to_affine(&want[j], &acc);
    }
    size_t bad = 0, first = nc;
    for (size_t j = 0; j < nc; j++)
        if (memcmp(&dev[j], &want[j], sizeof *dev)) bad++, first = first < j ? first : j;
    CHECK_MSG(bad == 0, "%s: C's fold: %zu of %zu points differ from the host's (first: column %zu)", name, bad, nc, first);
    if (!bad) printf("%s: C's fold: %zu points (%zu terms) equal the host's\n", name, nc, nnz);
out:
    free(ptr), free(at), free(want);
}

/* The resident plan covers what a create allocates: need_resident (which weighs the Lagrange form and the pair sums
 * against the limit) at least the bytes allocated plus the MSM scratch's floor. A plan short of them admits creates
 * that then run out of room near the limit (B_G2's side buffers, ~1 GB at 32 GiB, were missing until session 48). */
static void check_plan(const cz_gpu_prover *gp, const char *what) {
    if (gp->streamed) return;
    CHECK_MSG(gp->used + gp->work_min <= gp->need_resident,
              "%s: the create allocated %zu bytes + %zu of scratch floor, the plan (need_resident) %zu: %zu short", what,
              (size_t)gp->used, (size_t)gp->work_min, (size_t)gp->need_resident,
              (size_t)(gp->used + gp->work_min - gp->need_resident));
}

/* The H query in Lagrange form (CZ_GPU_PROVER_LAGRANGE=1, gpu_prover.h cz_gpu_prover_lagrange): a prover of p
 * for tcs[0]'s circuit with its bases built on the device from H, each of the k witnesses proved by it and by the
 * CPU (the same H sum, the same proof bytes). Counts c's two paths: split (batch additions + tail) or one MSM; with
 * fold (the default), C's term folded into L at creation (prover_fold.c): no c at all, Lh freed. Returns the
 * prover's device bytes (0 on failure). */
static int lag_split, lag_full, lag_folded;
static size_t prove_lagrange_f(const circuit *const *tcs, int k, const cz_groth16_params *p, const cz_groth16_pvk *pvk,
                               const char *name, int fold, cz_g1_affine **pts) {
    static int calls;
    setenv("CZ_GPU_PROVER_LAGRANGE", "1", 1);
    if (!fold) setenv("CZ_GPU_PROVER_LAG_FOLD", "0", 1);
    /* every other prover copies H (the build's and the check's source) through small pinned chunks, ending
     * mid-chunk: a wrong copy builds wrong bases that pass the check against it, and the proofs differ */
    if (calls++ & 1) setenv("CZ_GPU_BUILD_CHUNK", "4160", 1);
    /* and every other folded prover takes C in chunks of ~250 terms (several per fold, the host preparing the next
     * while the device folds one), the others in one */
    const int chunked = fold && (calls & 2);
    if (chunked) setenv("CZ_GPU_LAG_FOLD_CHUNK", "257", 1);
    /* and every other pair of provers (prove_lagrange's folded one and its unfolded one, calls 2i + 1 and 2i + 2: the
     * same, or their device bytes differ by more than the fold's) keeps pair sums beside the 0/1 queries, L's from
     * the folded L */
    const int pairs = ((calls + 1) / 2 & 2) != 0;
    if (pairs) setenv("CZ_GPU_PROVER_PAIRS", "1", 1);
    cz_gpu_prover *gp = NULL;
    int rc = cz_gpu_prover_create(&gp, 0, p, &tcs[0]->r, 0);
    unsetenv("CZ_GPU_PROVER_LAGRANGE");
    unsetenv("CZ_GPU_BUILD_CHUNK");
    unsetenv("CZ_GPU_PROVER_LAG_FOLD");
    unsetenv("CZ_GPU_LAG_FOLD_CHUNK");
    unsetenv("CZ_GPU_PROVER_PAIRS");
    *pts = NULL;
    CHECK_MSG(rc == 0, "Lagrange prover (%s): %s", name, cz_error_message());
    CHECK_MSG(cz_gpu_prover_transient_host_bytes() == 0, "%s: %llu host bytes still counted for the fold", name,
              (unsigned long long)cz_gpu_prover_transient_host_bytes());
    if (rc) return 0;
    CHECK_MSG(cz_gpu_prover_lagrange(gp) == 1, "%s: the prover did not take the Lagrange form", name);
    check_plan(gp, name);
    char rep[1200];
    cz_gpu_prover_build_report(gp, rep, sizeof rep);
    CHECK_MSG(strstr(rep, "Lagrange") != NULL, "build report: %s", rep);
    CHECK_MSG(!strstr(rep, "folded into L") == !fold, "%s, fold %d: build report: %s", name, fold, rep);
    CHECK_MSG(!strstr(rep, "pair sums") == !pairs, "%s, pairs %d: build report: %s", name, pairs, rep);
    if (fold) { /* "folded into L in T s (K chunks)": the inputs' one and the aux columns' one, or more chunked */
        const char *at = strstr(rep, " chunks), checked");
        const char *k = at ? at : rep;
        while (k > rep && k[-1] >= '0' && k[-1] <= '9') k--;
        const unsigned long nk = at ? strtoul(k, NULL, 10) : 0;
        const uint64_t nnz = cz_r1cs_nnz(&tcs[0]->r.c);
        CHECK_MSG(at && (chunked ? nnz < 6 * 257 || nk >= 3 : nk == 2), "%s: %lu chunks for %llu terms (%s)", name, nk,
                  (unsigned long long)nnz, rep);
        if (chunked) printf("%s: C's %llu terms folded in %lu chunks\n", name, (unsigned long long)nnz, nk);
    }
    /* the points the fold left (folded), or the Lh it would have folded (not) */
    if (fold) *pts = fold_points(gp, tcs[0]->r.num_inputs, tcs[0]->r.num_aux);
    else {
        *pts = malloc(gp->n * sizeof **pts);
        CHECK(*pts && gp->d_lh && cz_gpu_memcpy_dtoh(*pts, gp->d_lh, gp->n * sizeof **pts) == 0);
    }
    for (int i = 0; i < k; i++) {
        cz_gpu_prove_stats st;
        char what[96];
        snprintf(what, sizeof what, "Lagrange H%s, %s, witness %d", fold ? " (C folded)" : "", name, i);
        prove_both_st(tcs[i], p, pvk, gp, what, &st);
        CHECK_MSG(st.lagrange == 1, "%s: stats do not say Lagrange", what);
        CHECK_MSG(st.lag_fold == fold, "%s: stats say fold %d", what, st.lag_fold);
        if (st.lag_fold) lag_folded++;
        else st.c_full ? lag_full++ : lag_split++;
        printf("%s: c %s, %llu other values\n", what, st.lag_fold ? "folded into L" : st.c_full ? "one MSM" : "split",
               (unsigned long long)st.c_tail);
    }
    const size_t bytes = cz_gpu_prover_device_bytes(gp);
    cz_gpu_prover_destroy(gp);
    return bytes;
}

/* Both ways; the fold frees Lh (n points) for ni input points and leaves out c's n values (a, b in two vectors), and
 * its points equal the host's (check_fold_points). */
static void prove_lagrange(const circuit *const *tcs, int k, const cz_groth16_params *p, const cz_groth16_pvk *pvk,
                           const char *name) {
    cz_g1_affine *lhc = NULL, *lh = NULL;
    const size_t folded = prove_lagrange_f(tcs, k, p, pvk, name, 1, &lhc);
    const size_t kept = prove_lagrange_f(tcs, k, p, pvk, name, 0, &lh);
    if (lhc && lh) check_fold_points(lhc, lh, p, &tcs[0]->r, name);
    free(lhc), free(lh);
    cz_domain d;
    CHECK(cz_domain_for_size(&d, tcs[0]->r.num_rows) == 0);
    const size_t want = (d.n - tcs[0]->r.num_inputs) * sizeof(cz_g1_affine) + d.n * sizeof(cz_fr);
    CHECK_MSG(folded && kept && kept >= folded + want, "%s: device bytes %zu folded, %zu not (Lh and c: %zu)", name, folded,
              kept, want);
}

/* A fold whose check fails (one term's sign flipped, CZ_GPU_LAG_FOLD_CORRUPT) gives L back and keeps c's split. */
static void test_fold_corrupt(const circuit *tc, const cz_groth16_params *p, const cz_groth16_pvk *pvk) {
    setenv("CZ_GPU_PROVER_LAGRANGE", "1", 1);
    setenv("CZ_GPU_LAG_FOLD_CORRUPT", "0", 1);
    cz_gpu_prover *gp = NULL;
    int rc = cz_gpu_prover_create(&gp, 0, p, &tc->r, 0);
    unsetenv("CZ_GPU_PROVER_LAGRANGE");
    unsetenv("CZ_GPU_LAG_FOLD_CORRUPT");
    CHECK_MSG(rc == 0, "Lagrange prover, a corrupt fold: %s", cz_error_message());
    CHECK(cz_gpu_prover_transient_host_bytes() == 0);
    if (rc) return;
    char rep[1200];
    cz_gpu_prover_build_report(gp, rep, sizeof rep);
    CHECK_MSG(strstr(rep, "failed its check") != NULL && !strstr(rep, "folded into L"), "a corrupt fold: %s", rep);
    cz_gpu_prove_stats st;
    prove_both_st(tc, p, pvk, gp, "Lagrange H, a corrupt fold refused", &st);
    CHECK_MSG(st.lag_fold == 0, "a corrupt fold: stats say fold %d", st.lag_fold);
    printf("a corrupt fold: %s\n", strstr(rep, "; C") ? strstr(rep, "; C") : rep);
    cz_gpu_prover_destroy(gp);
}

/* The bases' cache (CZ_GPU_PROVER_LAGRANGE_CACHE, prover_lag.c): the first creation builds and saves them, the
 * second loads them; a file with a point changed, then one cut short, is refused and rebuilt (and saved again), and
 * the last loads it in chunks of 1,000 bytes (CZ_GPU_LAG_CHUNK: the load's threads each take hundreds, none at a
 * point's edge); every prover's proofs equal the CPU's. */
static void test_lagrange_cache(const circuit *tc, const cz_groth16_params *p, const cz_groth16_pvk *pvk) {
    char dir[] = "/tmp/cz_lagcache_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("CZ_GPU_PROVER_LAGRANGE_CACHE", dir, 1);
    static const char *const want[5] = {"built on the device and checked", "loaded and checked", "refused", "refused",
                                        "loaded and checked"};
    char path[600] = "";
    for (int round = 0; round < 5; round++) {
        if (round == 2 || round == 3) { /* damage the file: a byte inside Lh, then the file cut short */
            FILE *f = fopen(path, "r+b");
            CHECK(f != NULL);
            if (!f) break;
            fseek(f, 0, SEEK_END);
            const long len = ftell(f);
            if (round == 2) {
                fseek(f, len - 40, SEEK_SET);
                int c = fgetc(f);
                fseek(f, len - 40, SEEK_SET);
                fputc(c ^ 0x10, f);
                fclose(f);
            } else {
                fclose(f);
                CHECK(truncate(path, len - 96) == 0);
            }
        }
        setenv("CZ_GPU_PROVER_LAGRANGE", "1", 1);
        /* hundreds of chunks over the load's threads; no fold, so that the bytes counted for the creation are the
         * load's only: the file's pinned chunk (prover_lag.c LAG_CHUNK, 64 MiB) and the three other threads' */
        if (round == 4) setenv("CZ_GPU_LAG_CHUNK", "1000", 1), setenv("CZ_GPU_PROVER_LAG_FOLD", "0", 1);
        cz_gpu_prover_transient_peak_();
        cz_gpu_prover *gp = NULL;
        int rc = cz_gpu_prover_create(&gp, 0, p, &tc->r, 0);
        const uint64_t peak = cz_gpu_prover_transient_peak_();
        unsetenv("CZ_GPU_PROVER_LAGRANGE");
        unsetenv("CZ_GPU_LAG_CHUNK");
        unsetenv("CZ_GPU_PROVER_LAG_FOLD");
        CHECK_MSG(cz_gpu_prover_transient_host_bytes() == 0, "Lagrange cache round %d: %llu host bytes still counted",
                  round, (unsigned long long)cz_gpu_prover_transient_host_bytes());
        CHECK_MSG(round != 4 || peak == (64u << 20) + 3 * 1000, "Lagrange cache round 4: a peak of %llu host bytes "
                  "counted during the load (want 64 MiB + 3 x 1,000)", (unsigned long long)peak);
        CHECK_MSG(peak >= (64u << 20), "Lagrange cache round %d: the file's pinned chunk not counted (%llu bytes)",
                  round, (unsigned long long)peak);
        CHECK_MSG(rc == 0, "Lagrange cache round %d: %s", round, cz_error_message());
        if (rc) break;
        char rep[1200];
        cz_gpu_prover_build_report(gp, rep, sizeof rep);
        CHECK_MSG(strstr(rep, want[round]) != NULL, "Lagrange cache round %d: %s", round, rep);
        if (round != 1 && round != 4) CHECK_MSG(strstr(rep, "saved to") != NULL, "round %d: %s", round, rep);
        const char *at = strstr(rep, "saved to ");
        if (round == 0 && at) snprintf(path, sizeof path, "%.*s", (int)strcspn(at + 9, ";"), at + 9); /* C's fold's note follows */
        printf("Lagrange cache round %d: %s\n", round, strstr(rep, "H in Lagrange") ? strstr(rep, "H in Lagrange") : rep);
        prove_both(tc, p, pvk, gp, NULL);
        cz_gpu_prover_destroy(gp);
    }
    unsetenv("CZ_GPU_PROVER_LAGRANGE_CACHE");
    if (path[0]) unlink(path);
    rmdir(dir);
}

/* A circuit whose c = (A w)(B w) takes every class of the Lagrange form's split, over bits x, y (random 0 / 1 free
 * aux values): (x + y) 1 = 0, 1 or 2; (-x) y = 0 or -1; x y = 0 or 1; and in other_pm per mille of the rows
 * (r x + 1 + in) 1 = p + 1 + in with r a random coefficient, p = r x, an other value: C then has terms in the input
 * columns (ONE and the input in), which C's fold puts in its inputs' part (prover_fold.c d_lhc_in). */
static int build_cmix(cz_rng *rng, circuit *tc, size_t nfree, size_t nc, unsigned other_pm) {
    cz_cs *cs;
    if (cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS)) return -1;
    cz_var *vars = malloc(nfree * sizeof *vars);
    cz_fr *vals = malloc(nfree * sizeof *vals), in;
    cz_fr_random(&in, rng);
    const cz_var vin = cz_cs_alloc_input(cs, &in);
    for (size_t i = 0; i < nfree; i++) {
        vals[i] = cz_rng_next(rng) & 1 ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
        vars[i] = cz_cs_alloc(cs, &vals[i]);
    }
    for (size_t k = 0; k < nc; k++) {
        const size_t f = k % nfree, g = cz_rng_next(rng) % nfree;
        const unsigned t = cz_rng_next(rng) % 1000 < other_pm ? 3 : (unsigned)(cz_rng_next(rng) % 3);
        cz_lc lc[2] = {CZ_LC_ZERO, CZ_LC_ZERO}, c = CZ_LC_ZERO;
        cz_fr pv, cf;
        if (t == 0) {
            cz_lc_add(cs, &lc[0], vars[f], NULL);
            cz_lc_add(cs, &lc[0], vars[g], NULL);
            cz_lc_add(cs, &lc[1], CZ_CS_ONE, NULL);
            cz_fr_add(&pv, &vals[f], &vals[g]);
        } else if (t == 1) {
            cz_fr_neg(&cf, &CZ_FR_ONE_V);
            cz_lc_add(cs, &lc[0], vars[f], &cf);
            cz_lc_add(cs, &lc[1], vars[g], NULL);
            cz_fr_mul(&pv, &vals[f], &vals[g]);
            cz_fr_neg(&pv, &pv);
        } else if (t == 2) {
            cz_lc_add(cs, &lc[0], vars[f], NULL);
            cz_lc_add(cs, &lc[1], vars[g], NULL);
            cz_fr_mul(&pv, &vals[f], &vals[g]);
        } else {
            cz_fr_random(&cf, rng);
            cz_lc_add(cs, &lc[0], vars[f], &cf);
            cz_lc_add(cs, &lc[0], CZ_CS_ONE, NULL);
            cz_lc_add(cs, &lc[0], vin, NULL);
            cz_lc_add(cs, &lc[1], CZ_CS_ONE, NULL);
            cz_fr_mul(&pv, &cf, &vals[f]);
            cz_lc_add(cs, &c, CZ_CS_ONE, NULL);
            cz_lc_add(cs, &c, vin, NULL);
        }
        cz_var pvar = cz_cs_alloc(cs, &pv);
        cz_lc_add(cs, &c, pvar, NULL);
        cz_cs_enforce(cs, &lc[0], &lc[1], &c);
        cz_lc_free(cs, &lc[0]);
        cz_lc_free(cs, &lc[1]);
        cz_lc_free(cs, &c);
    }
    free(vars);
    free(vals);
    return circuit_take(cs, tc);
}

/* The Lagrange form on circuits whose c has every class (the split path: a class dropped or the twos' sum not
 * doubled fails the H check), at four sizes, the first with no other values at all (no tail). */
static void test_lagrange_cmix(void) {
    static const size_t sz[][3] = {{3, 6, 0}, {40, 300, 100}, {300, 5000, 60}, {2000, 40000, 20}};
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        circuit tc;
        CHECK(build_cmix(&rng, &tc, sz[i][0], sz[i][1], (unsigned)sz[i][2]) == 0);
        uint64_t cin = 0; /* C's terms in input columns: C's fold's inputs' part must be nonzero to be tested */
        for (uint64_t k = 0; k < cz_r1cs_nnz(&tc.r.c); k++) cin += tc.r.c.col[k] < tc.r.num_inputs;
        CHECK_MSG(!sz[i][2] || cin > 0, "cmix circuit %zu: no C term in an input column", i);
        cz_groth16_toxic tox;
        cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
        cz_groth16_params p;
        memset(&p, 0, sizeof p);
        CHECK(cz_groth16_setup(&p, &tc.r, &tox, 0) == 0);
        cz_groth16_pvk pvk;
        CHECK(cz_groth16_pvk_init(&pvk, &p.vk) == 0);
        const circuit *tcs[1] = {&tc};
        char name[64];
        snprintf(name, sizeof name, "c of every class, %llu rows", (unsigned long long)tc.r.num_rows);
        prove_lagrange(tcs, 1, &p, &pvk, name);
        if (i == 2) test_lagrange_cache(&tc, &p, &pvk);
        if (i == 1) test_fold_corrupt(&tc, &p, &pvk);
        cz_groth16_pvk_free(&pvk);
        cz_groth16_params_free(&p);
        circuit_free(&tc);
    }
}

/* values outside {0, 1} */
static int is_tail(const cz_fr *x) { return !cz_fr_is_zero(x) && !cz_fr_equal(x, &CZ_FR_ONE_V); }

/* The device queries (prover.c's maps): A = every input, then the aux with A density; B = the inputs with B input
 * density, then the aux with B aux density. Their lengths and tails (values outside {0, 1}) from the host. */
static void query_tails(const circuit *tc, uint64_t len[2], uint64_t tail[2]) {
    const cz_r1cs *r = &tc->r;
    len[0] = tail[0] = len[1] = tail[1] = 0;
    for (uint64_t i = 0; i < tc->ni; i++) {
        len[0]++, tail[0] += is_tail(&tc->inputs[i]);
        if (cz_density_get(r->b_input_density, i)) len[1]++, tail[1] += is_tail(&tc->inputs[i]);
    }
    for (uint64_t j = 0; j < tc->na; j++) {
        if (cz_density_get(r->a_aux_density, j)) len[0]++, tail[0] += is_tail(&tc->aux[j]);
        if (cz_density_get(r->b_aux_density, j)) len[1]++, tail[1] += is_tail(&tc->aux[j]);
    }
}

/* The queries run B, L, A; split queries leave their tails in one buffer for one shared MSM, and a later query
 * that needs that buffer from its start (a full MSM gathering its scalars there) must run them first. From
 * 6f097d5 (the shared tail MSM) until the fix it did not: A's gather overwrote B's waiting tail (found by the
 * "mid" witnesses below, about one run in twelve). Here the host searches small random circuits and witnesses
 * for that order (B split with a tail: 0 < 2 tail <= len; A full: 2 tail > len), then proves them on the GPU
 * against the CPU and checks that the device took the paths predicted. */
static void test_tail_order(void) {
    int found = 0, tried = 0;
    for (int shape = 0; shape < 256 && found < 3; shape++) {
        const uint64_t seed = cz_rng_next(&rng);
        const size_t nfree = 2 + (size_t)shape % 5, nc = 3 + (size_t)shape % 7;
        circuit w;
        uint64_t len[2], tail[2];
        int hit = 0;
        for (int k = 0; k < 32 && !hit; k++, tried++) {
            if (build(&rng, &w, 1, nfree, nc, seed, 30, 30)) return;
            query_tails(&w, len, tail);
            hit = tail[1] > 0 && 2 * tail[1] <= len[1] && 2 * tail[0] > len[0];
            if (!hit) circuit_free(&w);
        }
        if (!hit) continue;
        cz_groth16_toxic tox;
        cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
        cz_groth16_params p;
        memset(&p, 0, sizeof p);
        int rc = cz_groth16_setup(&p, &w.r, &tox, 0);
        if (rc == CZ_EINVAL && strstr(cz_error_message(), "unconstrained")) { /* such tiny circuits may leave an aux
                                                                                  variable out of every matrix */
            cz_groth16_params_free(&p);
            circuit_free(&w);
            continue;
        }
        found++;
        cz_groth16_pvk pvk;
        if (!rc) rc = cz_groth16_pvk_init(&pvk, &p.vk);
        cz_gpu_prover *gp = NULL;
        if (!rc) rc = cz_gpu_prover_create(&gp, 0, &p, &w.r, 0);
        CHECK_MSG(rc == 0, "tail order: setup / create: %s", cz_error_message());
        if (!rc) {
            char what[96];
            snprintf(what, sizeof what, "tail order: B %llu of %llu (split), A %llu of %llu (full)", (unsigned long long)tail[1],
                     (unsigned long long)len[1], (unsigned long long)tail[0], (unsigned long long)len[0]);
            cz_gpu_prove_stats st;
            memset(&st, 0, sizeof st);
            prove_both_st(&w, &p, &pvk, gp, what, &st);
            CHECK_MSG(st.tail[2] == tail[1] && !st.full_msm[2] && st.tail[1] == tail[0] && st.full_msm[1],
                      "tail order: the device's paths (B tail %llu full %d, A tail %llu full %d) are not the ones predicted",
                      (unsigned long long)st.tail[2], st.full_msm[2], (unsigned long long)st.tail[1], st.full_msm[1]);
        }
        cz_gpu_prover_destroy(gp);
        cz_groth16_params_free(&p);
        circuit_free(&w);
    }
    CHECK_MSG(found > 0, "tail order: no circuit with a split B and a full A in %d witnesses", tried);
    printf("tail order: %d circuits with a split B and a full A (of %d witnesses searched)\n", found, tried);
}

/* The scratch allocator (cz_gpu_scratch_grow_): exact from nothing; a buffer grown before gets an eighth more, at most
 * 64 MiB; exact again when that does not fit or with CZ_GPU_SCRATCH_SLACK=0; CZ_ENOMEM past the device; every growth
 * counted. */
static void test_scratch_grow(void) {
    const size_t MiB = (size_t)1 << 20;
    void *p = NULL;
    size_t cap = 0, fr, tot;
    uint64_t n0, n1;
    double ms0, ms1;
    cz_gpu_scratch_growth_(0, &n0, &ms0);
    CHECK(cz_gpu_scratch_grow_(&p, &cap, MiB) == 0 && p && cap == MiB);
    CHECK(cz_gpu_scratch_grow_(&p, &cap, 2 * MiB) == 0 && p && cap == 2 * MiB + MiB / 4);
    CHECK(cz_gpu_scratch_grow_(&p, &cap, 1024 * MiB) == 0 && p && cap == 1088 * MiB);
    setenv("CZ_GPU_SCRATCH_SLACK", "0", 1);
    CHECK(cz_gpu_scratch_grow_(&p, &cap, 1100 * MiB) == 0 && p && cap == 1100 * MiB);
    unsetenv("CZ_GPU_SCRATCH_SLACK");
    cz_gpu_scratch_growth_(0, &n1, &ms1);
    CHECK_MSG(n1 == n0 + 4 && ms1 >= ms0, "scratch growths counted: %llu -> %llu", (unsigned long long)n0,
              (unsigned long long)n1);
    /* room for 512 MiB and 32 MiB more, not for the 64 MiB of slack: exactly 512 */
    void *ballast = NULL;
    cz_gpu_free(p);
    p = NULL, cap = 0;
    CHECK(cz_gpu_scratch_grow_(&p, &cap, MiB) == 0 && cap == MiB); /* freed by the next growth */
    CHECK(cz_gpu_mem_info(&fr, &tot) == 0);
    const size_t want = 512 * MiB + 32 * MiB;
    if (under_sanitizer()) { /* its out-of-memory calls would count as the tool's errors */
        printf("scratch allocator: the short-of-memory cases left out under compute-sanitizer\n");
    } else if (fr + MiB > want && cz_gpu_malloc(&ballast, fr + MiB - want) == 0) {
        CHECK(cz_gpu_scratch_grow_(&p, &cap, 1200 * MiB) == CZ_ENOMEM && p == NULL && cap == 0);
        CHECK(cz_gpu_scratch_grow_(&p, &cap, 256 * MiB) == 0 && cap == 256 * MiB); /* from nothing: exact */
        CHECK_MSG(cz_gpu_scratch_grow_(&p, &cap, 512 * MiB) == 0 && cap == 512 * MiB,
                  "no room for the slack: %zu MiB held for 512", cap / MiB);
        cz_gpu_free(ballast);
    } else {
        CHECK_MSG(0, "scratch test: no ballast (%zu MiB free)", fr / MiB);
    }
    cz_gpu_free(p);
    printf("scratch allocator: exact from nothing, an eighth (<= 64 MiB) ahead once grown, exact when short\n");
}

/* Pair sums for the queries that fit (prover.c pairs_fit: beside the MSM scratch in full): a prover of the same
 * circuit as gp (which has every query's) under a device limit with room for L's and A's and half of B_G1's beside
 * the scratch in full (CZ_GPU_MEM_LIMIT_KB, rounded up) takes L's and A's only, says so, keeps the scratch's full
 * reserve (pair sums never push it to its floor), and proves both witnesses as the CPU does. */
static void test_partial_pairs(const cz_gpu_prover *gp, const cz_groth16_params *p, const cz_groth16_pvk *pvk,
                               const circuit *bits, const circuit *mid) {
    const size_t all = cz_gpu_prover_pairs_bytes_(gp->len, CZ_GPU_PAIRS_ALL);
    const size_t la = cz_gpu_prover_pairs_bytes_(gp->len, 1u << Q_L | 1u << Q_A);
    const size_t b1 = cz_gpu_prover_pairs_bytes_(gp->len, 1u << Q_B);
    if (b1 < 4096 || gp->need_resident < all) {
        CHECK_MSG(0, "partial pair sums: B_G1's pair sums of %zu bytes leave no room to test", b1);
        return;
    }
    /* from the plan's estimate, which pairs_fit weighs. Failed on the H200 in session 47: under this limit the create
     * took L's and A's pair sums and then ran out of room for A's index map, since the plan lacked B_G2's side buffers
     * (alloc_working_ takes them before the bases when they fit; ~32 bytes a B position, ~170 KB here against b1 / 2 =
     * 123 KB of slack). resident_need counts them since session 48, and check_plan holds every resident create to
     * its plan. Since session 48 pairs_fit weighs the scratch in full (gp's reserve less its floor more than its
     * plan). The printf below gives the numbers. */
    const size_t lim = gp->need_resident + (gp->work_reserve - gp->work_min) - all + la + b1 / 2;
    char kb[32];
    snprintf(kb, sizeof kb, "%zu", (lim + 1023) / 1024);
    printf("partial pair sums: gp holds %zu bytes (need_resident %zu, reserve %zu, floor %zu); pair sums %zu, L+A %zu, "
           "B_G1 %zu; limit %s KiB\n", cz_gpu_prover_device_bytes(gp), (size_t)gp->need_resident, (size_t)gp->work_reserve,
           (size_t)gp->work_min, all, la, b1, kb);
    setenv("CZ_GPU_MEM_LIMIT_KB", kb, 1);
    setenv("CZ_GPU_PROVER_PAIRS", "1", 1);
    cz_gpu_prover *g2 = NULL;
    int rc = cz_gpu_prover_create(&g2, 0, p, &bits->r, 0);
    unsetenv("CZ_GPU_MEM_LIMIT_KB");
    unsetenv("CZ_GPU_PROVER_PAIRS");
    CHECK_MSG(rc == 0, "partial pair sums: create under %s KiB: %s", kb, cz_error_message());
    if (rc) return;
    check_plan(g2, "partial pair sums");
    char rep[600];
    cz_gpu_prover_build_report(g2, rep, sizeof rep);
    CHECK_MSG(g2->pairs == (1u << Q_L | 1u << Q_A) && strstr(rep, "pair sums beside L A ("),
              "partial pair sums under %s KiB: %#x, report: %s", kb, g2->pairs, rep);
    CHECK_MSG(g2->work_reserve == gp->work_reserve, "partial pair sums under %s KiB: the MSM reserve %zu, in full %zu",
              kb, (size_t)g2->work_reserve, (size_t)gp->work_reserve);
    prove_both(bits, p, pvk, g2, "bits, pair sums for L and A only");
    prove_both(mid, p, pvk, g2, "mid, pair sums for L and A only");
    printf("partial pair sums under %s KiB: %s\n", kb, strstr(rep, "pair sums") ? strstr(rep, "pair sums") : rep);
    cz_gpu_prover_destroy(g2);
}

static void test_synthetic(void) {
    /* v: pool (bit 0), streamed (bit 1); 4 and 5 with CZ_GPU_PROVER_PAIRS=1, resident (pair sums) and streamed
     * (none: resident provers only) */
    for (int v = 0; v < 6; v++) {
        cz_gpu_synth_shape s = {0};
        s.log_n = 12;
        s.num_inputs = 328;
        s.num_aux = 3690, s.num_constraints = 3700; /* constraints + inputs fit the domain (2^12) */
        s.a_w_lo = 2, s.a_w_frac = 375, s.b_w_lo = 1, s.c_w_lo = 2, s.c_w_frac = 170;
        s.b_stride = 4;
        s.coeff_one = 900;
        s.coeff_pool = v & 1 ? 24 : 0;
        s.streamed = (v >> 1) & 1;
        const int pairs = v >= 4;
        if (pairs) setenv("CZ_GPU_PROVER_PAIRS", "1", 1);
        cz_gpu_prover *pr = NULL;
        int rc = cz_gpu_prover_create_synthetic(&pr, 0, &s, cz_rng_next(&rng), 0);
        unsetenv("CZ_GPU_PROVER_PAIRS");
        CHECK_MSG(rc == 0, "synthetic prover (pool %u, streamed %d): %s", s.coeff_pool, s.streamed, cz_error_message());
        if (rc) continue;
        char rep[600];
        cz_gpu_prover_build_report(pr, rep, sizeof rep);
        CHECK_MSG(!strstr(rep, "pair sums") == !(pairs && !s.streamed), "synthetic prover %d: build report: %s", v, rep);
        uint64_t ni, na, a_len, b_len, nnz[3];
        cz_gpu_prover_sizes(pr, &ni, &na, &a_len, &b_len, nnz);
        cz_fr *w = malloc((ni + na) * sizeof *w);
        cz_wcompact cw;
        cz_wcompact_init(&cw);
        rc = cz_gpu_prover_synth_witness(pr, w, 514, 473, cz_rng_next(&rng));
        if (!rc) rc = cz_wcompact_reserve(&cw, na, 0) || cz_wcompact_from_dense(&cw, w + ni, na);
        CHECK_MSG(rc == 0, "synthetic witness: %s", cz_error_message());
        if (v == 0) { /* B's columns (aux multiples of b_stride) in their own mix: all ones there, zeros elsewhere */
            cz_fr *wb = malloc((ni + na) * sizeof *wb);
            int rb = cz_gpu_prover_synth_witness_b(pr, wb, 1000, 0, 0, 1000, cz_rng_next(&rng));
            CHECK_MSG(rb == 0, "synthetic witness with B's mix: %s", cz_error_message());
            uint64_t bad = 0, ones = 0;
            for (uint64_t j = 0; j < na && !rb; j++) {
                const bool one = cz_fr_equal(&wb[ni + j], &CZ_FR_ONE_V);
                ones += one;
                bad += j % s.b_stride ? !cz_fr_is_zero(&wb[ni + j]) : !one;
            }
            CHECK_MSG(!rb && bad == 0 && ones == (na + s.b_stride - 1) / s.b_stride,
                      "synthetic witness with B's mix: %llu aux in the wrong mix, %llu ones", (unsigned long long)bad,
                      (unsigned long long)ones);
            free(wb);
        }
        for (int compact = 0; compact < 2 && !rc; compact++) {
            cz_groth16_pending pd;
            cz_gpu_prove_stats st;
            rc = compact ? cz_gpu_prover_start_compact(&pd, pr, w, &cw, 0, &st) : cz_gpu_prover_start(&pd, pr, w, w + ni, 0, &st);
            CHECK_MSG(rc == 0, "synthetic start (pool %u, streamed %d, compact %d): %s", s.coeff_pool, s.streamed, compact,
                      cz_error_message());
        }
        cz_wcompact_free(&cw);
        free(w);
        cz_gpu_prover_destroy(pr);
    }
    printf("synthetic prover: ok\n");
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    /* the host wait (cz_gpu_set_sync_mode, cz_bench_prover's CZ_GPU_SYNC): a name it does not know is refused; the
     * checks below run with blocking waits, the provers' proofs after them with CUDA's default again */
    CHECK(cz_gpu_set_sync_mode("sleep") == CZ_EINVAL && strstr(cz_error_message(), "auto, spin, yield or block"));
    CHECK(cz_gpu_set_sync_mode("block") == 0);
    for (unsigned k = 1; k <= 16; k += (k < 4 ? 1 : 3)) test_h(k, 0), test_h(k, 1);
    printf("H pipeline checked\n");
    for (unsigned k = 1; k <= 18; k += (k < 9 ? 1 : 3)) test_ab(k), test_bitrev_tiled(k);
    printf("a b products checked\n");
    test_scratch_grow();
    test_synthetic();
    test_tail_order();
    for (size_t nc = 3; nc <= 20000; nc *= 9) {
        circuit lc;
        CHECK(build_long(&lc, 50 + nc / 2, nc) == 0);
        uint64_t mx = 0;
        for (uint64_t i = 0; i < lc.r.a.rows; i++)
            if (lc.r.a.row_ptr[i + 1] - lc.r.a.row_ptr[i] > mx) mx = lc.r.a.row_ptr[i + 1] - lc.r.a.row_ptr[i];
        CHECK(nc < 1000 || mx >= 100); /* the long rows are there */
        test_spmv(&lc);
        circuit_free(&lc);
    }
    printf("SpMV with long rows checked\n");
    CHECK(cz_gpu_set_sync_mode("auto") == 0);

    static const size_t shapes[][3] = {{1, 2, 3}, {4, 10, 60}, {6, 100, 900}, {3, 700, 9000}, {8, 3000, 30000},
                                       /* many public inputs, as a WindowPoSt partition has (25,840 at 32 GiB) */
                                       {2500, 3000, 30000}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        uint64_t seed = cz_rng_next(&rng);
        circuit bits, rnd, mid;
        CHECK(build(&rng, &bits, shapes[si][0], shapes[si][1], shapes[si][2], seed, 45, 45) == 0);
        CHECK(build(&rng, &rnd, shapes[si][0], shapes[si][1], shapes[si][2], seed, 5, 5) == 0);
        CHECK(build(&rng, &mid, shapes[si][0], shapes[si][1], shapes[si][2], seed, 30, 30) == 0);
        test_spmv(&bits);
        test_spmv(&rnd);
        cz_groth16_toxic tox;
        cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
        cz_groth16_params p;
        memset(&p, 0, sizeof p);
        int rc = cz_groth16_setup(&p, &bits.r, &tox, 0);
        CHECK_MSG(rc == 0, "setup: %s", cz_error_message());
        cz_groth16_pvk pvk;
        CHECK(cz_groth16_pvk_init(&pvk, &p.vk) == 0);
        /* shapes 3-5: the R1CS coded, as the engine holds it (cz_r1cs_code): the prover borrows its coding for the
         * device (3: the default form, 4: dictionary forced, with the Lagrange form's fold of C) or expands it for
         * the values form (5), and the CPU reference evaluates it coded */
        if (si >= 3) CHECK(cz_r1cs_code(&bits.r, 0) == 0 && bits.r.a.coef && bits.r.c.coef && !bits.r.a.val);
        cz_gpu_prover *gp = NULL;
        set_dict_mode(si % 3); /* the provers' matrices in each device form in turn */
        const int c_spmv = si % 2; /* and c from C's SpMV (its matrix on the device) or from a b (none) */
        if (c_spmv) setenv("CZ_GPU_C_SPMV", "1", 1);
        /* the bases' upload: through small pinned chunks (4,160 bytes: bases end mid-chunk), the driver's
         * pageable copy, or the default 64 MiB chunks (these bases are smaller: the driver's copy too) */
        if (si % 3 == 1) setenv("CZ_GPU_BUILD_CHUNK", "4160", 1);
        if (si % 3 == 2) setenv("CZ_GPU_BUILD_STAGED", "0", 1);
        /* and the 0/1 queries' batch additions over their bases with pair sums (CZ_GPU_PROVER_PAIRS=1) in two
         * shapes of every three, across both c paths: a wrong sum or index gives other proof bytes */
        const int pairs = (si + 1) % 3 != 0;
        if (pairs) setenv("CZ_GPU_PROVER_PAIRS", "1", 1);
        /* and B_G2 started before the NTTs (CZ_GPU_PROVER_G2_EARLY=1, read by every start) in shapes 1 and 4, with
         * and without pair sums, the Lagrange-form provers included */
        if (si == 1 || si == 4) setenv("CZ_GPU_PROVER_G2_EARLY", "1", 1);
        rc = cz_gpu_prover_create(&gp, 0, &p, &bits.r, 0);
        set_dict_mode(0);
        unsetenv("CZ_GPU_C_SPMV");
        unsetenv("CZ_GPU_BUILD_CHUNK");
        unsetenv("CZ_GPU_BUILD_STAGED");
        unsetenv("CZ_GPU_PROVER_PAIRS");
        if (!rc) {
            char rep[400];
            cz_gpu_prover_build_report(gp, rep, sizeof rep);
            CHECK_MSG(strstr(rep, si % 3 == 2 ? "pageable" : "pinned chunks") != NULL, "build report: %s", rep);
            CHECK_MSG(!strstr(rep, "pair sums") == !pairs, "shape %zu, pairs %d: build report: %s", si, pairs, rep);
            if (pairs) printf("shape %zu: %s\n", si, strstr(rep, "pair sums"));
            if (si % 3 == 1) printf("shape %zu: %s\n", si, rep);
        }
        CHECK_MSG(rc == 0, "create (dict mode %zu, C SpMV %d): %s", si % 3, c_spmv, cz_error_message());
        if (!rc) {
            check_plan(gp, "shape prover");
            uint64_t ni_, na_, al_, bl_, nnz[3];
            cz_gpu_prover_sizes(gp, &ni_, &na_, &al_, &bl_, nnz);
            CHECK_MSG(nnz[0] == cz_r1cs_nnz(&bits.r.a) && nnz[2] == (c_spmv ? cz_r1cs_nnz(&bits.r.c) : 0),
                      "device matrices (C SpMV %d): nnz A %llu, C %llu", c_spmv, (unsigned long long)nnz[0],
                      (unsigned long long)nnz[2]);
            char what[64];
            /* the random witness is prefetched during the bits proof (set_next), then used */
            CHECK(cz_gpu_prover_set_next(gp, rnd.inputs, rnd.aux) == 0);
            snprintf(what, sizeof what, "rows %llu bits", (unsigned long long)bits.r.num_rows);
            prove_both(&bits, &p, &pvk, gp, what);
            snprintf(what, sizeof what, "rows %llu random (prefetched)", (unsigned long long)rnd.r.num_rows);
            prove_both(&rnd, &p, &pvk, gp, what); /* same shape: same params and prover */
            if (si % 2) { /* a prefetch that the next start does not use is dropped */
                CHECK(cz_gpu_prover_set_next(gp, rnd.inputs, rnd.aux) == 0);
                prove_both(&bits, &p, &pvk, gp, "bits, prefetching random");
                prove_both(&bits, &p, &pvk, gp, "bits again, stale prefetch");
            }
            if (si == 3) { /* the MSM scratch freed: the next proof grows it and says so; the same proof again grows
                            * nothing (the same sizes) */
                cz_gpu_prove_stats s1, s2;
                cz_gpu_g1_release_scratch();
                cz_gpu_g2_release_scratch();
                prove_both_st(&rnd, &p, &pvk, gp, "random, the scratch freed first", &s1);
                prove_both_st(&rnd, &p, &pvk, gp, "random again", &s2);
                CHECK_MSG(s1.scratch_grows >= 4 && s1.scratch_grow_ms > 0 && s2.scratch_grows == 0 && s2.scratch_grow_ms == 0,
                          "scratch growth: %llu (%.3f ms) from freed, %llu (%.3f ms) again",
                          (unsigned long long)s1.scratch_grows, s1.scratch_grow_ms, (unsigned long long)s2.scratch_grows,
                          s2.scratch_grow_ms);
                printf("scratch growth counted: %llu buffers in %.2f ms from freed, none again\n",
                       (unsigned long long)s1.scratch_grows, s1.scratch_grow_ms);
            }
            /* a third mix: tails near half of each query, around the split / full-MSM threshold */
            snprintf(what, sizeof what, "rows %llu mid", (unsigned long long)mid.r.num_rows);
            prove_both(&mid, &p, &pvk, gp, what);
            if (!g2_fail_done && gp->len[Q_B] && !gp->streamed) test_g2_fail(&bits, &p, &pvk, gp);
            CHECK(cz_gpu_prover_lagrange(gp) == 0); /* not asked for */
            if (pairs) { /* every query of two points or more (a query of one has no pair: shape 0's B, in a run) */
                unsigned want = 0;
                for (unsigned bit = 0; bit < 4; bit++)
                    if ((CZ_GPU_PAIRS_ALL >> bit & 1) && cz_gpu_prover_pairs_bytes_(gp->len, 1u << bit)) want |= 1u << bit;
                CHECK_MSG(gp->pairs == want, "shape %zu: pair sums for %#x, want %#x", si, gp->pairs, want);
            }
            if (si == 4 && gp->pairs == CZ_GPU_PAIRS_ALL) test_partial_pairs(gp, &p, &pvk, &bits, &mid);
        }
        cz_gpu_prover_destroy(gp);
        if (!c_spmv) { /* the same witnesses through the Lagrange form (c = a b: no C SpMV) */
            const circuit *tcs[3] = {&bits, &rnd, &mid};
            char name[48];
            snprintf(name, sizeof name, "shape %zu", si);
            prove_lagrange(tcs, 3, &p, &pvk, name);
        }
        if (si == 2) { /* the engine backend: OS randomness, so the proof only has to verify */
            cz_backend be;
            cz_backend_gpu_init(&be, 0);
            void *pend = NULL;
            uint8_t proof[CZ_GROTH16_PROOF_BYTES];
            rc = be.start(&be, 0, &p, &bits.r, bits.inputs, bits.aux, &pend);
            CHECK_MSG(rc == 0, "backend start: %s", cz_error_message());
            if (!rc) CHECK(be.finish(&be, pend, &p.vk, proof) == 0);
            CHECK_MSG(!rc && cz_groth16_verify_bytes(&pvk, proof, bits.inputs + 1, bits.ni - 1) == 0,
                      "backend proof does not verify");
            CHECK(be.start(&be, be.ndevices, &p, &bits.r, bits.inputs, bits.aux, &pend) == CZ_EINVAL);
            cz_backend_gpu_release();
            printf("engine backend: ok\n");
        }
        if (si == 1) {
            size_t fr, tot;
            CHECK(cz_gpu_mem_info(&fr, &tot) == 0);
            rc = cz_gpu_prover_create(&gp, 0, &p, &bits.r, tot);
            CHECK_MSG(rc == CZ_ENOMEM && gp == NULL, "a margin of the whole device must fail with CZ_ENOMEM (%d)", rc);
            printf("ENOMEM message: %s\n", cz_error_message());
        }
        cz_groth16_pvk_free(&pvk);
        cz_groth16_params_free(&p);
        circuit_free(&bits);
        circuit_free(&rnd);
        circuit_free(&mid);
        unsetenv("CZ_GPU_PROVER_G2_EARLY");
    }
    CHECK_MSG(g2_early_seen > 0, "no partition started B_G2 before the NTTs (CZ_GPU_PROVER_G2_EARLY=1)");
    CHECK_MSG(g2_fail_done, "no resident prover with a B query ran B_G2's failure");
    test_lagrange_cmix();
    CHECK_MSG(splits > 0 && fulls > 0, "both query paths must run (split %d, full %d)", splits, fulls);
    CHECK_MSG(cap_fulls > 0, "no query took the full MSM for want of tail buffer (tails of a quarter to a half)");
    printf("query paths: %d split, %d full (%d of them for the tail buffer's size)\n", splits, fulls, cap_fulls);
    CHECK_MSG(lag_split > 0 && lag_full > 0 && lag_folded > 0, "every path of c must run (split %d, one MSM %d, folded %d)",
              lag_split, lag_full, lag_folded);
    cz_gpu_g1_release_scratch();
    return cz_test_finish();
}
