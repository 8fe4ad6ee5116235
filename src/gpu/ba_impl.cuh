/* 0/1 batch addition over resident affine bases, generic over the coordinate field F (cz_dfp: G1 in
 * ba.cu, cz_dfp2: G2 in ba_g2.cu): bitmap -> index list (popcount, scan, scatter), then affine pair
 * additions with Montgomery's batch-inversion trick, then xyzz sums. Uses msm_impl.cuh's kernels and
 * helpers (baa_terms / baa_sum / baa_block_excl / baa_inv, the previous rounds baa_run, block_sum).
 *
 * Default: msm_impl.cuh's rounds (baa_run: per round a forward pass, one inversion and a backward pass
 * over the whole array, strided pairs). CZ_GPU_BA_FUSED=1: the fused rounds below, correct (checked
 * like the default) but SLOWER as built: measured on the H200 at 90db338 (G1 2^26 ~50 %: 13.4 ms against
 * 12.1 ms; 100 %: 25.3 against 23.4; G2 2^24 ~50 %: 22.9 against 12.7) because the fused pass holds the
 * previous output point and the next round's running product besides the pair (202 registers, 246 with
 * the prefetch, so one 256-thread block per SM: 8 warps against the old backward pass's 16 at 128
 * registers), and the G2 instantiation spills (255 registers + ~1.5 KB). Capping at 128 registers
 * (CZ_GPU_BA_MINB=2) spills and is slower still (18.8 ms). Kept for A/B and as the base for a
 * lower-register version (the one memory pass per round is the saving to keep).
 * Fused rounds: thread t of T owns the
 * positions i*T + t (i = 0 .. K-1) of every round's array, so a warp's accesses stay coalesced, and
 * round r's pair i is (local 2i, local 2i+1) of the SAME thread, its result local i of round r+1. So a
 * thread's outputs of round r are exactly its inputs of round r+1, and the backward pass of round r can
 * multiply up round r+1's denominators from the points it has just computed (still in registers): one
 * pass over memory per round instead of two, no separate forward kernel after round 0. Montgomery's trick
 * walks the pairs backwards, so the walk direction alternates: round 0's forward pass (baf_first) runs
 * ascending, its backward pass descending, which gives round 1's products in descending order, so round
 * 1's backward pass runs ascending, and so on. K0 = q' 2^R (q <= q' <= 2q, CZ_GPU_BA_Q = q, default 8)
 * with positions >= tot virtual (infinity, never loaded, no factor in the products), so every round
 * halves exactly; the last round adds its results into a per-thread xyzz sum instead of storing them
 * (no separate tail pass), and a block sum finishes. Positions of round r: local i stands for round-0
 * locals i 2^r .. (i+1) 2^r - 1 of the same thread, so it is real iff (i << r) T + t < tot, a test
 * every pass computes alike. The next pair's points and running product are loaded before the current
 * pair is computed (PF), so the loads of one pair overlap the products of the other. */
#ifndef CZ_GPU_BA_IMPL_CUH
#define CZ_GPU_BA_IMPL_CUH

#include "gpu/msm_impl.cuh" /* also <chrono> */

/* Points of one round: local i of thread t at in[i T + t], through idx for round 0 (the bases). */
template <class F>
struct baf_src {
    const cz_daff<F> *in;
    const uint32_t *idx;
    CZ_DEV const cz_daff<F> *at(size_t p) const { return idx ? in + idx[p] : in + p; }
};

/* Round 0's forward pass: ascending pairs m < kp whose both points are real; pref[m T + t] = running
 * product before d_m; then the block-exclusive products as baa_fwd leaves them. */
