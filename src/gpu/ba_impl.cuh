/* 0/1 batch addition over resident affine bases, generic over the coordinate field F (cz_dfp: G1 in
 * ba.cu, cz_dfp2: G2 in ba_g2.cu): bitmap -> index list (popcount, scan, scatter), then affine pair
 * additions with Montgomery's batch-inversion trick (msm_impl.cuh's baa_run: per round a forward pass, one
 * inversion and a backward pass over the whole array, strided pairs), then xyzz sums. CZ_GPU_BA_XYZZ=1
 * selects the xyzz summation alone (A/B).
 *
 * Fused rounds (one memory pass per round: a thread's outputs of round r are its inputs of round r + 1, so
 * the backward pass multiplies up the next round's denominators from registers) were built and measured
 * slower on the H200 (entry 90db338 of docs/perf.md: G1 2^26 ~50 % 13.4 against 12.1 ms, G2 2^24 22.9
 * against 12.7; 202-246 registers, one block per SM, the G2 instantiation spilling). They were removed
 * after commit 2489c26 (half of this file's compile time); read them there to build a lower-register
 * version. */

#ifndef CZ_GPU_BA_IMPL_CUH
#define CZ_GPU_BA_IMPL_CUH

#include "gpu/msm_impl.cuh" /* also <chrono> */

/* r_xyzz: host pointer to one xyzz point (the host's cz_g*_xyzz layout); g_ba: 8 scratch buffers
 * (4..7 for the affine rounds). CZ_GPU_BA_XYZZ=1 selects the xyzz-only summation (A/B); the default is
 * msm_impl.cuh's baa_run. */
