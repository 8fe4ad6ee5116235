/* The chunk choice of the device's adaptive scratch (msm_impl.cuh fit_chunk: the batch additions' affine rounds,
 * the MSM's affine bucket rounds): the largest power-of-two chunk, from start down to lo, whose scratch either
 * fits in what this scratch already holds (no new memory: it was allocated when there was room, and keeping it
 * changes nothing for anyone else) or fits in free memory plus what it holds with a margin left free (the caches
 * stay allocated between calls, so what they newly take must not be the memory a caller allocates next).
 *
 * Why the first rule: without it a chunk was chosen against the margin every call, so a scratch sized in a
 * partition with room to spare shrank in every partition after it, once the later buffers of the first (the tail
 * MSMs' scratch) had taken the free memory, although its own buffers still held the larger chunk. A 32 GiB
 * SnapDeals partition on an H100 (docs/perf.md, session 70): the batch additions' chunks fell from ~2^22 points to
 * below the 2^20 where the affine rounds start, so every partition after the first summed its ones in xyzz alone
 * (153 kernels instead of 5 rounds and 3) and took ~1,155 ms against the first's ~1,060. With the rule (session 71,
 * the same H100 daemon, one proof each, docs/perf.md): every Snap partition 1,019.6 ms against 1,142.2 with the
 * margin alone (0.893); a 32 GiB PoRep's streamed partitions unchanged (1,095.5 against 1,096.2). fit_chunk takes it
 * by default; CZ_GPU_FIT_HELD=0 gives the margin alone (A/B).
 *
 * Header-only and CUDA-free: a unit test (tests/unit/test_gpu_fit_chunk.c) runs it in CI. */
#ifndef CZ_GPU_FIT_CHUNK_H
#define CZ_GPU_FIT_CHUNK_H

#include <stddef.h>

/* need(chunk, ctx): the scratch bytes a chunk takes, non-decreasing in chunk */
typedef size_t (*cz_fit_need_fn)(size_t chunk, const void *ctx);

/* The chunk (0 if even lo fits neither way); free_bytes: the device's free memory now; held: bytes this scratch
 * holds already (reusable). start and lo powers of two, lo <= start. */
static inline size_t cz_fit_chunk_pick(size_t start, size_t lo, size_t held, size_t free_bytes, size_t margin,
                                       cz_fit_need_fn need, const void *ctx) {
    for (size_t ch = start; ch >= lo && ch; ch /= 2) {
        const size_t b = need(ch, ctx);
        if (b <= held || b + margin <= free_bytes + held) return ch;
    }
    return 0;
}

#endif