template <class F, int MINB = 1>
static __global__ void __launch_bounds__(BAA_THREADS, MINB) baf_first(baf_src<F> src, size_t T, size_t tot, unsigned kp, F *pref,
                                                                 F *ex, F *btot) {
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    F acc = F::one();
    constexpr unsigned U = 4; /* pairs whose x coordinates are loaded together */
#pragma unroll 1
    for (unsigned m0 = 0; m0 < kp; m0 += U) {
        const cz_daff<F> *pa[U], *pb[U];
        F xa[U], xb[U];
        bool ok[U];
#pragma unroll
        for (unsigned u = 0; u < U; u++) {
            const size_t m = m0 + u;
            ok[u] = m < kp && (2 * m + 1) * T + t < tot;
            if (ok[u]) {
                pa[u] = src.at(2 * m * T + t);
                pb[u] = src.at((2 * m + 1) * T + t);
            }
        }
#pragma unroll
        for (unsigned u = 0; u < U; u++)
            if (ok[u]) {
                xa[u] = cz_ld(&pa[u]->x);
                xb[u] = cz_ld(&pb[u]->x);
            }
#pragma unroll
        for (unsigned u = 0; u < U; u++)
            if (ok[u]) {
                const F d = baa_den(xa[u], xb[u], pts_aos(src.in), (size_t)(pa[u] - src.in), (size_t)(pb[u] - src.in));
                cz_st(pref + (m0 + u) * T + t, acc);
                acc = acc * d;
            }
    }
    baa_fwd_end(acc, ex, btot);
}

/* One pair of round r as loaded: kind 0 both real, 1 only a real, 2 none (virtual). */
template <class F>
struct baf_pair {
    cz_daff<F> a, b;
    F p;
    int st;
};

template <class F>
static CZ_DEV void baf_load(baf_pair<F> &q, const baf_src<F> &src, const F *pref, size_t T, size_t tot, size_t t, unsigned r,
                            size_t i) {
    const bool ar = ((2 * i) << r) * T + t < tot, br = ((2 * i + 1) << r) * T + t < tot;
    q.st = br ? 0 : ar ? 1 : 2;
    if (ar) q.a = cz_ec_ld_aff(src.at(2 * i * T + t));
    if (br) {
        q.b = cz_ec_ld_aff(src.at((2 * i + 1) * T + t));
        q.p = cz_ld(pref + i * T + t);
    }
}

/* Backward pass of round r (kp pairs per thread; descending for even r, ascending for odd r) fused with
 * the forward pass of round r+1 (LAST: the results summed into part[blockIdx.x] instead, added to what is
 * there). ex: in: this round's e x per thread, out: the next round's. PF: prefetch the next pair. */
template <class F, bool LAST, bool PF, int MINB = 1>
static __global__ void __launch_bounds__(BAA_THREADS, MINB) baf_step(baf_src<F> src, size_t T, size_t tot, unsigned r, unsigned kp,
                                                                const F *pref, F *ex, const F *binv, cz_daff<F> *out,
                                                                F *pref_out, F *btot, cz_dxyzz<F> *part) {
    typedef cz_daff<F> A;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const bool desc = !(r & 1);
    F inv = cz_ld(ex + t) * cz_ld(binv + blockIdx.x), acc = F::one();
    A prev;
    bool prev_real = false;
    cz_dxyzz<F> sum = cz_dxyzz<F>::inf();
    baf_pair<F> cur, nxt;
    if (PF && kp) baf_load(cur, src, pref, T, tot, t, r, desc ? kp - 1 : 0);
#pragma unroll 1
    for (unsigned s = 0; s < kp; s++) {
        const unsigned i = desc ? kp - 1 - s : s;
        if (PF) {
            if (s + 1 < kp) baf_load(nxt, src, pref, T, tot, t, r, desc ? i - 1 : i + 1);
        } else {
            baf_load(cur, src, pref, T, tot, t, r, i);
        }
        A o = cur.a;
        const bool o_real = cur.st < 2;
        if (cur.st == 0) {
            F d, num;
            const int k = baa_terms(cur.a, cur.b, d, num);
            const F dinv = inv * cur.p;
            inv = inv * d;
            o = baa_sum(cur.a, cur.b, k, num, dinv);
        }
        if (LAST) {
            if (o_real) sum = cz_ec_add_aff_inl(sum, o);
        } else {
            if (o_real) baa_st_aff(out + (size_t)i * T + t, o);
            /* round r+1's pair i/2 = (local i & ~1, local i | 1) is complete at its second one in walk order */
            if (desc ? !(i & 1) : (i & 1)) {
                const bool hi_real = desc ? prev_real : o_real; /* local i | 1: real implies local i & ~1 real */
                if (hi_real) {
                    F d2, n2;
                    if (desc) baa_terms(o, prev, d2, n2);
                    else baa_terms(prev, o, d2, n2);
                    cz_st(pref_out + (size_t)(i / 2) * T + t, acc);
                    acc = acc * d2;
                }
            } else {
                prev = o;
                prev_real = o_real;
            }
        }
        if (PF) cur = nxt;
    }
    if (LAST) {
        sum = block_sum(sum);
        if (threadIdx.x == 0) cz_ec_st(part + blockIdx.x, cz_ec_add(sum, cz_ec_ld(part + blockIdx.x)));
    } else {
        F e, x;
        baa_block_excl(acc, e, x);
        cz_st(ex + t, e * x);
        if (threadIdx.x == 0) cz_st(btot + blockIdx.x, acc * x);
    }
}

