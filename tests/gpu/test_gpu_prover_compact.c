/* The GPU prover's compact-witness entry (cz_gpu_prover_start_compact, wexpand.cu) on fresh random data:
 *  - the device expansion (cz_gpu_wcompact_expand_) against the dense vector the compact form was built
 *    from: all bits, no bits, 97 % and 50 % bits, lengths 1, 63, 64, 65, 4097 and random, built by push and
 *    by append; every value (0, R, or the dense one at its rank) equal, nothing written past n;
 *  - the whole prover on random satisfiable circuits (aux counts a multiple of 64 and not) with bit-heavy,
 *    all-bit (no dense value at all) and no-bit witnesses: the pending terms of start_compact equal those of
 *    the dense start() and of the CPU prover (cz_groth16_prove_start), the proofs for the same r, s are
 *    byte-identical, the compact proof verifies; htod bytes = 32 ni + 16 per 64 aux + 32 per non-bit;
 *  - a part of 1 MiB or more (the largest no-bit witness's dense values) is page-locked for the upload and not
 *    left locked after start_compact returns;
 *  - a prefetch named by set_next survives a compact start and is then used by the dense start;
 *  - a compact witness of the wrong length is refused (CZ_EFORMAT);
 *  - the engine hook cz_backend_gpu_start_compact: a proof with OS randomness verifies;
 *  - the witness upload through pinned chunks of 256 B (many chunks per part, both buffers) and 8 MiB, and
 *    the driver's pageable copy (CZ_GPU_UP_STAGED / CZ_GPU_UP_CHUNK), and the three G1 tails in one shared
 *    MSM list (CZ_GPU_MSM_ALLW=1): the same checks.
 * Exits 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"
#include "gpu/prover_internal.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "gpu_circuit.h"
#include "gpu_pending.h"
#include "testutil.h"

static cz_rng rng;

static int compact_of(cz_wcompact *w, const cz_fr *v, uint64_t n, int by_append) {
    cz_wcompact_init(w);
    if (!by_append) return cz_wcompact_from_dense(w, v, n);
    uint64_t cut = n ? cz_rng_next(&rng) % (n + 1) : 0;
    cz_wcompact a, b;
    cz_wcompact_init(&a);
    cz_wcompact_init(&b);
    int rc = cz_wcompact_from_dense(&a, v, cut);
    if (!rc) rc = cz_wcompact_from_dense(&b, v + cut, n - cut);
    if (!rc) rc = cz_wcompact_append(w, &a);
    if (!rc) rc = cz_wcompact_append(w, &b);
    cz_wcompact_free(&a);
    cz_wcompact_free(&b);
    return rc;
}

/* pb: per mille of values that are 0 or 1 (half each) */
static void test_expand(uint64_t n, unsigned pb, int by_append) {
    cz_fr *v = malloc((n + 8) * sizeof *v), *got = malloc((n + 8) * sizeof *got);
    for (uint64_t i = 0; i < n; i++) {
        unsigned u = (unsigned)(cz_rng_next(&rng) % 1000);
        if (u < pb) v[i] = (u & 1) ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
        else cz_fr_random(&v[i], &rng);
    }
    cz_wcompact w;
    int rc = compact_of(&w, v, n, by_append);
    CHECK_MSG(rc == 0, "compact of %llu: %s", (unsigned long long)n, cz_error_message());
    const uint64_t nw = (n + 63) / 64;
    uint64_t *d_isb = NULL, *d_bit = NULL;
    cz_fr *d_dense = NULL, *d_out = NULL;
    uint32_t *d_cnt = NULL;
    void *temp = NULL;
    size_t temp_cap = 0;
    if (!rc) rc = cz_gpu_malloc((void **)&d_isb, nw * 8 + 8);
    if (!rc) rc = cz_gpu_malloc((void **)&d_bit, nw * 8 + 8);
    if (!rc) rc = cz_gpu_malloc((void **)&d_dense, (w.n_dense + 1) * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_out, (n + 8) * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_malloc((void **)&d_cnt, 2 * (nw + 1) * 4);
    if (!rc && nw) rc = cz_gpu_memcpy_htod(d_isb, w.is_bit, nw * 8);
    if (!rc && nw) rc = cz_gpu_memcpy_htod(d_bit, w.bit, nw * 8);
    if (!rc && w.n_dense) rc = cz_gpu_memcpy_htod(d_dense, w.dense, w.n_dense * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_memset(d_out, 0xa5, (n + 8) * sizeof(cz_fr));
    if (!rc) rc = cz_gpu_wcompact_expand_(d_out, d_isb, d_bit, d_dense, n, d_cnt, &temp, &temp_cap, NULL);
    if (!rc) rc = cz_gpu_sync();
    if (!rc) rc = cz_gpu_memcpy_dtoh(got, d_out, (n + 8) * sizeof(cz_fr));
    CHECK_MSG(rc == 0, "expand %llu: %s", (unsigned long long)n, cz_error_message());
    uint64_t bad = 0, first = 0;
    for (uint64_t i = 0; i < n && !rc; i++)
        if (!cz_fr_equal(&got[i], &v[i]) && !bad++) first = i;
    CHECK_MSG(bad == 0, "expand n %llu mix %u append %d (%llu dense): %llu values differ, first %llu",
              (unsigned long long)n, pb, by_append, (unsigned long long)w.n_dense, (unsigned long long)bad,
              (unsigned long long)first);
    const uint8_t *past = (const uint8_t *)(got + n);
    int clean = 1;
    for (size_t i = 0; i < 8 * sizeof(cz_fr); i++) clean &= past[i] == 0xa5;
    CHECK_MSG(rc || clean, "expand n %llu wrote past its end", (unsigned long long)n);
    cz_gpu_free(d_isb);
    cz_gpu_free(d_bit);
    cz_gpu_free(d_dense);
    cz_gpu_free(d_out);
    cz_gpu_free(d_cnt);
    cz_gpu_free(temp);
    cz_wcompact_free(&w);
    free(v);
    free(got);
}

static int locked_parts; /* compact starts with a part big enough to be page-locked */

static void test_prover(size_t pub, size_t nfree, size_t nc, unsigned p0, unsigned p1, const char *mix, int backend) {
    circuit tc;
    int rc = build(&rng, &tc, pub, nfree, nc, cz_rng_next(&rng), p0, p1);
    CHECK_MSG(rc == 0, "build: %s", cz_error_message());
    if (rc) return;
    cz_wcompact cw;
    rc = compact_of(&cw, tc.aux, tc.na, (int)(cz_rng_next(&rng) & 1));
    CHECK_MSG(rc == 0, "compact: %s", cz_error_message());
    if (p0 + p1 >= 100) CHECK_MSG(cw.n_dense == 0, "%s: all-bit witness has %llu dense values", mix,
                                  (unsigned long long)cw.n_dense);
    if (p0 + p1 == 0) CHECK_MSG(cw.n_dense == tc.na, "%s: no-bit witness has %llu dense of %llu", mix,
                                (unsigned long long)cw.n_dense, (unsigned long long)tc.na);
    cz_groth16_toxic tox;
    cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
    cz_groth16_params p;
    memset(&p, 0, sizeof p);
    rc = cz_groth16_setup(&p, &tc.r, &tox, 0);
    CHECK_MSG(rc == 0, "setup: %s", cz_error_message());
    cz_groth16_pvk pvk;
    CHECK(cz_groth16_pvk_init(&pvk, &p.vk) == 0);
    cz_gpu_prover *gp = NULL;
    rc = cz_gpu_prover_create(&gp, 0, &p, &tc.r, 0);
    CHECK_MSG(rc == 0, "create: %s", cz_error_message());
    if (!rc) {
        cz_fr r, s;
        cz_fr_random(&r, &rng);
        cz_fr_random(&s, &rng);
        cz_groth16_pending pc, pd, pk, pd2;
        cz_gpu_prove_stats sd, sk, sd2;
        memset(&pd, 0xa5, sizeof pd);
        memset(&pk, 0x5a, sizeof pk);
        memset(&pd2, 0x3c, sizeof pd2);
        CHECK(cz_groth16_prove_start(&pc, &p, &tc.r, tc.inputs, tc.aux, 0) == 0);
        rc = cz_gpu_prover_start(&pd, gp, tc.inputs, tc.aux, 0, &sd);
        CHECK_MSG(rc == 0, "%s: dense start: %s", mix, cz_error_message());
        /* a prefetch for the dense start below, named before the compact start: it must survive it */
        CHECK(cz_gpu_prover_set_next(gp, tc.inputs, tc.aux) == 0);
        int rk = cz_gpu_prover_start_compact(&pk, gp, tc.inputs, &cw, 0, &sk);
        CHECK_MSG(rk == 0, "%s: compact start: %s", mix, cz_error_message());
        /* parts of 1 MiB or more are page-locked before the device region and unlocked after it (default way) */
        if (cw.n_dense * sizeof(cz_fr) >= ((size_t)1 << 20) && !getenv("CZ_GPU_UP_STAGED")) {
            locked_parts++;
            CHECK_MSG(!cz_gpu_host_is_pinned_(cw.dense), "%s: the dense part is still page-locked after start", mix);
        }
        int rd2 = cz_gpu_prover_start(&pd2, gp, tc.inputs, tc.aux, 0, &sd2);
        CHECK_MSG(rd2 == 0, "%s: dense start after compact: %s", mix, cz_error_message());
        CHECK_MSG(!rc && jac_all_equal(&pc, &pd), "%s: dense GPU pending differs from the CPU's", mix);
        CHECK_MSG(!rk && jac_all_equal(&pc, &pk), "%s (rows %llu, aux %llu, dense %llu): compact pending differs "
                  "from the CPU's (H %d L %d A %d B1 %d B2 %d)", mix, (unsigned long long)tc.r.num_rows,
                  (unsigned long long)tc.na, (unsigned long long)cw.n_dense, cz_g1_jac_equal(&pc.h_msm, &pk.h_msm),
                  cz_g1_jac_equal(&pc.l_msm, &pk.l_msm), cz_g1_jac_equal(&pc.a_ans, &pk.a_ans),
                  cz_g1_jac_equal(&pc.b1_ans, &pk.b1_ans), cz_g2_jac_equal(&pc.b2_ans, &pk.b2_ans));
        CHECK_MSG(!rd2 && jac_all_equal(&pc, &pd2), "%s: dense start after a compact one (prefetched) differs", mix);
        CHECK_MSG(!rd2 && sd2.htod_bytes == (tc.ni + tc.na) * sizeof(cz_fr),
                  "%s: dense htod bytes %llu", mix, (unsigned long long)sd2.htod_bytes);
        const uint64_t want = 32 * tc.ni + 16 * ((tc.na + 63) / 64) + 32 * cw.n_dense;
        CHECK_MSG(!rk && sk.htod_bytes == want, "%s: compact htod bytes %llu, want %llu", mix,
                  (unsigned long long)sk.htod_bytes, (unsigned long long)want);
        if (!rc && !rk) {
            uint8_t bc[CZ_GROTH16_PROOF_BYTES], bd[CZ_GROTH16_PROOF_BYTES], bk[CZ_GROTH16_PROOF_BYTES];
            proof_bytes(bc, &pc, &p, &r, &s);
            proof_bytes(bd, &pd, &p, &r, &s);
            proof_bytes(bk, &pk, &p, &r, &s);
            CHECK_MSG(memcmp(bc, bk, sizeof bc) == 0 && memcmp(bd, bk, sizeof bd) == 0,
                      "%s: compact proof bytes differ from the dense / CPU ones", mix);
            CHECK_MSG(cz_groth16_verify_bytes(&pvk, bk, tc.inputs + 1, tc.ni - 1) == 0, "%s: compact proof does not verify",
                      mix);
        }
        /* wrong length: one value more than the circuit's aux */
        cz_wcompact longer;
        cz_wcompact_init(&longer);
        CHECK(cz_wcompact_append(&longer, &cw) == 0 && cz_wcompact_push(&longer, &CZ_FR_ONE_V) == 0);
        CHECK(cz_gpu_prover_start_compact(&pk, gp, tc.inputs, &longer, 0, NULL) == CZ_EFORMAT);
        cz_wcompact_free(&longer);
        printf("%s, rows %llu, aux %llu (%llu dense): ok; htod %llu B compact vs %llu B dense; tails L/A/B "
               "%llu/%llu/%llu\n",
               mix, (unsigned long long)tc.r.num_rows, (unsigned long long)tc.na, (unsigned long long)cw.n_dense,
               (unsigned long long)sk.htod_bytes, (unsigned long long)sd.htod_bytes, (unsigned long long)sk.tail[0],
               (unsigned long long)sk.tail[1], (unsigned long long)sk.tail[2]);
    }
    cz_gpu_prover_destroy(gp);
    if (backend) { /* engine hook: OS randomness, so the proof only has to verify */
        cz_backend be;
        cz_backend_gpu_init(&be, 0);
        void *pend = NULL;
        uint8_t proof[CZ_GROTH16_PROOF_BYTES];
        rc = cz_backend_gpu_start_compact(&be, 0, &p, &tc.r, tc.inputs, &cw, &pend);
        CHECK_MSG(rc == 0, "backend compact start: %s", cz_error_message());
        if (!rc) CHECK(be.finish(&be, pend, &p.vk, proof) == 0);
        CHECK_MSG(!rc && cz_groth16_verify_bytes(&pvk, proof, tc.inputs + 1, tc.ni - 1) == 0,
                  "backend compact proof does not verify");
        cz_backend_gpu_release();
        printf("engine backend, compact: ok\n");
    }
    cz_groth16_pvk_free(&pvk);
    cz_groth16_params_free(&p);
    cz_wcompact_free(&cw);
    circuit_free(&tc);
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    static const uint64_t ns[] = {0, 1, 63, 64, 65, 4097};
    static const unsigned mixes[] = {1000, 0, 970, 500};
    for (int a = 0; a < 2; a++)
        for (size_t m = 0; m < sizeof mixes / sizeof mixes[0]; m++) {
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) test_expand(ns[k], mixes[m], a);
            test_expand(1 + cz_rng_next(&rng) % 300000, mixes[m], a);
        }
    printf("device expansion checked\n");

    /* (pub, free, constraints): aux = free + constraints; 192 = 3 * 64 */
    static const size_t shapes[][3] = {{1, 2, 3}, {2, 64, 128}, {4, 10, 60}, {6, 100, 900}, {8, 3000, 30000}};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        const size_t *sh = shapes[si];
        test_prover(sh[0], sh[1], sh[2], 45, 45, "bit-heavy", si == 3);
        test_prover(sh[0], sh[1], sh[2], 50, 50, "all bits", 0);
        test_prover(sh[0], sh[1], sh[2], 0, 0, "no bits", 0);
    }
    /* the largest no-bit witness (33,000 dense values, 1.06 MB) took the page-locked way */
    CHECK_MSG(locked_parts > 0, "no compact start had a part of 1 MiB or more");
    /* The upload's other ways (CZ_GPU_UP_STAGED; the default page-locks each part of 1 MiB or more, so most of
     * these small parts are copied pageable): pinned chunks of 256 B, so every part crosses in several chunks
     * through both buffers, pinned chunks of the default 8 MiB (one per part), and the driver's pageable copy */
    static const char *const ups[][2] = {{"1", "256"}, {"1", NULL}, {"0", NULL}};
    for (size_t u = 0; u < sizeof ups / sizeof ups[0]; u++) {
        setenv("CZ_GPU_UP_STAGED", ups[u][0], 1);
        if (ups[u][1]) setenv("CZ_GPU_UP_CHUNK", ups[u][1], 1);
        else unsetenv("CZ_GPU_UP_CHUNK");
        printf("CZ_GPU_UP_STAGED=%s CZ_GPU_UP_CHUNK=%s:\n", ups[u][0], ups[u][1] ? ups[u][1] : "-");
        for (size_t si = 3; si < sizeof shapes / sizeof shapes[0]; si++) {
            const size_t *sh = shapes[si];
            test_prover(sh[0], sh[1], sh[2], 45, 45, "bit-heavy", 0);
            test_prover(sh[0], sh[1], sh[2], 0, 0, "no bits", 0);
        }
    }
    unsetenv("CZ_GPU_UP_STAGED");
    unsetenv("CZ_GPU_UP_CHUNK");
    /* the three G1 tails in one shared MSM list (cz_gpu_g1_msm_multi; at these sizes only when the all-window
     * list is forced) */
    setenv("CZ_GPU_MSM_ALLW", "1", 1);
    printf("CZ_GPU_MSM_ALLW=1:\n");
    for (size_t si = 2; si < sizeof shapes / sizeof shapes[0]; si++) {
        const size_t *sh = shapes[si];
        test_prover(sh[0], sh[1], sh[2], 45, 45, "bit-heavy", 0);
        test_prover(sh[0], sh[1], sh[2], 0, 0, "no bits", 0);
    }
    unsetenv("CZ_GPU_MSM_ALLW");
    cz_gpu_g1_release_scratch();
    return cz_test_finish();
}
