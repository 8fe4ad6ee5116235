/* One GPU partition (cz_gpu_prover_start) on a synthetic PoRep-shaped circuit generated on the device:
 * 2^k domain, constraints / aux scaled from PoRep 32 GiB (130,278,869 constraints, 130,169,893 aux,
 * 328 inputs), A ~2.375 / B ~1.0 / C ~2.17 entries per row (309.4 M / 130.3 M / 282.7 M nnz at 2^27),
 * B using one aux column in 4 (PoRep: 25.4 %), A every aux column; coefficients 90 % ones.
 * Witness: aux zeros / ones / random in the per-mille mix of CZ_BENCH_MIX="p0 p1" (default "450 450";
 * cz_bench_porep_mix measures a real PoRep witness's mix), B's columns in CZ_BENCH_MIX_B's (default: the same;
 * CZ_MIX_QUERIES=porep-32g cz_bench_porep_mix measures a real witness's B mix: B takes more of the values outside
 * {0, 1}, so its G1 and G2 tails are larger than a uniform mix gives).
 * Bases are random off-curve coordinates (same cost as real points for the group law; distinct).
 * Times a warm-up run and CZ_BENCH_REPS (default 1) more; witness upload from pinned memory included;
 * then two partitions back to back with the second witness prefetched (cz_gpu_prover_set_next).
 * B_G2 runs on the device as for real params (random Fp2 coordinates, B's density): a G2 batch add of the
 * ones plus a G2 tail MSM; its time is its own column (b_g2_ms) and part of gpu_total. --compact: the witness goes in compact form
 * (cz_gpu_prover_start_compact: bitmaps + non-bit values uploaded, expanded on the device; the expansion is
 * timed inside spmv_ms), built once on the host from the same witness; the pipelined pair is then skipped
 * (the prefetch is for dense witnesses); CZ_BENCH_WORKERS=2 adds two threads proving CZ_BENCH_REPS partitions each
 * through the same prover (the daemon's two workers per GPU; wall time per partition). --stream: the bases that do
 * not fit beside the rest stay in pinned host memory and cross PCIe per partition in chunks through a ring of
 * staging buffers (streamed mode; chunks, stages and kept parts from the memory left, CZ_GPU_MEM_LIMIT_MB caps it
 * to mimic a smaller card, CZ_GPU_PROVER_STAGES / CZ_GPU_PROVER_KEEP / CZ_GPU_PROVER_CHUNK override the plan;
 * htod_MB then includes the streamed bases; the row names the streamed parts); --both: each size resident, then
 * streamed, in the same run. The streamed prover's device needs (non-base part) are printed; a streamed prover that does not
 * fit prints the CZ_ENOMEM message with the sizes and the run goes on.
 * CZ_GPU_PROVER_LAGRANGE=1: the H query in Lagrange form (cz_gpu_prover_lagrange; random Lc and Lh bases): ntt_ms is
 * y's 4 NTTs, hmsm_ms y's MSM over Lc with c's batch additions over Lh; the row names c's other values.
 * CZ_BENCH_C_MIX="zeros ones minus_ones twos" (parts in 100,000): c's values drawn in that mix instead of the
 * synthetic matrices' a b (~11 % other values; a real 32 GiB PoRep partition: "80120 2960 2950 12610", 1.36 %
 * other, cz_bench_porep_mix), for the Lagrange form's c split; CZ_BENCH_C_MIX_VARY=1 draws c afresh each partition with
 * one twos part in 100,000 fewer each time: every partition's tail is the longest yet, and the tail MSM's scratch grows.
 * Usage: cz_bench_prover [--compact] [--stream | --both] [log_n ...] (default 24) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>
#include <pthread.h>

#include "cz_error.h"
#include "gpu/gpu.h"
#include "gpu/gpu_prover.h"

#define DIE_IF(rc, what)                                                  \
    do {                                                                  \
        if (rc) {                                                         \
            fprintf(stderr, "FAIL: %s: %s\n", what, cz_error_message()); \
            exit(1);                                                      \
        }                                                                 \
    } while (0)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

typedef struct {
    cz_gpu_prover *pr;
    const cz_fr *w;
    cz_wcompact cw;
    int reps, rc;
    double up_lo, up_hi;
    cz_gpu_prove_stats st[32]; /* the first 32 partitions' parts, printed after the run */
} pair_job;