/* Geometry of one chunk of m selected points: G blocks (at most gmax), R rounds, K0 = q' 2^R per thread. */
struct baf_geom {
    unsigned G, R;
    size_t K0;
};
static baf_geom baf_plan(size_t m, unsigned gmax, size_t q) {
    baf_geom g;
    size_t G = (m + (size_t)BAA_THREADS * 4 * q - 1) / ((size_t)BAA_THREADS * 4 * q); /* >= 4q points per thread */
    g.G = (unsigned)(G < 1 ? 1 : G > gmax ? gmax : G);
    const size_t T = (size_t)g.G * BAA_THREADS, c = (m + T - 1) / T;
    g.R = 0;
    while ((q << (g.R + 1)) <= c) g.R++;
    const size_t qq = (c + ((size_t)1 << g.R) - 1) >> g.R; /* in [q, 2q] once c >= q */
    g.K0 = qq << g.R;
    return g;
}

/* Fused affine rounds over the tot selected indices idx[] in chunks (CZ_GPU_BA_CHUNK_LOG, default 25,
 * halved while device memory is short), summed into part[0 .. nparts) (zeroed here). Chunks too small
 * for a round (fewer than 2q points per thread) are summed in xyzz (baa_tail). g_ba[4..5]: scratch. */
template <class F>
static int baf_run(scratch *g_ba, cz_dxyzz<F> *part, unsigned nparts, const cz_daff<F> *bases, const uint32_t *idx, size_t tot,
                   cudaStream_t st) {
    typedef cz_daff<F> A;
    const size_t q = env_size("CZ_GPU_BA_Q", 8, 1, 1 << 16);
    const bool pf = env_size("CZ_GPU_BA_PF", std::is_same<F, cz_dfp>::value ? 1 : 0, 0, 1) != 0;
    size_t chunk = (size_t)1 << env_size("CZ_GPU_BA_CHUNK_LOG", 25, 10, 30);
    /* CZ_GPU_BA_MINB=2 (G1 only, for A/B): registers capped for two blocks per SM (16 warps, with spills) */
    auto first = &baf_first<F>;
    auto step0 = pf ? &baf_step<F, false, true> : &baf_step<F, false, false>;
    auto step1 = pf ? &baf_step<F, true, true> : &baf_step<F, true, false>;
    if constexpr (std::is_same<F, cz_dfp>::value) {
        if (env_size("CZ_GPU_BA_MINB", 1, 1, 2) == 2) {
            first = &baf_first<F, CZ_MINB2>;
            step0 = pf ? &baf_step<F, false, true, CZ_MINB2> : &baf_step<F, false, false, CZ_MINB2>;
            step1 = pf ? &baf_step<F, true, true, CZ_MINB2> : &baf_step<F, true, false, CZ_MINB2>;
        }
    }
    int per_sm = 1 << 30, o = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, step0, BAA_THREADS, 0) == cudaSuccess && o < per_sm) per_sm = o;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, step1, BAA_THREADS, 0) == cudaSuccess && o < per_sm) per_sm = o;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, first, BAA_THREADS, 0) == cudaSuccess && o < per_sm) per_sm = o;
    if (per_sm < 1 || per_sm > 64) per_sm = 1;
    unsigned gmax = (unsigned)(sm_count() * per_sm);
    if (gmax > 512) gmax = 512; /* baa_inv: one block of at most 512 threads */
    if (gmax > nparts) gmax = nparts;
    /* scratch of a chunk of m points: rounds 0 and 1 outputs, their running products, ex, btot, binv */
    auto need2 = [&](size_t m, size_t *pts, size_t *fs) {
        const baf_geom g = baf_plan(m, gmax, q);
        const size_t T = (size_t)g.G * BAA_THREADS, h = T * (g.K0 / 2) + 1, h2 = T * (g.K0 / 4) + 1;
        *pts = (h + h2) * sizeof(A);
        *fs = (h + h2 + T + 2 * (size_t)g.G) * sizeof(F);
    };
    auto need = [&](size_t ch) {
        size_t a = 0, b = 0, a2 = 0, b2 = 0;
        need2(tot < ch ? tot : ch, &a, &b);
        if (tot > ch) need2(tot % ch ? tot % ch : ch, &a2, &b2);
        return (a > a2 ? a : a2) + (b > b2 ? b : b2);
    };
    if (tot > chunk / 2) {
        const size_t ch = fit_chunk(chunk, (size_t)1 << 16, g_ba[4].cap + g_ba[5].cap, need);
        chunk = ch ? ch : (size_t)1 << 16; /* if even that fails, the allocation reports it */
    }
    size_t pa = 0, fa = 0, pa2 = 0, fa2 = 0;
    need2(tot < chunk ? tot : chunk, &pa, &fa);
    if (tot > chunk) need2(tot % chunk ? tot % chunk : chunk, &pa2, &fa2);
    A *buf = nullptr;
    F *fs = nullptr;
    int rc = scratch_get(g_ba[4], pa > pa2 ? pa : pa2, (void **)&buf);
    if (!rc) rc = scratch_get(g_ba[5], fa > fa2 ? fa : fa2, (void **)&fs);
    if (rc) return rc;
    CZ_CUDA(cudaMemsetAsync(part, 0, nparts * sizeof(cz_dxyzz<F>), st)); /* all zero: xyzz infinity */
    for (size_t off = 0; off < tot; off += chunk) {
        const size_t m = tot - off < chunk ? tot - off : chunk;
        const uint32_t *ci = idx + off;
        const baf_geom g = baf_plan(m, gmax, q);
        if (g.R == 0) {
            baa_tail<F><<<g.G, RED_THREADS, 0, st>>>(part, pts_aos(bases), ci, m, 1);
            CZ_CUDA_LAUNCHED();
            continue;
        }
        const size_t T = (size_t)g.G * BAA_THREADS, h = T * (g.K0 / 2) + 1;
        A *bufs[2] = {buf, buf + h};
        F *prefs[2] = {fs, fs + h}, *ex = fs + h + T * (g.K0 / 4) + 1, *btot = ex + T, *binv = btot + g.G;
        const unsigned ig = (g.G + 31) / 32 * 32;
        baf_src<F> src = {bases, ci};
        first<<<g.G, BAA_THREADS, 0, st>>>(src, T, m, (unsigned)(g.K0 / 2), prefs[0], ex, btot);
        CZ_CUDA_LAUNCHED();
        for (unsigned r = 0; r < g.R; r++) {
            baa_inv<F><<<1, ig, 0, st>>>(binv, btot, g.G);
            CZ_CUDA_LAUNCHED();
            const unsigned kp = (unsigned)(g.K0 >> (r + 1));
            if (r + 1 == g.R) {
                step1<<<g.G, BAA_THREADS, 0, st>>>(src, T, m, r, kp, prefs[r & 1], ex, binv, nullptr, nullptr, nullptr, part);
            } else {
                step0<<<g.G, BAA_THREADS, 0, st>>>(src, T, m, r, kp, prefs[r & 1], ex, binv, bufs[r & 1], prefs[(r + 1) & 1],
                                                   btot, nullptr);
                src.in = bufs[r & 1];
                src.idx = nullptr;
            }
            CZ_CUDA_LAUNCHED();
        }
    }
    return 0;
}

