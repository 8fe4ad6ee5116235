/* Plain CPU reference computations the GPU kernels are checked against (tests/gpu and the GPU
 * benchmark): a naive O(n^2) DFT (the definition), and a textbook iterative radix-2 NTT that is
 * itself checked against the DFT in test_gpu_ntt. Both use bellperson's domain (cz_fr_root_of_unity)
 * and generator 7, and only the host field code of src/ff. */
#ifndef CZ_TESTS_GPU_REF_H
#define CZ_TESTS_GPU_REF_H

#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "poly/ntt.h"

/* out[k] = sum_j in[j] * w^(j*k) */
static void ref_dft(cz_fr *out, const cz_fr *in, size_t n, const cz_fr *w) {
    cz_fr wk = CZ_FR_ONE_V;
    for (size_t k = 0; k < n; k++) {
        cz_fr acc = CZ_FR_ZERO_V, p = CZ_FR_ONE_V, t;
        for (size_t j = 0; j < n; j++) {
            cz_fr_mul(&t, &in[j], &p);
            cz_fr_add(&acc, &acc, &t);
            cz_fr_mul(&p, &p, &wk);
        }
        out[k] = acc;
        cz_fr_mul(&wk, &wk, w);
    }
}

static size_t ref_bitrev(size_t i, unsigned bits) {
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
}

/* In place a[k] = sum_j a[j] * w^(jk) with w the primitive 2^log_n-th root (or its inverse when inv). */
static void ref_ntt_raw(cz_fr *a, unsigned log_n, int inv) {
    size_t n = (size_t)1 << log_n;
    for (size_t i = 0; i < n; i++) {
        size_t j = ref_bitrev(i, log_n);
        if (i < j) {
            cz_fr t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (unsigned s = 1; s <= log_n; s++) {
        size_t len = (size_t)1 << s, half = len / 2;
        cz_fr wl;
        cz_fr_root_of_unity(&wl, s);
        if (inv) cz_fr_inv(&wl, &wl);
        /* twiddles of this stage, so the butterflies can run in parallel */
        cz_fr *tw = malloc(sizeof(cz_fr) * half);
        tw[0] = CZ_FR_ONE_V;
        for (size_t j = 1; j < half; j++) cz_fr_mul(&tw[j], &tw[j - 1], &wl);
#pragma omp parallel for schedule(static)
        for (size_t b = 0; b < n / 2; b++) {
            size_t i = (b / half) * len, j = b % half;
            cz_fr u = a[i + j], v;
            cz_fr_mul(&v, &a[i + j + half], &tw[j]);
            cz_fr_add(&a[i + j], &u, &v);
            cz_fr_sub(&a[i + j + half], &u, &v);
        }
        free(tw);
    }
}

/* a_i *= s * b^i */
static void ref_scale_powers(cz_fr *a, size_t n, const cz_fr *b, const cz_fr *s) {
    cz_fr p = *s;
    for (size_t i = 0; i < n; i++) {
        cz_fr_mul(&a[i], &a[i], &p);
        cz_fr_mul(&p, &p, b);
    }
}

/* kind as cz_gpu_ntt_kind: 0 forward, 1 inverse, 2 coset forward, 3 coset inverse */
static void ref_ntt(cz_fr *a, unsigned log_n, int kind) {
    size_t n = (size_t)1 << log_n;
    cz_fr one = CZ_FR_ONE_V, g = {CZ_FR_GENERATOR_MONT}, gi, nn, ninv;
    cz_fr_inv(&gi, &g);
    cz_fr_set_u64(&nn, n);
    cz_fr_inv(&ninv, &nn);
    if (kind == 2) ref_scale_powers(a, n, &g, &one);
    ref_ntt_raw(a, log_n, kind == 1 || kind == 3);
    if (kind == 1) ref_scale_powers(a, n, &one, &ninv);
    if (kind == 3) ref_scale_powers(a, n, &gi, &ninv);
}

/* The same four transforms straight from the definition (n^2 products; small n only). */
static void ref_ntt_naive(cz_fr *a, unsigned log_n, int kind) {
    size_t n = (size_t)1 << log_n;
    cz_fr one = CZ_FR_ONE_V, g = {CZ_FR_GENERATOR_MONT}, gi, nn, ninv, w;
    cz_fr_inv(&gi, &g);
    cz_fr_set_u64(&nn, n);
    cz_fr_inv(&ninv, &nn);
    cz_fr_root_of_unity(&w, log_n);
    if (kind == 1 || kind == 3) cz_fr_inv(&w, &w);
    cz_fr *t = malloc(sizeof(cz_fr) * n);
    if (kind == 2) ref_scale_powers(a, n, &g, &one);
    ref_dft(t, a, n, &w);
    memcpy(a, t, sizeof(cz_fr) * n);
    free(t);
    if (kind == 1) ref_scale_powers(a, n, &one, &ninv);
    if (kind == 3) ref_scale_powers(a, n, &gi, &ninv);
}

/* Number of i with a[i] != b[i]; *first = the first such i. */
static size_t ref_count_diff(const cz_fr *a, const cz_fr *b, size_t n, size_t *first) {
    size_t bad = 0;
    *first = (size_t)-1;
    for (size_t i = 0; i < n; i++)
        if (!cz_fr_equal(&a[i], &b[i])) {
            if (!bad) *first = i;
            bad++;
        }
    return bad;
}

/* The project's CPU NTT (src/poly/ntt.c), kind as cz_gpu_ntt_kind; returns its status. */
static int cpu_ntt(cz_fr *a, unsigned log_n, int kind) {
    cz_domain dom;
    int rc = cz_domain_init(&dom, log_n);
    if (rc) return rc;
    switch (kind) {
    case 0: return cz_ntt_forward(&dom, a);
    case 1: return cz_ntt_inverse(&dom, a);
    case 2: return cz_ntt_coset_forward(&dom, a);
    default: return cz_ntt_coset_inverse(&dom, a);
    }
}

#endif
