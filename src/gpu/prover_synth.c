/* Synthetic PoRep-shaped provers for the benchmark: matrices, bases and witnesses generated on the device
 * (synth.cu), the same resident layout as a real prover. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "gpu/prover_internal.h"
#include "gpu/prover_priv.h"

/* Streamed synthetic prover: plan the chunks (and the kept parts) beside the matrices and maps, allocate the
 * working set, then generate each kept base array on the device and each streamed one chunk by chunk in a
 * staging buffer, downloaded into pinned host memory (owned by the prover). */
static int synth_streamed(cz_gpu_prover *pr, uint64_t seed) {
    size_t bases = 0;
    for (int i = 0; i < SQ_N; i++) bases += cz_gpu_prover_part_len_(pr, i) * cz_gpu_prover_part_el_(i);
    pr->mat_dev = pr->mat_hdev = 0;
    for (int k = 0; k < 3; k++) {
        size_t b = 0;
        if (!pr->m[k]) continue;
        cz_gpu_csr_layout_(pr->m[k], NULL, NULL, &b);
        pr->mat_dev += b, pr->mat_hdev += cz_gpu_csr_dev_rest_(pr->m[k]);
    }
    int rc = cz_gpu_prover_plan_stream_(pr, pr->used, bases);
    /* the host-matrix layout: the terms made on the device move to mapped host memory */
    for (int k = 0; k < 3 && !rc && pr->host_mat; k++) {
        size_t b0 = 0, b1 = 0;
        if (!pr->m[k]) continue;
        cz_gpu_csr_layout_(pr->m[k], NULL, NULL, &b0);
        rc = cz_gpu_csr_to_host_(pr->m[k]);
        cz_gpu_csr_layout_(pr->m[k], NULL, NULL, &b1);
        if (!rc) pr->used -= b0 - b1;
    }
    if (!rc) rc = cz_gpu_prover_alloc_working_(pr);
    pr->h_own = 1;
    for (int i = 0; i < SQ_N && !rc; i++) {
        const uint64_t recs = cz_gpu_prover_part_len_(pr, i) * (cz_gpu_prover_part_el_(i) / 96); /* G1-sized records */
        if (pr->keep >> i & 1) { /* on the device, as a resident synthetic prover has it */
            void *d = NULL;
            rc = cz_gpu_prover_dalloc_(pr, &d, recs * 96, "kept query");
            if (!rc) rc = cz_gpu_synth_points_(d, recs, seed ^ (0x7777 * (i + 1)), pr->st);
            if (i == SQ_H) pr->d_h = d;
            else if (i == SQ_B2) pr->d_b2 = d;
            else pr->d_q[i == SQ_L ? Q_L : i == SQ_A ? Q_A : Q_B] = d;
            continue;
        }
        void *h = NULL;
        rc = cz_gpu_host_alloc(&h, recs * 96);
        pr->h_src[i] = h;
        const uint64_t per = pr->stage_bytes / 96; /* records per staging buffer */
        for (uint64_t k = 0; k < recs && !rc; k += per) {
            const uint64_t m = recs - k < per ? recs - k : per;
            rc = cz_gpu_synth_points_(pr->d_stage[0], m, seed ^ (0x7777 * (i + 1)) ^ (k << 20), pr->st);
            if (!rc) rc = cz_gpu_stream_sync_(pr->st);
            if (!rc) rc = cz_gpu_memcpy_dtoh((uint8_t *)h + k * 96, pr->d_stage[0], m * 96);
        }
    }
    return rc ? rc : cz_gpu_prover_sparse_init_(pr);
}