/* r_xyzz: host pointer to one xyzz point (the host's cz_g*_xyzz layout); g_ba: 8 scratch buffers
 * (4..7 for the affine rounds). CZ_GPU_BA_XYZZ=1 selects the xyzz-only summation, CZ_GPU_BA_FUSED=1 the
 * fused rounds (baf_run); both for A/B; the default is msm_impl.cuh's baa_run. */
template <class F>
static int ba_run(scratch *g_ba, void *r_xyzz, const void *d_bases, const uint64_t *d_bitmap, size_t n, void *stream) {
    typedef cz_dxyzz<F> P;
    cudaStream_t st = (cudaStream_t)stream;
    if (n == 0) {
        memset(r_xyzz, 0, sizeof(P));
        return 0;
    }
    if (n >= ((size_t)1 << 32)) return cz_error(CZ_ERANGE, "batch add of %zu points (max 2^32-1)", n);
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
    /* benchmark knob CZ_GPU_BA_MINB=2 (G1 only): registers capped for two 256-thread blocks per SM */
    const bool minb2 = std::is_same<F, cz_dfp>::value && getenv("CZ_GPU_BA_MINB") && atoi(getenv("CZ_GPU_BA_MINB")) == 2;
    auto kern = ba_sum<F>;
    if constexpr (std::is_same<F, cz_dfp>::value) {
        if (minb2) kern = ba_sum<F, CZ_MINB2>;
    }
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, bt, 0) != cudaSuccess || per_sm < 1) per_sm = 1;
    const int blocks = sm_count() * per_sm;
    const unsigned nparts = (unsigned)(blocks > 512 ? blocks : 512); /* the fused rounds' blocks: at most 512 */
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
    ba_popc<<<(unsigned)((nw + 1 + 255) / 256), 256, 0, st>>>(d_bitmap, nw, n, cnt);
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
    ba_scatter<<<(unsigned)(sb < sbmax ? sb : sbmax), 256, 0, st>>>(d_bitmap, nw, n, offs, idx);
    CZ_CUDA_LAUNCHED();
    uint32_t tot = 0;
    if (!xyzz) {
        CZ_CUDA(cudaEventSynchronize(hs[dev].ev));
        memcpy(&tot, h_pin, sizeof tot);
    }
    unsigned cnt_parts = (unsigned)blocks;
    if (xyzz) {
        kern<<<blocks, bt, 0, st>>>(part, (const cz_daff<F> *)d_bases, idx, offs + nw);
        CZ_CUDA_LAUNCHED();
    } else {
        if (hprof) ht[0] = hms(h0);
        if (env_size("CZ_GPU_BA_FUSED", 0, 0, 1)) {
            rc = baf_run<F>(g_ba, part, nparts, (const cz_daff<F> *)d_bases, idx, tot, st);
            cnt_parts = nparts;
        } else {
            rc = baa_run<F>(g_ba, part, (unsigned)blocks, (const cz_daff<F> *)d_bases, idx, tot, st);
        }
        if (rc) return rc;
    }
    if (hprof) {
        CZ_CUDA(cudaStreamSynchronize(st));
        ht[1] = hms(h0);
    }
    cudaEvent_t fe[2] = {nullptr, nullptr}; /* CZ_GPU_BA_PROFILE: the final sum's kernel time */
    if (hprof)
        for (int i = 0; i < 2; i++)
            if (cudaEventCreate(&fe[i]) == cudaSuccess) cudaEventRecord(fe[i], st);
    sum_segments<F><<<1, RED_THREADS, 0, st>>>(part + nparts, part, cnt_parts, 0);
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
                ht[0], ht[1], ht[2], cnt_parts, fk);
    }
    return 0;
}

/* Upper bound of the device scratch one batch addition of n points keeps (ba_run: index list, counts,
 * partial sums; with rounds, their buffers at CZ_GPU_BA_CHUNK_LOG = 25: the fused rounds' (q = 8, up to
 * 512 blocks), which also bound the default rounds' (0.75 points + 0.5 products per chunk position);
 * rounds = 0: at the smallest chunk fit_chunk falls back to, 2^16), for the prover's memory accounting. */
template <class F>
static size_t ba_scratch_bytes(size_t n, int rounds) {
    const size_t nw = (n + 63) / 64, chunk = (size_t)1 << (rounds ? 25 : 16), m = n < chunk ? n : chunk;
    const size_t T = (size_t)512 * BAA_THREADS;
    /* T K0 <= m (1 + 1/q) + T (the round-up of K0 to q' 2^R): points and products for K0/2 + K0/4 */
    const size_t tk = m + m / 8 + 2 * T;
    return 2 * (nw + 1) * 4 + n * 4 + 1024 * sizeof(cz_dxyzz<F>) + ((size_t)1 << 20) +
           (tk / 2 + tk / 4 + 2) * (sizeof(cz_daff<F>) + sizeof(F)) + (T + 1024) * sizeof(F);
}

#endif