static void *pair_thread(void *arg) {
    pair_job *j = (pair_job *)arg;
    j->up_lo = 1e30, j->up_hi = 0;
    for (int r = 0; r < j->reps && !j->rc; r++) {
        cz_groth16_pending pd;
        cz_gpu_prove_stats st;
        j->rc = cz_gpu_prover_start_compact(&pd, j->pr, j->w, &j->cw, 0, &st);
        j->up_lo = st.upload_ms < j->up_lo ? st.upload_ms : j->up_lo;
        j->up_hi = st.upload_ms > j->up_hi ? st.upload_ms : j->up_hi;
        if (r < 32) j->st[r] = st;
    }
    return NULL;
}

/* CZ_BENCH_SHRINK_G2=1: before each partition, the G2 MSM / batch-add scratch is freed and a 4,096-point G2 MSM
 * grows it small again, so the partition's B_G2 grows it (as the daemon's does when a partition's B tail is longer
 * than any before; scratch_grows / scratch_grow_ms in the row) */
static void shrink_g2_scratch(void) {
    enum { N = 4096 };
    cz_g2_affine *d_b = NULL;
    cz_fr *d_s = NULL;
    static cz_g2_affine hb[N];
    static cz_fr hs[N];
    for (int i = 0; i < N; i++) cz_fr_set_u64(&hs[i], 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
    cz_gpu_g2_release_scratch();
    if (cz_gpu_malloc((void **)&d_b, sizeof hb) || cz_gpu_malloc((void **)&d_s, sizeof hs) ||
        cz_gpu_memcpy_htod(d_b, hb, sizeof hb) || cz_gpu_memcpy_htod(d_s, hs, sizeof hs)) {
        fprintf(stderr, "shrink_g2_scratch: %s\n", cz_error_message());
    } else {
        cz_g2_jac r;
        if (cz_gpu_g2_msm(&r, d_b, d_s, N, NULL)) fprintf(stderr, "shrink_g2_scratch: %s\n", cz_error_message());
    }
    cz_gpu_free(d_b);
    cz_gpu_free(d_s);
}

int main(int argc, char **argv) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    char desc[256];
    /* CZ_GPU_SYNC=auto|spin|yield|block: how the host threads wait for the device (cz_gpu_set_sync_mode). Session 42
     * (docs/perf.md) measured it with busy CPU threads beside the bench: block 940.2 ms idle against auto's 938.3,
     * 941.35 against 948.3 beside 32 busy threads, 1,026 against 1,096 beside 160; the default stays CUDA's. */
    if (getenv("CZ_GPU_SYNC") && cz_gpu_set_sync_mode(getenv("CZ_GPU_SYNC"))) {
        fprintf(stderr, "CZ_GPU_SYNC: %s\n", cz_error_message());
        return 2;
    }
    if (!cz_gpu_describe(desc, sizeof desc)) printf("device: %s\n", desc);
    const char *e = getenv("CZ_BENCH_REPS");
    int reps = e ? atoi(e) : 1;
    unsigned p0 = 450, p1 = 450;
    const char *mix = getenv("CZ_BENCH_MIX");
    if (mix && sscanf(mix, "%u %u", &p0, &p1) != 2) p0 = 450, p1 = 450;
    unsigned p0b = p0, p1b = p1;
    const char *mixb = getenv("CZ_BENCH_MIX_B");
    if (mixb && (sscanf(mixb, "%u %u", &p0b, &p1b) != 2 || p0b + p1b > 1000)) p0b = p0, p1b = p1;
    printf("witness mix: aux 0 %.1f %%, 1 %.1f %%, other %.1f %%; B's aux 0 %.1f %%, 1 %.1f %%, other %.1f %%\n",
           p0 / 10.0, p1 / 10.0, (1000 - p0 - p1) / 10.0, p0b / 10.0, p1b / 10.0, (1000 - p0b - p1b) / 10.0);
    unsigned logs[16], nl = 0;
    int compact = 0, modes = 1; /* 1 resident, 2 streamed, 3 both */
    for (int i = 1; i < argc && nl < 16; i++) {
        if (!strcmp(argv[i], "--compact")) compact = 1;
        else if (!strcmp(argv[i], "--stream")) modes = 2;
        else if (!strcmp(argv[i], "--both")) modes = 3;
        else logs[nl++] = (unsigned)atoi(argv[i]);
    }
    printf("witness upload: %s\n", compact ? "compact (bitmaps + non-bit values, expanded on the device)" : "dense");
    if (!nl) logs[nl++] = 24;
    printf("%-5s %-11s %-9s %-9s %-9s %-9s %-9s %-13s %-12s %-9s %-11s %-12s %-8s %s\n", "log_n", "constraints", "upload_ms",
           "spmv_ms", "ntt_ms", "hmsm_ms", "ntt_msm_h_ms", "batch_add_ms", "tail_msm_ms", "b_g2_ms", "gpu_total_ms", "htod_MB",
           "dtoh_KB", "tails L/A/B");
    for (unsigned run = 0; run < 2 * nl; run++) {
        const unsigned k = logs[run / 2], streamed = run & 1;
        if (!(modes & (1 << streamed))) continue;
        const double f = (double)((uint64_t)1 << k) / (double)((uint64_t)1 << 27);
        cz_gpu_synth_shape s = {0};
        s.log_n = k;
        s.num_inputs = 328;
        s.num_aux = (uint64_t)(130169893.0 * f);
        s.num_constraints = (uint64_t)(130278869.0 * f);
        s.a_w_lo = 2, s.a_w_frac = 375, s.b_w_lo = 1, s.b_w_frac = 0, s.c_w_lo = 2, s.c_w_frac = 170;
        s.b_stride = 4;
        s.coeff_one = 900;
        /* CZ_BENCH_POOL=N: the other coefficients from N values, dictionary-coded (the real 2 KiB PoRep: 1,331
         * distinct in A); unset: random values, stored as values */
        s.coeff_pool = getenv("CZ_BENCH_POOL") ? (unsigned)atoi(getenv("CZ_BENCH_POOL")) : 0;
        s.streamed = (int)streamed;
        double t0 = now_s();
        cz_gpu_prover *pr;
        if (cz_gpu_prover_create_synthetic(&pr, 0, &s, 0x5eed + k, 0)) {
            if (!streamed) DIE_IF(1, "synthetic prover");
            printf("2^%u streamed: %s\n", k, cz_error_message());
            continue;
        }
        if (streamed) {
            size_t need, need_min;
            uint64_t chunk;
            int stages;
            unsigned kept;
            cz_gpu_prover_needs(pr, NULL, &need, &need_min);
            cz_gpu_prover_stream_plan(pr, &chunk, &stages, &kept);
            int sparse = 0;
            const double gbps = cz_gpu_prover_link(pr, &sparse);
            printf("2^%u streamed: link %.1f GB/s (%s); device %.2f GiB held; non-base need %.2f GiB with the chunks "
                   "chosen, %.2f GiB with the smallest (2^16 points); chunks of %llu G1 points, %d stages, kept:%s%s%s%s%s%s%s\n",
                   k, gbps, sparse ? "sparse query uploads" : "whole chunks", cz_gpu_prover_device_bytes(pr) / 1073741824.0, need / 1073741824.0, need_min / 1073741824.0,
                   (unsigned long long)chunk, stages, kept & CZ_GPU_PART_H ? " H" : "", kept & CZ_GPU_PART_L ? " L" : "",
                   kept & CZ_GPU_PART_A ? " A" : "", kept & CZ_GPU_PART_B_G1 ? " B_G1" : "",
                   kept & CZ_GPU_PART_B_G2 ? " B_G2" : "", kept ? "" : " none",
                   cz_gpu_prover_witness_in_c(pr)      ? "; the witness in c's buffer (uploaded twice)"
                   : cz_gpu_prover_host_matrices(pr) ? "; a/b/c in two vectors, the witness compact on the device, "
                                                       "the matrices' terms in host memory"
                   : cz_gpu_prover_two_vectors(pr)   ? "; a/b/c in two vectors, the witness compact on the device"
                                                     : "");
        }
        uint64_t ni, na, a_len, b_len, nnz[3];
        cz_gpu_prover_sizes(pr, &ni, &na, &a_len, &b_len, nnz);
        cz_fr *w;
        DIE_IF(cz_gpu_host_alloc((void **)&w, (ni + na) * sizeof(cz_fr)), "pinned witness");
        DIE_IF(cz_gpu_prover_synth_witness_b(pr, w, p0, p1, p0b, p1b, 0xabc + k), "witness");
        fprintf(stderr, "2^%u: setup %.1f s; aux %llu, nnz A/B/C %llu/%llu/%llu, A %llu, B %llu, device %.1f GiB\n", k,
                now_s() - t0, (unsigned long long)na, (unsigned long long)nnz[0], (unsigned long long)nnz[1],
                (unsigned long long)nnz[2], (unsigned long long)a_len, (unsigned long long)b_len,
                cz_gpu_prover_device_bytes(pr) / 1073741824.0);
        { /* CZ_GPU_PROVER_PAIRS=1: whether the prover took pair sums, their bytes and build time */
            char rep[1024];
            cz_gpu_prover_build_report(pr, rep, sizeof rep);
            const char *ps = strstr(rep, "pair sums");
            printf("2^%u: %.*s; device %.1f GiB\n", k, ps ? (int)strcspn(ps, ";") : 12, ps ? ps : "no pair sums",
                   cz_gpu_prover_device_bytes(pr) / 1073741824.0);
        }
        cz_wcompact cw;
        cz_wcompact_init(&cw);
        if (compact) {
            double tc = now_s();
            DIE_IF(cz_wcompact_reserve(&cw, na, 0) || cz_wcompact_from_dense(&cw, w + ni, na), "compact witness");
            printf("2^%u compact witness: %llu non-bit of %llu aux (%.2f %%), %.1f MB vs %.1f MB dense "
                   "(host conversion %.1f s, not timed below)\n",
                   k, (unsigned long long)cw.n_dense, (unsigned long long)na, na ? 100.0 * cw.n_dense / na : 0.0,
                   (ni * 32 + cz_wcompact_bytes(&cw)) / 1e6, (ni + na) * 32 / 1e6, now_s() - tc);
        }
        for (int r = 0; r <= reps; r++) {
            cz_groth16_pending pd;
            cz_gpu_prove_stats st;
            if (getenv("CZ_BENCH_SHRINK_G2") && atoi(getenv("CZ_BENCH_SHRINK_G2")) == 1) shrink_g2_scratch();
            if (compact) DIE_IF(cz_gpu_prover_start_compact(&pd, pr, w, &cw, 0, &st), "start_compact");
            else DIE_IF(cz_gpu_prover_start(&pd, pr, w, w + ni, 0, &st), "start");
            char sp[96] = "";
            if (st.streamed)
                snprintf(sp, sizeof sp, " streamed(%s%s%s%s%s, %d stages%s, %llu of %llu chunks sparse)",
                         st.streamed_parts & CZ_GPU_PART_H ? "H" : "", st.streamed_parts & CZ_GPU_PART_L ? "L" : "",
                         st.streamed_parts & CZ_GPU_PART_A ? "A" : "", st.streamed_parts & CZ_GPU_PART_B_G1 ? "B" : "",
                         st.streamed_parts & CZ_GPU_PART_B_G2 ? "2" : "", st.stages,
                         st.witness_again ? ", witness twice" : st.host_matrices ? ", host matrices"
                         : st.two_vectors ? ", two vectors" : "",
                         (unsigned long long)st.sparse_chunks, (unsigned long long)st.chunks);
            if (st.lagrange)
                snprintf(sp, sizeof sp, " Lagrange H (c: %llu other values%s)", (unsigned long long)st.c_tail,
                         st.c_full ? ", one MSM" : "");
            printf("%-5u %-11llu %-9.1f %-9.1f %-9.1f %-9.1f %-12.1f %-13.1f %-12.1f %-9.1f %-11.1f %-12.1f %-8.1f %llu/%llu/%llu g2 beside the tails %.1f, waited %.1f%s; grew %llu in %.1f ms%s%s%s\n", k,
                   (unsigned long long)s.num_constraints, st.upload_ms, st.spmv_ms, st.ntt_ms, st.h_msm_ms,
                   st.spmv_ms + st.ntt_ms + st.h_msm_ms, st.batch_add_ms, st.tail_msm_ms, st.b_g2_cpu_ms, st.gpu_total_ms,
                   st.htod_bytes / 1e6, st.dtoh_bytes / 1e3, (unsigned long long)st.tail[0],
                   (unsigned long long)st.tail[1], (unsigned long long)st.tail[2], st.g2_tail_ms, st.g2_wait_ms, st.g2_early ? " (B_G2 early)" : "",
                   (unsigned long long)st.scratch_grows, st.scratch_grow_ms,
                   st.full_msm[0] || st.full_msm[1] || st.full_msm[2] ? " (full MSM)" : "",
                   sp, r == 0 ? " (warm-up)" : "");
            fflush(stdout);
        }
        /* CZ_BENCH_WORKERS=2 (--compact): two threads prove reps partitions each through this prover, each with its
         * own copy of the compact witness, as the daemon's two workers per GPU do; wall time per partition */
        if (compact && getenv("CZ_BENCH_WORKERS") && atoi(getenv("CZ_BENCH_WORKERS")) == 2 && reps > 0) {
            pair_job jb[2];
            pthread_t th[2];
            for (int i = 0; i < 2; i++) {
                cz_wcompact_init(&jb[i].cw);
                DIE_IF(cz_wcompact_reserve(&jb[i].cw, na, 0) || cz_wcompact_from_dense(&jb[i].cw, w + ni, na), "compact copy");
                jb[i].pr = pr, jb[i].w = w, jb[i].reps = reps, jb[i].rc = 0;
            }
            double tw = now_s();
            for (int i = 0; i < 2; i++) DIE_IF(pthread_create(&th[i], NULL, pair_thread, &jb[i]), "pthread_create");
            for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
            tw = now_s() - tw;
            for (int i = 0; i < 2; i++) {
                if (jb[i].rc) printf("%-5u two workers: worker %d failed\n", k, i);
                for (int r = 0; r < reps && r < 32 && !jb[i].rc; r++) /* the daemon's CUZK_TIMING parts, per partition */
                    printf("%-5u two workers: worker %d partition %d: h_msm_ms %.1f batch_add_ms %.1f tail_msm_ms %.1f "
                           "b_g2_msm_ms %.1f gpu_total_ms %.1f lock_ms %.1f g2_tail_ms %.1f g2_wait_ms %.1f scratch_grows %llu "
                           "(%.1f ms)\n", k, i, r,
                           jb[i].st[r].h_msm_ms, jb[i].st[r].batch_add_ms, jb[i].st[r].tail_msm_ms,
                           jb[i].st[r].b_g2_cpu_ms, jb[i].st[r].gpu_total_ms, jb[i].st[r].lock_ms, jb[i].st[r].g2_tail_ms,
                           jb[i].st[r].g2_wait_ms, (unsigned long long)jb[i].st[r].scratch_grows,
                           jb[i].st[r].scratch_grow_ms);
                cz_wcompact_free(&jb[i].cw);
            }
            printf("%-5u two workers: %d partitions in %.1f ms, %.1f ms per partition (wall); upload_ms %.1f-%.1f\n", k,
                   2 * reps, 1e3 * tw, 1e3 * tw / (2 * reps), jb[0].up_lo < jb[1].up_lo ? jb[0].up_lo : jb[1].up_lo,
                   jb[0].up_hi > jb[1].up_hi ? jb[0].up_hi : jb[1].up_hi);
        }
        cz_wcompact_free(&cw);
        if (!compact) { /* two partitions back to back: the second's witness uploads during the first */
            cz_fr *w2;
            DIE_IF(cz_gpu_host_alloc((void **)&w2, (ni + na) * sizeof(cz_fr)), "pinned witness 2");
            DIE_IF(cz_gpu_prover_synth_witness_b(pr, w2, p0, p1, p0b, p1b, 0xdef + k), "witness 2");
            /* the prefetch buffer is extra device memory: at the largest sizes it may not fit beside the
             * MSM working set (the prover then proves without it; the engine does not prefetch) */
            const int pf = cz_gpu_prover_set_next(pr, w2, w2 + ni);
            if (pf) printf("%-5u pipelined pair skipped: %s\n", k, cz_error_message());
            for (int r = 0; r < 2 && !pf; r++) {
                cz_groth16_pending pd;
                cz_gpu_prove_stats st;
                double t1 = now_s();
                DIE_IF(cz_gpu_prover_start(&pd, pr, r ? w2 : w, r ? w2 + ni : w + ni, 0, &st), "start");
                printf("%-5u pipelined partition %d: upload %.1f ms, gpu_total %.1f ms (wall %.1f ms)\n", k, r + 1,
                       st.upload_ms, st.gpu_total_ms, 1e3 * (now_s() - t1));
            }
            cz_gpu_host_free(w2);
        }
        cz_gpu_host_free(w);
        cz_gpu_prover_destroy(pr);
    }
    return 0;
}
