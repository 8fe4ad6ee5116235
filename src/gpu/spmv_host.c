/* Host side of spmv.cu's narrow upload: the host matrices hold u64 row pointers and u32 dictionary indices,
 * the device u32 pointers and 1- / 2-byte indices where they fit (spmv.cu). The copies run in OpenMP slices
 * (here, not in spmv.cu: nvcc compiles the .cu host code without OpenMP): 32 GiB PoRep's A has ~130 M row
 * pointers and ~310 M indices, seconds on one core. */
#include <stdint.h>
#include <string.h>

#include "gpu/prover_internal.h"

#define SLICE ((int64_t)1 << 20)

static inline uint64_t load(const void *src, unsigned sb, size_t i) {
    return sb == 8 ? ((const uint64_t *)src)[i] : ((const uint32_t *)src)[i];
}

void cz_gpu_narrow_(void *dst, unsigned db, const void *src, unsigned sb, size_t n) {
    const int64_t ns = ((int64_t)n + SLICE - 1) / SLICE;
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < ns; s++) {
        const size_t a = (size_t)s * SLICE, b = a + SLICE < n ? a + SLICE : n;
        if (db == sb) memcpy((uint8_t *)dst + a * db, (const uint8_t *)src + a * sb, (b - a) * db);
        else if (db == 4)
            for (size_t i = a; i < b; i++) ((uint32_t *)dst)[i] = (uint32_t)load(src, sb, i);
        else if (db == 2)
            for (size_t i = a; i < b; i++) ((uint16_t *)dst)[i] = (uint16_t)load(src, sb, i);
        else
            for (size_t i = a; i < b; i++) ((uint8_t *)dst)[i] = (uint8_t)load(src, sb, i);
    }
}
