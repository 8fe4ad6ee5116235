/* Host helpers for the GPU prover's compact-witness entry (cz_gpu_prover_start_compact): the checks and
 * byte count of what goes over PCIe, and the per-block walk the CPU side of B (B_G2) uses to gather its
 * scalars straight from the compact form (r1cs/wcompact.h) without expanding 130 M values to 32 bytes.
 * Header-only and CUDA-free so that a unit test (tests/unit/test_gpu_wcompact_gather.c) runs it in CI. */
#ifndef CZ_GPU_WCOMPACT_GATHER_H
#define CZ_GPU_WCOMPACT_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include "cz_error.h"
#include "r1cs/wcompact.h"

/* Dense values (clear is_bit bits) among values [64 w0, 64 w1) that are below w->n: bits past n in the
 * last word are clear in is_bit (push and append leave them so) and must not count as dense. */
static inline uint64_t cz_wcompact_dense_in_words(const cz_wcompact *w, uint64_t w0, uint64_t w1) {
    const uint64_t nw = (w->n + 63) / 64;
    uint64_t c = 0;
    if (w1 > nw) w1 = nw;
    for (uint64_t k = w0; k < w1; k++) {
        uint64_t x = ~w->is_bit[k];
        if (k == nw - 1 && (w->n & 63)) x &= ((uint64_t)1 << (w->n & 63)) - 1;
        c += (uint64_t)__builtin_popcountll(x);
    }
    return c;
}

/* 0 when w can stand for an aux vector of na values: n == na and n_dense equal to the clear is_bit bits
 * (the device expansion indexes dense[] by that count, so a mismatch would read out of bounds);
 * CZ_EFORMAT otherwise. One popcount pass over the bitmap (2 M words at PoRep size: ~1.3 ms on one core,
 * inside the device's lock, so on OpenMP threads in blocks of 64 Ki words). */
static inline int cz_wcompact_check_for(const cz_wcompact *w, uint64_t na) {
    if (w->n != na) return cz_error(CZ_EFORMAT, "compact witness: %llu values, the circuit has %llu aux",
                                    (unsigned long long)w->n, (unsigned long long)na);
    const uint64_t nw = (w->n + 63) / 64, blk = (uint64_t)1 << 16, nb = (nw + blk - 1) / blk;
    uint64_t d = 0;
#pragma omp parallel for reduction(+ : d) schedule(static) if (nb > 1)
    for (uint64_t b = 0; b < nb; b++) d += cz_wcompact_dense_in_words(w, b * blk, b * blk + blk);
    if (d != w->n_dense || (w->n_dense && !w->dense))
        return cz_error(CZ_EFORMAT, "compact witness: bitmap gives %llu dense values, n_dense is %llu",
                        (unsigned long long)d, (unsigned long long)w->n_dense);
    return 0;
}

/* Bytes host-to-device for a partition: ni dense inputs, the two bitmaps, the dense values. */
static inline uint64_t cz_wcompact_upload_bytes(uint64_t ni, const cz_wcompact *w) {
    return ni * sizeof(cz_fr) + cz_wcompact_bytes(w);
}

/* Appends to out the values i in [64 w0, 64 w1), i < n, whose bit in density is set, in order; rank = the
 * number of dense values before 64 w0 (a prefix of cz_wcompact_dense_in_words per block). Returns how many
 * it wrote. Threads gather disjoint blocks of words independently this way. */
static inline size_t cz_wcompact_gather_density(cz_fr *out, const cz_wcompact *w, const uint64_t *density, uint64_t w0,
                                                uint64_t w1, uint64_t rank) {
    size_t o = 0;
    for (uint64_t i = 64 * w0; i < 64 * w1 && i < w->n; i++) {
        const uint64_t m = (uint64_t)1 << (i & 63), ib = w->is_bit[i >> 6] & m;
        if (density[i >> 6] & m) {
            if (ib) out[o++] = (w->bit[i >> 6] & m) ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
            else out[o++] = w->dense[rank];
        }
        rank += !ib;
    }
    return o;
}

#endif