int cz_gpu_prover_create_synthetic(cz_gpu_prover **out, int device, const cz_gpu_synth_shape *s, uint64_t seed,
                                   size_t margin_bytes) {
    *out = NULL;
    const uint64_t ni = s->num_inputs, na = s->num_aux, rows = s->num_constraints + s->num_inputs;
    const uint64_t n = (uint64_t)1 << s->log_n;
    if (rows > n || ni == 0 || s->num_constraints < na || ni + na >= ((uint64_t)1 << 32) || s->log_n < 1)
        return cz_error(CZ_EINVAL, "synthetic shape: %llu rows for 2^%u, %llu inputs, %llu aux",
                        (unsigned long long)rows, s->log_n, (unsigned long long)ni, (unsigned long long)na);
    cz_gpu_prover *pr;
    int rc = cz_gpu_prover_init_(&pr, device, margin_bytes);
    if (!pr) return rc;
    pr->ni = ni, pr->na = na, pr->rows = rows, pr->n = n, pr->log_n = s->log_n;
    pr->synth_b_stride = s->b_stride ? s->b_stride : 1;
    pr->len[Q_L] = na, pr->len[Q_A] = pr->len[Q_B] = ni + na; /* upper bounds until the maps exist */
    /* the Lagrange-form H (CZ_GPU_PROVER_LAGRANGE=1): resident only, its bases random like the others */
    pr->lag = !s->streamed && cz_gpu_prover_lagrange_knob_();
    /* C's term folded into L as a real prover's (prover_fold.c): random LhC input points instead of Lh */
    pr->fold = pr->lag && cz_gpu_prover_lag_fold_knob_();
    /* pair sums beside the queries' bases as a real prover's (prover_priv.h pairs), computed from the random ones */
    pr->pairs = !s->streamed && cz_gpu_prover_pairs_knob_() ? CZ_GPU_PAIRS_ALL : 0;
    const char *cm = getenv("CZ_BENCH_C_MIX");
    if (cm && sscanf(cm, "%u %u %u %u", &pr->syn_cmix[0], &pr->syn_cmix[1], &pr->syn_cmix[2], &pr->syn_cmix[3]) == 4 &&
        pr->syn_cmix[0] + pr->syn_cmix[1] + pr->syn_cmix[2] + pr->syn_cmix[3] <= 100000)
        pr->syn_cmix_on = getenv("CZ_BENCH_C_MIX_VARY") && atoi(getenv("CZ_BENCH_C_MIX_VARY")) == 1 ? 2 : 1;
    /* streamed: the working set is sized from the chunks, chosen once the matrices and maps exist */
    if (!rc && !s->streamed) rc = cz_gpu_prover_alloc_working_(pr);
    struct {
        int kind;
        unsigned lo, frac, in_w;
    } mk[3] = {{0, s->a_w_lo, s->a_w_frac, 1}, {1, s->b_w_lo, s->b_w_frac, 0}, {2, s->c_w_lo, s->c_w_frac, 0}};
    for (int k = 0; k < (pr->c_ab ? 2 : 3) && !rc; k++) { /* C only for C's SpMV */
        void *rp, *coef;
        uint32_t *col;
        cz_fr *val, *dict;
        uint64_t nnz;
        unsigned rb, cb;
        /* in the layout a real prover's upload gives (spmv.cu: narrow unless CZ_GPU_CSR_NARROW=0), so that the
         * device accounting is the same */
        rc = cz_gpu_synth_csr_(&rp, &rb, &col, &val, &coef, &cb, &dict, &nnz, rows, s->num_constraints, ni, na,
                               mk[k].lo, mk[k].frac, mk[k].in_w, mk[k].kind, s->b_stride, s->coeff_one, s->coeff_pool,
                               seed + 101 * k, cz_gpu_prover_dalloc_, pr, pr->st);
        if (!rc) rc = cz_gpu_stream_sync_(pr->st);
        /* coded (CZ_BENCH_POOL) or plain: a plain matrix keeps its value array (52b5777 wrapped both as coded, so
         * the plain SpMV read a NULL val) */
        if (!rc) rc = cz_gpu_csr_wrap_narrow_(&pr->m[k], rows, rp, rb, col, val, coef, cb, dict,
                                              coef ? s->coeff_pool + 1 : 0, 0);
    }
    uint64_t *bits[3] = {NULL, NULL, NULL}, a_len = 0, b_len = 0;
    const uint64_t nbits[3] = {na, ni, na}, base[3] = {ni, 0, ni};
    const int mat[3] = {0, 1, 1};
    for (int k = 0; k < 3 && !rc; k++) {
        size_t bytes = ((nbits[k] + 63) / 64 + 1) * 8;
        rc = cz_gpu_malloc((void **)&bits[k], bytes);
        if (!rc) rc = cz_gpu_memset_async_(bits[k], 0, bytes, pr->st);
        uint64_t r_, nnz;
        const uint32_t *col;
        if (!rc) cz_gpu_csr_info_(pr->m[mat[k]], &r_, &nnz, &col);
        if (!rc) rc = cz_gpu_mark_columns_(bits[k], nbits[k], base[k], col, nnz, pr->st);
    }
    if (!rc) rc = cz_gpu_prover_build_maps_(pr, bits[0], bits[1], bits[2], &a_len, &b_len);
    /* host copies of the B densities, for a B_G2 the bench may attach (cz_gpu_prover_synth_attach_g2) */
    pr->syn_r.num_inputs = ni, pr->syn_r.num_aux = na;
    pr->syn_r.b_input_density = calloc((ni + 63) / 64 + 1, 8);
    pr->syn_r.b_aux_density = calloc((na + 63) / 64 + 1, 8);
    if (!rc && (!pr->syn_r.b_input_density || !pr->syn_r.b_aux_density)) rc = cz_error(CZ_ENOMEM, "B densities");
    if (!rc) rc = cz_gpu_memcpy_dtoh(pr->syn_r.b_input_density, bits[1], ((ni + 63) / 64) * 8);
    if (!rc) rc = cz_gpu_memcpy_dtoh(pr->syn_r.b_aux_density, bits[2], ((na + 63) / 64) * 8);
    for (int k = 0; k < 3; k++) cz_gpu_free(bits[k]);
    if (!rc) pr->len[Q_A] = a_len, pr->len[Q_B] = b_len;
    if (!rc && s->streamed) rc = synth_streamed(pr, seed);
    if (!rc && s->streamed) {
        rc = cz_gpu_stream_sync_(pr->st);
        if (rc) {
            cz_gpu_prover_destroy(pr);
            return rc;
        }
        *out = pr;
        return 0;
    }
    const uint64_t hn = pr->lag ? n : n - 1; /* Lc, or H */
    if (!rc) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_h, hn * sizeof(cz_g1_affine), "H query");
    if (!rc && pr->lag && !pr->fold) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_lh, n * sizeof(cz_g1_affine), "Lh");
    if (!rc && pr->fold) rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_lhc_in, ni * sizeof(cz_g1_affine), "LhC (inputs)");
    for (int q = 0; q < 3 && !rc; q++)
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_q[q], cz_gpu_prover_room_(pr, q, pr->len[q]) * sizeof(cz_g1_affine), "query");
    if (!rc) rc = cz_gpu_synth_points_(pr->d_h, hn, seed ^ 0x1111, pr->st);
    if (!rc && pr->lag && !pr->fold) rc = cz_gpu_synth_points_(pr->d_lh, n, seed ^ 0x6666, pr->st);
    if (!rc && pr->fold) rc = cz_gpu_synth_points_(pr->d_lhc_in, ni, seed ^ 0x6767, pr->st);
    for (int q = 0; q < 3 && !rc; q++) rc = cz_gpu_synth_points_(pr->d_q[q], pr->len[q], seed ^ (0x2222 * (q + 1)), pr->st);