template <class F>
static int ba_run(scratch *g_ba, void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, bool pairs,
                  void *stream) {
    typedef cz_dxyzz<F> P;
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) {
        memset(r_xyzz, 0, sizeof(P));
        return 0;
    }
    if (n >= ((size_t)1 << 32)) return cz_error(CZ_ERANGE, "batch add of %zu points (max 2^32-1)", n);
    if (pairs && n + n / 2 >= ((size_t)1 << 32))
        return cz_error(CZ_ERANGE, "batch add of %zu points with their pair sums (max 2^32-1 in all)", n);
    if (int rm = red_mode()) return rm;
    const size_t nw = (n + 63) / 64;
    /* CZ_GPU_BA_PROFILE: host time to the count (launches, the index list, the sync), the rounds, the end */
    const bool hprof = getenv("CZ_GPU_BA_PROFILE") != nullptr;
    const auto h0 = std::chrono::steady_clock::now();
    auto hms = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    };
    double ht[3] = {0, 0, 0};
    /* exactly one wave of resident blocks: every thread gets the same share, so none waits on a tail */
    int per_sm = 0, bt = BA_THREADS;
    if (getenv("CZ_GPU_BA_THREADS")) { /* benchmark knob: 32..256 in steps of 32 */
        bt = atoi(getenv("CZ_GPU_BA_THREADS"));
        if (bt < 32 || bt > RED_THREADS || bt % 32) bt = BA_THREADS;
    }
    auto kern = ba_sum<F>;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, bt, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    const int blocks = sm_count() * per_sm;
    const unsigned nparts = (unsigned)blocks;
    uint32_t *cnt = nullptr, *offs = nullptr, *idx = nullptr;
    P *part = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, (uint32_t *)nullptr, (uint32_t *)nullptr, (int)(nw + 1), st);
    void *temp = nullptr;
    int rc = scratch_get(g_ba[0], 2 * (nw + 1) * sizeof(uint32_t), (void **)&cnt);
    if (!rc) rc = scratch_get(g_ba[1], n * sizeof(uint32_t), (void **)&idx);
    if (!rc) rc = scratch_get(g_ba[2], (nparts + 1) * sizeof(P), (void **)&part);
    if (!rc) rc = scratch_get(g_ba[3], temp_bytes + 16, &temp);
    if (rc) return rc;
    offs = cnt + nw + 1;
    if (pairs) ba_popc<true><<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, cnt);
    else ba_popc<false><<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, cnt);
    CZ_CUDA_LAUNCHED();
    CZ_CUDA(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, cnt, offs, (int)(nw + 1), st));
    const bool xyzz = getenv("CZ_GPU_BA_XYZZ") && atoi(getenv("CZ_GPU_BA_XYZZ")) == 1;
    /* The rounds are sized on the host: the count goes to a pinned word before the index list is scattered,
     * and the host waits for that copy alone (an event), so the scatter runs while the host reads the count
     * and queues the rounds behind it. The pinned words (the count, then the result) and the event are one
     * set per device and curve, kept for the process: one caller at a time per device, as for the scratch
     * (not per thread: the prover runs B_G2 on a new thread each partition). */
    static struct {
        uint8_t *pin;
        cudaEvent_t ev;
    } hs[CZ_GPU_SCRATCH_DEVICES];
    int dev = 0;
    CZ_CUDA(cudaGetDevice(&dev));
    if (dev < 0 || dev >= CZ_GPU_SCRATCH_DEVICES) return cz_error(CZ_ERANGE, "batch add: device %d", dev);
    if (!hs[dev].ev) CZ_CUDA(cudaEventCreateWithFlags(&hs[dev].ev, cudaEventDisableTiming));
    if (!hs[dev].pin && cudaHostAlloc((void **)&hs[dev].pin, 64 + sizeof(P), cudaHostAllocDefault) != cudaSuccess) {
        (void)cudaGetLastError();
        hs[dev].pin = nullptr;
        return cz_error(CZ_ENOMEM, "batch add: no pinned host words for the count and the result");
    }
    uint8_t *const h_pin = hs[dev].pin;
    if (!xyzz) {
        CZ_CUDA(cudaMemcpyAsync(h_pin, offs + nw, sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
        CZ_CUDA(cudaEventRecord(hs[dev].ev, st));
    }
    const size_t sb = (nw + 7) / 8, sbmax = (size_t)sm_count() * 16; /* 8 words (warps) per block */
    if (pairs) ba_scatter<true><<<(unsigned)(sb < sbmax ? sb : sbmax), 256, 0, st>>>(d_bitmap, nw, n, offs, idx);
    else ba_scatter<false><<<(unsigned)(sb < sbmax ? sb : sbmax), 256, 0, st>>>(d_bitmap, nw, n, offs, idx);
    CZ_CUDA_LAUNCHED();
    uint32_t tot = 0;
    if (!xyzz) {
        CZ_CUDA(cudaEventSynchronize(hs[dev].ev));
        memcpy(&tot, h_pin, sizeof tot);
    }
    if (xyzz) {
        kern<<<blocks, bt, 0, st>>>(part, (const cz_daff<F> *)d_bases, idx, offs + nw);
        CZ_CUDA_LAUNCHED();
    } else {
        if (hprof) ht[0] = hms(h0);
        if ((rc = baa_run<F>(g_ba, part, nparts, (const cz_daff<F> *)d_bases, idx, tot, st))) return rc;
    }
    if (hprof) {
        CZ_CUDA(cudaStreamSynchronize(st));
        ht[1] = hms(h0);
    }
    cudaEvent_t fe[2] = {nullptr, nullptr}; /* CZ_GPU_BA_PROFILE: the final sum's kernel time */
    if (hprof)
        for (int i = 0; i < 2; i++)
            if (cudaEventCreate(&fe[i]) == cudaSuccess) cudaEventRecord(fe[i], st);
    sum_segments<F><<<1, RED_THREADS, 0, st>>>(part + nparts, part, nparts, 0);
    CZ_CUDA_LAUNCHED();
    if (hprof && fe[1]) cudaEventRecord(fe[1], st);
    CZ_CUDA(cudaMemcpyAsync(h_pin + 64, part + nparts, sizeof(P), cudaMemcpyDeviceToHost, st));
    CZ_CUDA(cudaStreamSynchronize(st));
    memcpy(r_xyzz, h_pin + 64, sizeof(P));
    if (hprof) {
        ht[2] = hms(h0);
        float fk = 0;
        if (fe[0] && fe[1]) cudaEventElapsedTime(&fk, fe[0], fe[1]);
        for (int i = 0; i < 2; i++)
            if (fe[i]) cudaEventDestroy(fe[i]);
        fprintf(stderr, "ba host ms: count at %.3f, rounds done at %.3f, end at %.3f (final sum of %u partials: %.3f ms)\n",
                ht[0], ht[1], ht[2], nparts, fk);
    }
    return 0;
}

/* The pair sums ba_run's pairs reads: bases[n + i] = bases[2i] + bases[2i + 1] for i < n/2, into the room after
 * the n bases (exact, as the affine rounds are: infinity operands, doublings, opposite points). One affine round
 * without an index list (msm_impl.cuh's baa_fwd / baa_bwd) per chunk of the bases, written straight into the
 * room; only the running products take scratch (g_ba[5], as baa_run's rounds, so ba_scratch_bytes bounds it). */
template <class F>
static int ps_run(scratch *g_ba, void *d_bases, size_t n, void *stream) {
    typedef cz_daff<F> A;
    cudaStream_t st = (cudaStream_t)stream;
    const size_t np = n / 2;
    if (!np) return 0;
    if (n + np >= ((size_t)1 << 32)) return cz_error(CZ_ERANGE, "pair sums of %zu points (max 2^32-1 with them)", n);
    const unsigned G = baa_grid<F>();
    const size_t T = (size_t)G * BAA_THREADS, pts = 2 * np;
    auto need = [&](size_t ch) {
        const size_t c = pts < ch ? pts : ch;
        return (c / 2 + T + 2 * (size_t)G) * sizeof(den_t<F>);
    };
    size_t chunk = fit_chunk((size_t)1 << env_size("CZ_GPU_BA_CHUNK_LOG", 25, 10, 30), (size_t)1 << 10, g_ba[5].cap, need);
    if (!chunk) chunk = (size_t)1 << 10; /* if even that fails, the allocation reports it */
    const size_t cmax = pts < chunk ? pts : chunk;
    den_t<F> *fs = nullptr;
    int rc = scratch_get(g_ba[5], (cmax / 2 + T + 2 * (size_t)G) * sizeof(den_t<F>), (void **)&fs);
    if (rc) return rc;
    den_t<F> *pref = fs, *ex = fs + cmax / 2, *btot = ex + T, *binv = btot + G;
    const unsigned ig = (G + 31) / 32 * 32;
    const bool pbinv = binv_block(true);
    const A *b = (const A *)d_bases;
    for (size_t off = 0; off < pts; off += chunk) { /* chunk and pts are even: whole pairs */
        const size_t m = pts - off < chunk ? pts - off : chunk;
        const cz_pts<F> in = pts_aos<F>(b + off), out = pts_aos<F>(b + n + off / 2);
        baa_fwd<F><<<G, BAA_THREADS, 0, st>>>(in, nullptr, m / 2, pref, ex, btot);
        CZ_CUDA_LAUNCHED();
        if (!pbinv) {
            baa_inv<den_t<F>><<<1, ig, 0, st>>>(binv, btot, G);
            CZ_CUDA_LAUNCHED();
        }
        baa_bwd<F><<<G, BAA_THREADS, 0, st>>>(out, in, nullptr, m, pref, ex, btot, pbinv ? nullptr : binv);
        CZ_CUDA_LAUNCHED();
    }
    return 0;
}

/* Upper bound of the device scratch one batch addition of n points keeps (ba_run: index list, counts,
 * partial sums; with rounds, their buffers at CZ_GPU_BA_CHUNK_LOG = 25: the bound the removed fused rounds
 * needed (q = 8, up to 512 blocks), kept because it also bounds the default rounds' (0.75 points + 0.5
 * products per chunk position); rounds = 0: at the smallest chunk fit_chunk falls back to, 2^16), for the
 * prover's memory accounting. */
template <class F>
static size_t ba_scratch_bytes(size_t n, int rounds) {
    const size_t nw = (n + 63) / 64, chunk = (size_t)1 << (rounds ? 25 : 16), m = n < chunk ? n : chunk;
    const size_t T = (size_t)512 * BAA_THREADS;
    /* T K0 <= m (1 + 1/q) + T (the round-up of K0 to q' 2^R): points and products for K0/2 + K0/4 */
    const size_t tk = m + m / 8 + 2 * T;
    return 2 * (nw + 1) * 4 + n * 4 + 1024 * sizeof(cz_dxyzz<F>) + ((size_t)1 << 20) +
           (tk / 2 + tk / 4 + 2) * (sizeof(cz_daff<F>) + sizeof(den_t<F>)) + (T + 1024) * sizeof(den_t<F>);
}

#endif