#ifdef CZ_GPU_HAVE_G2_MSM
    /* B_G2 on the device as a real prover has it: random Fp2 coordinates, two G1-sized records per point */
    if (!rc)
        rc = cz_gpu_prover_dalloc_(pr, (void **)&pr->d_b2, cz_gpu_prover_room_(pr, CZ_GPU_PAIRS_B2, pr->len[Q_B]) * sizeof(cz_g2_affine),
                                   "B_G2 query");
    if (!rc) rc = cz_gpu_synth_points_(pr->d_b2, 2 * pr->len[Q_B], seed ^ 0x5555, pr->st);
#endif
    if (!rc) rc = cz_gpu_prover_pair_sums_(pr);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    if (rc) {
        cz_gpu_prover_destroy(pr);
        return rc;
    }
    *out = pr;
    return 0;
}

int cz_gpu_prover_synth_attach_g2(cz_gpu_prover *pr, const cz_g2_affine *host_bases) {
    if (pr->p && pr->p != &pr->syn_p) return cz_error(CZ_EINVAL, "not a synthetic prover");
    memset(&pr->syn_p, 0, sizeof pr->syn_p);
    pr->syn_p.b_len = pr->len[Q_B];
    pr->syn_p.b_g2 = (cz_g2_affine *)host_bases;
    pr->p = &pr->syn_p;
    pr->r = &pr->syn_r;
    return 0;
}

int cz_gpu_prover_synth_witness(cz_gpu_prover *pr, cz_fr *host_w, unsigned p0, unsigned p1, uint64_t seed) {
    return cz_gpu_prover_synth_witness_b(pr, host_w, p0, p1, p0, p1, seed);
}

int cz_gpu_prover_synth_witness_b(cz_gpu_prover *pr, cz_fr *host_w, unsigned p0, unsigned p1, unsigned p0b,
                                  unsigned p1b, uint64_t seed) {
    int rc = cz_gpu_set_device(pr->device);
    const unsigned mix[4] = {p0, p1, p0b, p1b};
    if (!rc) rc = cz_gpu_synth_witness_(pr->d_w, pr->ni, pr->na, mix, pr->synth_b_stride, seed, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    if (!rc) rc = cz_gpu_memcpy_dtoh(host_w, pr->d_w, (pr->ni + pr->na) * sizeof(cz_fr));
    return rc;
}

