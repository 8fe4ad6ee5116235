/* GPU partition prover: resident params and matrices, per-partition device pipeline (gpu_prover.h).
 * Every device allocation goes through one accountant (dalloc): the limit is the free memory at
 * creation minus a safety margin, and the lazily grown MSM / batch-add scratch of msm.cu is reserved
 * up front (work_reserve), so a prover that does not fit fails at creation with CZ_ENOMEM and the
 * sizes, not in the middle of a proof. */
#include "gpu/gpu_prover.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cz_error.h"
#include "ec/msm.h"
#include "gpu/gpu.h"
#include "gpu/prover_internal.h"
#include "poly/ntt.h"

/* Define once cz_gpu_g2_msm / cz_gpu_g2_batch_add exist (gpumsm branch): B_G2 then stays on the device. */
/* #define CZ_GPU_HAVE_G2_MSM */

#define GIB (1024.0 * 1024.0 * 1024.0)

enum { Q_L = 0, Q_A = 1, Q_B = 2 };

struct cz_gpu_prover {
    int device;
    const cz_groth16_params *p; /* NULL for a synthetic prover */
    const cz_r1cs *r;
    uint64_t ni, na, rows, n;
    unsigned log_n;
    uint64_t len[3];  /* L, A, B_G1 query lengths */
    cz_g1_affine *d_h, *d_q[3];
    cz_g2_affine *d_b2; /* B_G2 bases, only with CZ_GPU_HAVE_G2_MSM */
    cz_gpu_csr *m[3];
    uint32_t *d_map[3]; /* query position -> witness index (NULL for L: aux j is witness ni + j) */
    cz_fr *d_w, *d_abc;
    /* Prefetch of the next partition's witness (cz_gpu_prover_set_next): d_w2 is the spare buffer,
     * pre_* the host pointers whose upload was issued into it (done when ev_pre completes). */
    cz_fr *d_w2;
    const cz_fr *next_in, *next_aux, *pre_in, *pre_aux;
    void *ev_pre;
    /* synthetic provers: host copies of the B densities and the B_G2 bases the bench attaches */
    cz_r1cs syn_r;
    cz_groth16_params syn_p;
    uint32_t *d_ones, *d_cnt; /* bitmap (u32 words) and counts + offsets for the longest query */
    uint8_t *d_tail;          /* 64 B per position of the longest query: tail scalars and bases */
    void *scan_temp;
    size_t scan_cap;
    cz_gpu_ntt *plan;
    void *st, *st_up, *ev_up;
    size_t limit, used, work_reserve;
};

/* ---- locks ---- */
static pthread_mutex_t g_locks[64];
static pthread_once_t g_locks_once = PTHREAD_ONCE_INIT;
static void locks_init(void) {
    for (int i = 0; i < 64; i++) pthread_mutex_init(&g_locks[i], NULL);
}
void cz_gpu_lock(int dev) {
    pthread_once(&g_locks_once, locks_init);
    pthread_mutex_lock(&g_locks[dev & 63]);
}
void cz_gpu_unlock(int dev) { pthread_mutex_unlock(&g_locks[dev & 63]); }

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* ---- memory accounting ---- */
/* Upper bound of msm.cu's scratch for an MSM of N points (its window choice, +10 %). */
static size_t msm_scratch_est(size_t N) {
    size_t c = N < ((size_t)1 << 14) ? 8 : N < ((size_t)1 << 25) ? 16 : 20, W = (256 + c - 1) / c, nb = (size_t)1 << (c - 1);
    size_t b = N * 32 + 3 * N * 4 + W * N * 4 + 2 * W * (nb + 1) * 4 + W * nb * 192 + (W * (nb / 64) + W) * 192 +
               N * 8 + ((size_t)1 << 20);
    return b + b / 10;
}
static size_t ba_scratch_est(size_t N) { return N * 4 + N / 8 + ((size_t)4 << 20); }

static int dalloc(void *ctx, void **ptr, size_t bytes, const char *what) {
    cz_gpu_prover *pr = ctx;
    *ptr = NULL;
    if (pr->used + bytes + pr->work_reserve > pr->limit)
        return cz_error(CZ_ENOMEM,
                        "GPU prover: %s (%.2f GiB) does not fit: %.2f GiB allocated + %.2f GiB MSM working set, "
                        "limit %.2f GiB (free memory minus the safety margin)",
                        what, bytes / GIB, pr->used / GIB, pr->work_reserve / GIB, pr->limit / GIB);
    int rc = cz_gpu_malloc(ptr, bytes ? bytes : 1);
    if (rc) return rc;
    pr->used += bytes;
    return 0;
}

static int init_common(cz_gpu_prover **out, int device, size_t margin) {
    *out = NULL;
    int rc = cz_gpu_set_device(device);
    if (rc) return rc;
    cz_gpu_prover *pr = calloc(1, sizeof *pr);
    if (!pr) return cz_error(CZ_ENOMEM, "GPU prover");
    pr->device = device;
    size_t fr, tot;
    rc = cz_gpu_mem_info(&fr, &tot);
    if (rc) {
        free(pr);
        return rc;
    }
    if (!margin) margin = ((size_t)1 << 30) + tot / 50;
    pr->limit = fr > margin ? fr - margin : 0;
    if (!rc) rc = cz_gpu_stream_create_(&pr->st);
    if (!rc) rc = cz_gpu_stream_create_(&pr->st_up);
    if (!rc) rc = cz_gpu_event_create_(&pr->ev_up);
    *out = pr;
    return rc;
}

/* Sizes known: reserve msm.cu's scratch and allocate the per-partition buffers. */
static int alloc_working(cz_gpu_prover *pr) {
    uint64_t maxlen = pr->len[0];
    for (int q = 1; q < 3; q++) maxlen = pr->len[q] > maxlen ? pr->len[q] : maxlen;
    size_t msm_n = pr->n - 1 > maxlen ? pr->n - 1 : maxlen;
    pr->work_reserve = msm_scratch_est(msm_n) + ba_scratch_est(maxlen);
    const size_t words = (maxlen + 63) / 64, groups = 2 * words;
    int rc = cz_gpu_ntt_create(&pr->plan, pr->log_n);
    if (!rc) rc = dalloc(pr, (void **)&pr->d_w, (pr->ni + pr->na) * sizeof(cz_fr), "witness");
    if (!rc) rc = dalloc(pr, (void **)&pr->d_abc, 3 * pr->n * sizeof(cz_fr), "a, b, c");
    if (!rc) rc = dalloc(pr, (void **)&pr->d_ones, (groups + 2) * 4, "0/1 bitmap");
    if (!rc) rc = dalloc(pr, (void **)&pr->d_cnt, 2 * (groups + 2) * 4, "split counts");
    if (!rc) rc = dalloc(pr, (void **)&pr->d_tail, 64 * (size_t)maxlen + 4096, "tail scalars and bases");
    return rc;
}

/* A and B_G1 maps from the density bitmaps (d_bits: aux bits of A, input bits of B, aux bits of B). */
static int build_maps(cz_gpu_prover *pr, const uint64_t *d_a_aux, const uint64_t *d_b_in, const uint64_t *d_b_aux,
                      uint64_t *a_len, uint64_t *b_len) {
    size_t na_cnt = 0, bi_cnt = 0, ba_cnt = 0;
    const size_t wa = (pr->na + 63) / 64, wi = (pr->ni + 63) / 64;
    uint32_t *cnt = NULL;
    int rc = cz_gpu_malloc((void **)&cnt, 2 * ((wa > wi ? wa : wi) + 2) * 4);
    uint32_t *ta = NULL, *tb = NULL;
    /* worst-case maps first; they are copied to exact sizes below */
    if (!rc) rc = cz_gpu_malloc((void **)&ta, (pr->ni + pr->na + 1) * 4);
    if (!rc) rc = cz_gpu_malloc((void **)&tb, (pr->ni + pr->na + 1) * 4);
    if (!rc) rc = cz_gpu_iota_(ta, pr->ni, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(ta + pr->ni, &na_cnt, d_a_aux, pr->na, (uint32_t)pr->ni, cnt, &pr->scan_temp,
                                        &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(tb, &bi_cnt, d_b_in, pr->ni, 0, cnt, &pr->scan_temp, &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_bitmap_to_map_(tb + bi_cnt, &ba_cnt, d_b_aux, pr->na, (uint32_t)pr->ni, cnt, &pr->scan_temp,
                                        &pr->scan_cap, pr->st);
    *a_len = pr->ni + na_cnt;
    *b_len = bi_cnt + ba_cnt;
    if (!rc) rc = dalloc(pr, (void **)&pr->d_map[Q_A], (*a_len + 1) * 4, "A index map");
    if (!rc) rc = dalloc(pr, (void **)&pr->d_map[Q_B], (*b_len + 1) * 4, "B index map");
    if (!rc) rc = cz_gpu_dtod_(pr->d_map[Q_A], ta, *a_len * 4);
    if (!rc) rc = cz_gpu_dtod_(pr->d_map[Q_B], tb, *b_len * 4);
    cz_gpu_free(cnt);
    cz_gpu_free(ta);
    cz_gpu_free(tb);
    return rc;
}

/* Fails with CZ_ENOMEM, naming the parts, when the whole prover cannot fit. */
static int check_fit(const cz_gpu_prover *pr, size_t matrices, size_t bases, size_t maps) {
    uint64_t maxlen = pr->len[0];
    for (int q = 1; q < 3; q++) maxlen = pr->len[q] > maxlen ? pr->len[q] : maxlen;
    size_t msm_n = pr->n - 1 > maxlen ? pr->n - 1 : maxlen;
    size_t work = (pr->ni + pr->na) * 32 + 3 * pr->n * 32 + 64 * maxlen + 4096 + maxlen / 2 + msm_scratch_est(msm_n) +
                  ba_scratch_est(maxlen);
    size_t need = matrices + bases + maps + work;
    if (need > pr->limit)
        return cz_error(CZ_ENOMEM,
                        "GPU prover does not fit on device %d: needs %.2f GiB (bases %.2f, matrices %.2f, maps %.2f, "
                        "per-partition working set %.2f) but %.2f GiB is usable (free memory minus the margin)",
                        pr->device, need / GIB, bases / GIB, matrices / GIB, maps / GIB, work / GIB, pr->limit / GIB);
    return 0;
}

static int upload_bases(cz_gpu_prover *pr, cz_g1_affine **d, const cz_g1_affine *h, size_t n, const char *what) {
    int rc = dalloc(pr, (void **)d, n * sizeof(cz_g1_affine), what);
    if (!rc && n) rc = cz_gpu_memcpy_htod(*d, h, n * sizeof(cz_g1_affine));
    return rc;
}

static int upload_csr(cz_gpu_prover *pr, cz_gpu_csr **m, const cz_csr *h) {
    size_t b = cz_gpu_csr_bytes(h->rows, cz_r1cs_nnz(h));
    if (pr->used + b + pr->work_reserve > pr->limit) return cz_error(CZ_ENOMEM, "GPU prover: matrices do not fit");
    int rc = cz_gpu_csr_upload(m, h);
    if (!rc) pr->used += b;
    return rc;
}

static int upload_bits(uint64_t **d, const uint64_t *h, size_t nbits) {
    size_t bytes = ((nbits + 63) / 64 + 1) * 8;
    int rc = cz_gpu_malloc((void **)d, bytes);
    if (!rc) rc = cz_gpu_memcpy_htod(*d, h, bytes);
    return rc;
}

int cz_gpu_prover_create(cz_gpu_prover **out, int device, const cz_groth16_params *p, const cz_r1cs *r,
                         size_t margin_bytes) {
    *out = NULL;
    cz_domain d;
    int rc = cz_domain_for_size(&d, r->num_rows);
    if (rc) return rc;
    const uint64_t ni = r->num_inputs, na = r->num_aux, n = d.n;
    if (d.log_n < 1) return cz_error(CZ_ERANGE, "GPU prover: domain of size 1 (at least 2 rows needed)");
    if (ni + na >= ((uint64_t)1 << 32)) return cz_error(CZ_ERANGE, "GPU prover: %llu variables (max 2^32-1)",
                                                        (unsigned long long)(ni + na));
    if (p->h_len != n - 1 || p->l_len != na || p->vk.ic_len != ni || p->a_len != ni + r->a_aux_popcount ||
        p->b_len != r->b_input_popcount + r->b_aux_popcount)
        return cz_error(CZ_EFORMAT, "GPU prover: params do not fit the circuit (H %zu/%llu, L %zu/%llu, A %zu, B %zu)",
                        p->h_len, (unsigned long long)(n - 1), p->l_len, (unsigned long long)na, p->a_len, p->b_len);
    cz_gpu_prover *pr;
    rc = init_common(&pr, device, margin_bytes);
    if (!pr) return rc;
    pr->p = p;
    pr->r = r;
    pr->ni = ni, pr->na = na, pr->rows = r->num_rows, pr->n = n, pr->log_n = d.log_n;
    pr->len[Q_L] = na, pr->len[Q_A] = p->a_len, pr->len[Q_B] = p->b_len;
    size_t mat = cz_gpu_csr_bytes(r->a.rows, cz_r1cs_nnz(&r->a)) + cz_gpu_csr_bytes(r->b.rows, cz_r1cs_nnz(&r->b)) +
                 cz_gpu_csr_bytes(r->c.rows, cz_r1cs_nnz(&r->c));
    size_t bases = (p->h_len + p->l_len + p->a_len + p->b_len) * sizeof(cz_g1_affine);
#ifdef CZ_GPU_HAVE_G2_MSM
    bases += p->b_len * sizeof(cz_g2_affine);
#endif
    if (!rc) rc = check_fit(pr, mat, bases, (p->a_len + p->b_len + 2) * 4);
    if (!rc) rc = alloc_working(pr);
    if (!rc) rc = upload_bases(pr, &pr->d_h, p->h, p->h_len, "H query");
    if (!rc) rc = upload_bases(pr, &pr->d_q[Q_L], p->l, p->l_len, "L query");
    if (!rc) rc = upload_bases(pr, &pr->d_q[Q_A], p->a, p->a_len, "A query");
    if (!rc) rc = upload_bases(pr, &pr->d_q[Q_B], p->b_g1, p->b_len, "B_G1 query");
#ifdef CZ_GPU_HAVE_G2_MSM
    if (!rc) rc = dalloc(pr, (void **)&pr->d_b2, p->b_len * sizeof(cz_g2_affine), "B_G2 query");
    if (!rc && p->b_len) rc = cz_gpu_memcpy_htod(pr->d_b2, p->b_g2, p->b_len * sizeof(cz_g2_affine));
#endif
    if (!rc) rc = upload_csr(pr, &pr->m[0], &r->a);
    if (!rc) rc = upload_csr(pr, &pr->m[1], &r->b);
    if (!rc) rc = upload_csr(pr, &pr->m[2], &r->c);
    uint64_t *ba = NULL, *bi = NULL, *bb = NULL, a_len = 0, b_len = 0;
    if (!rc) rc = upload_bits(&ba, r->a_aux_density, na);
    if (!rc) rc = upload_bits(&bi, r->b_input_density, ni);
    if (!rc) rc = upload_bits(&bb, r->b_aux_density, na);
    if (!rc) rc = build_maps(pr, ba, bi, bb, &a_len, &b_len);
    if (!rc && (a_len != p->a_len || b_len != p->b_len))
        rc = cz_error(CZ_EFORMAT, "GPU prover: density maps give A %llu / B %llu, params hold %zu / %zu",
                      (unsigned long long)a_len, (unsigned long long)b_len, p->a_len, p->b_len);
    cz_gpu_free(ba);
    cz_gpu_free(bi);
    cz_gpu_free(bb);
    if (rc) {
        cz_gpu_prover_destroy(pr);
        return rc;
    }
    *out = pr;
    return 0;
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
    int rc = init_common(&pr, device, margin_bytes);
    if (!pr) return rc;
    pr->ni = ni, pr->na = na, pr->rows = rows, pr->n = n, pr->log_n = s->log_n;
    pr->len[Q_L] = na, pr->len[Q_A] = pr->len[Q_B] = ni + na; /* upper bounds until the maps exist */
    if (!rc) rc = alloc_working(pr);
    struct {
        int kind;
        unsigned lo, frac, in_w;
    } mk[3] = {{0, s->a_w_lo, s->a_w_frac, 1}, {1, s->b_w_lo, s->b_w_frac, 0}, {2, s->c_w_lo, s->c_w_frac, 0}};
    for (int k = 0; k < 3 && !rc; k++) {
        uint64_t *rp;
        uint32_t *col;
        cz_fr *val;
        uint64_t nnz;
        rc = cz_gpu_synth_csr_(&rp, &col, &val, &nnz, rows, s->num_constraints, ni, na, mk[k].lo, mk[k].frac,
                               mk[k].in_w, mk[k].kind, s->b_stride, s->coeff_one, seed + 101 * k, dalloc, pr, pr->st);
        if (!rc) rc = cz_gpu_stream_sync_(pr->st);
        if (!rc) rc = cz_gpu_csr_wrap_(&pr->m[k], rows, rp, col, val);
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
    if (!rc) rc = build_maps(pr, bits[0], bits[1], bits[2], &a_len, &b_len);
    /* host copies of the B densities, for a B_G2 the bench may attach (cz_gpu_prover_synth_attach_g2) */
    pr->syn_r.num_inputs = ni, pr->syn_r.num_aux = na;
    pr->syn_r.b_input_density = calloc((ni + 63) / 64 + 1, 8);
    pr->syn_r.b_aux_density = calloc((na + 63) / 64 + 1, 8);
    if (!rc && (!pr->syn_r.b_input_density || !pr->syn_r.b_aux_density)) rc = cz_error(CZ_ENOMEM, "B densities");
    if (!rc) rc = cz_gpu_memcpy_dtoh(pr->syn_r.b_input_density, bits[1], ((ni + 63) / 64) * 8);
    if (!rc) rc = cz_gpu_memcpy_dtoh(pr->syn_r.b_aux_density, bits[2], ((na + 63) / 64) * 8);
    for (int k = 0; k < 3; k++) cz_gpu_free(bits[k]);
    if (!rc) {
        pr->len[Q_A] = a_len, pr->len[Q_B] = b_len;
        rc = dalloc(pr, (void **)&pr->d_h, (n - 1) * sizeof(cz_g1_affine), "H query");
    }
    for (int q = 0; q < 3 && !rc; q++) rc = dalloc(pr, (void **)&pr->d_q[q], pr->len[q] * sizeof(cz_g1_affine), "query");
    if (!rc) rc = cz_gpu_synth_points_(pr->d_h, n - 1, seed ^ 0x1111, pr->st);
    for (int q = 0; q < 3 && !rc; q++) rc = cz_gpu_synth_points_(pr->d_q[q], pr->len[q], seed ^ (0x2222 * (q + 1)), pr->st);
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
    int rc = cz_gpu_set_device(pr->device);
    if (!rc) rc = cz_gpu_synth_witness_(pr->d_w, pr->ni, pr->na, p0, p1, seed, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    if (!rc) rc = cz_gpu_memcpy_dtoh(host_w, pr->d_w, (pr->ni + pr->na) * sizeof(cz_fr));
    return rc;
}

void cz_gpu_prover_sizes(const cz_gpu_prover *pr, uint64_t *ni, uint64_t *na, uint64_t *a_len, uint64_t *b_len,
                         uint64_t nnz[3]) {
    *ni = pr->ni, *na = pr->na, *a_len = pr->len[Q_A], *b_len = pr->len[Q_B];
    for (int k = 0; k < 3; k++) {
        uint64_t r_;
        const uint32_t *col;
        nnz[k] = 0;
        if (pr->m[k]) cz_gpu_csr_info_(pr->m[k], &r_, &nnz[k], &col);
    }
}

size_t cz_gpu_prover_device_bytes(const cz_gpu_prover *pr) { return pr->used + pr->work_reserve; }

void cz_gpu_prover_destroy(cz_gpu_prover *pr) {
    if (!pr) return;
    cz_gpu_set_device(pr->device);
    cz_gpu_free(pr->d_h);
    cz_gpu_free(pr->d_b2);
    for (int q = 0; q < 3; q++) {
        cz_gpu_free(pr->d_q[q]);
        cz_gpu_free(pr->d_map[q]);
        cz_gpu_csr_free(pr->m[q]);
    }
    cz_gpu_free(pr->d_w);
    cz_gpu_free(pr->d_w2);
    cz_gpu_event_destroy_(pr->ev_pre);
    cz_gpu_free(pr->d_abc);
    cz_gpu_free(pr->d_ones);
    cz_gpu_free(pr->d_cnt);
    cz_gpu_free(pr->d_tail);
    cz_gpu_free(pr->scan_temp);
    cz_gpu_ntt_destroy(pr->plan);
    cz_gpu_event_destroy_(pr->ev_up);
    cz_gpu_stream_destroy_(pr->st);
    cz_gpu_stream_destroy_(pr->st_up);
    free(pr->syn_r.b_input_density);
    free(pr->syn_r.b_aux_density);
    cz_gpu_g1_release_scratch(); /* msm.cu's scratch was reserved by this prover */
    free(pr);
}

/* ---- start ---- */
typedef struct {
    const cz_gpu_prover *pr;
    const cz_fr *inputs, *aux;
    int nthreads, rc;
    cz_g2_jac r;
    double ms;
} g2_job;

int cz_gpu_g2_split_cpu(cz_g2_jac *r, const cz_g2_affine *bases, const cz_fr *sc, size_t n, int nthreads,
                        size_t *tail_out) {
    const size_t nw = (n + 63) / 64;
    uint64_t *ones = calloc(nw + 1, 8);
    uint32_t *cnt = malloc((nw + 1) * sizeof *cnt);
    if (!ones || !cnt) {
        free(ones), free(cnt);
        return cz_error(CZ_ENOMEM, "B_G2 split: bitmap of %zu", n);
    }
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t w = 0; w < nw; w++) {
        uint64_t b = 0;
        uint32_t c = 0;
        for (size_t i = w * 64; i < n && i < w * 64 + 64; i++) {
            if (cz_fr_equal(&sc[i], &CZ_FR_ONE_V)) b |= (uint64_t)1 << (i & 63);
            else if (!cz_fr_is_zero(&sc[i])) c++;
        }
        ones[w] = b, cnt[w] = c;
    }
    size_t tail = 0;
    for (size_t w = 0; w < nw; w++) {
        uint32_t c = cnt[w];
        cnt[w] = (uint32_t)tail;
        tail += c;
    }
    if (tail_out) *tail_out = tail;
    if (2 * tail > n) { /* mostly "other": one MSM is cheaper than the split */
        free(ones), free(cnt);
        cz_g2_msm(r, bases, sc, n, nthreads);
        return 0;
    }
    cz_g2_affine *tb = malloc((tail + 1) * sizeof *tb);
    cz_fr *ts = malloc((tail + 1) * sizeof *ts);
    if (!tb || !ts) {
        free(ones), free(cnt), free(tb), free(ts);
        return cz_error(CZ_ENOMEM, "B_G2 split: tail of %zu", tail);
    }
#pragma omp parallel for schedule(static) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (size_t w = 0; w < nw; w++) {
        size_t o = cnt[w];
        for (size_t i = w * 64; i < n && i < w * 64 + 64; i++)
            if (!cz_fr_equal(&sc[i], &CZ_FR_ONE_V) && !cz_fr_is_zero(&sc[i])) tb[o] = bases[i], ts[o++] = sc[i];
    }
    cz_g2_jac ba, tm;
    cz_g2_batch_add(&ba, bases, ones, n, nthreads);
    cz_g2_msm(&tm, tb, ts, tail, nthreads);
    cz_g2_jac_add(r, &ba, &tm);
    free(ones), free(cnt), free(tb), free(ts);
    return 0;
}

/* B_G2 on the CPU: gather the B scalars in query order (as cz_groth16_prove_start), then the same 0/1
 * split as on the device (cz_g2_batch_add + cz_g2_msm over the rest). */
static void *g2_thread(void *arg) {
    g2_job *j = arg;
    const cz_gpu_prover *pr = j->pr;
    const cz_r1cs *r = pr->r;
    double t0 = now_ms();
    cz_fr *sb = malloc((pr->len[Q_B] + 1) * sizeof *sb);
    if (!sb) {
        j->rc = cz_error(CZ_ENOMEM, "GPU prover: B_G2 scalars");
        return NULL;
    }
    size_t kb = 0;
    for (uint64_t i = 0; i < pr->ni; i++)
        if (cz_density_get(r->b_input_density, i)) sb[kb++] = j->inputs[i];
    /* aux: 130 M density bits at PoRep size, so in parallel (popcount prefix per block of 64 words) */
    const size_t nw = (pr->na + 63) / 64, nblk = (nw + 63) / 64;
    size_t *off = malloc((nblk + 1) * sizeof *off);
    if (!off) {
        free(sb);
        j->rc = cz_error(CZ_ENOMEM, "GPU prover: B_G2 gather");
        return NULL;
    }
    const int nt = j->nthreads > 0 ? j->nthreads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (size_t b = 0; b < nblk; b++) {
        size_t c = 0;
        for (size_t w = b * 64; w < nw && w < b * 64 + 64; w++) {
            uint64_t x = r->b_aux_density[w];
            if (w == nw - 1 && (pr->na & 63)) x &= ((uint64_t)1 << (pr->na & 63)) - 1;
            c += (size_t)__builtin_popcountll(x);
        }
        off[b] = c;
    }
    size_t acc = kb;
    for (size_t b = 0; b < nblk; b++) {
        size_t c = off[b];
        off[b] = acc;
        acc += c;
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (size_t b = 0; b < nblk; b++) {
        size_t o = off[b];
        for (size_t i = b * 4096; i < pr->na && i < b * 4096 + 4096; i++)
            if (cz_density_get(r->b_aux_density, i)) sb[o++] = j->aux[i];
    }
    kb = acc;
    free(off);
    j->rc = cz_gpu_g2_split_cpu(&j->r, pr->p->b_g2, sb, kb, j->nthreads, NULL);
    free(sb);
    j->ms = now_ms() - t0;
    return NULL;
}

int cz_gpu_prover_set_next(cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux) {
    int rc = cz_gpu_set_device(pr->device);
    if (!rc && !pr->d_w2) rc = dalloc(pr, (void **)&pr->d_w2, (pr->ni + pr->na) * sizeof(cz_fr), "prefetch buffer");
    if (!rc && !pr->ev_pre) rc = cz_gpu_event_create_(&pr->ev_pre);
    if (rc) return rc;
    pr->next_in = inputs, pr->next_aux = aux;
    return 0;
}

/* Issues the upload of the witness named by set_next into the spare buffer on the upload stream, so it
 * overlaps this partition's compute (asynchronous for page-locked memory). */
static int prefetch_next(cz_gpu_prover *pr) {
    if (!pr->next_in) return 0;
    int rc = cz_gpu_htod_async_(pr->d_w2, pr->next_in, pr->ni * sizeof(cz_fr), pr->st_up);
    if (!rc) rc = cz_gpu_htod_async_(pr->d_w2 + pr->ni, pr->next_aux, pr->na * sizeof(cz_fr), pr->st_up);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_pre, pr->st_up);
    pr->pre_in = rc ? NULL : pr->next_in, pr->pre_aux = rc ? NULL : pr->next_aux;
    pr->next_in = pr->next_aux = NULL;
    return rc;
}

static int upload_witness(cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux) {
    if (pr->pre_in && pr->pre_in == inputs && pr->pre_aux == aux) { /* already on its way: swap buffers */
        cz_fr *t = pr->d_w;
        pr->d_w = pr->d_w2, pr->d_w2 = t;
        pr->pre_in = pr->pre_aux = NULL;
        return cz_gpu_stream_wait_(pr->st, pr->ev_pre);
    }
    if (pr->pre_in) { /* a prefetch nobody asked for: let it land before the spare buffer is reused */
        int rc = cz_gpu_stream_sync_(pr->st_up);
        pr->pre_in = pr->pre_aux = NULL;
        if (rc) return rc;
    }
    const void *src[2] = {inputs, aux};
    const size_t bytes[2] = {pr->ni * sizeof(cz_fr), pr->na * sizeof(cz_fr)};
    int reg[2] = {0, 0}, rc = 0;
    for (int k = 0; k < 2 && !rc; k++)
        if (bytes[k] >= ((size_t)1 << 20) && !cz_gpu_host_is_pinned_(src[k]))
            rc = cz_gpu_host_register_((void *)src[k], bytes[k], &reg[k]);
    if (!rc) rc = cz_gpu_htod_async_(pr->d_w, inputs, bytes[0], pr->st_up);
    if (!rc) rc = cz_gpu_htod_async_(pr->d_w + pr->ni, aux, bytes[1], pr->st_up);
    if (!rc) rc = cz_gpu_event_record_(pr->ev_up, pr->st_up);
    if (!rc) rc = cz_gpu_stream_wait_(pr->st, pr->ev_up);
    int rc2 = cz_gpu_stream_sync_(pr->st_up); /* before unregistering */
    for (int k = 0; k < 2; k++)
        if (reg[k]) cz_gpu_host_unregister_((void *)src[k]);
    return rc ? rc : rc2;
}

/* One query: 0/1 batch addition + tail MSM, or one full MSM when the tail is more than half. */
static int run_query(cz_gpu_prover *pr, int q, cz_g1_jac *ans, cz_gpu_prove_stats *st) {
    const uint64_t len = pr->len[q], base = q == Q_L ? pr->ni : 0;
    const uint32_t *map = pr->d_map[q];
    cz_g1_jac_set_infinity(ans);
    if (!len) return 0;
    const size_t groups = 2 * ((len + 63) / 64);
    uint32_t *offs = pr->d_cnt + groups + 1, tail = 0;
    double t0 = now_ms();
    int rc = cz_gpu_split_classify_(pr->d_ones, pr->d_cnt, pr->d_w, map, base, len, pr->st);
    if (!rc) rc = cz_gpu_scan_u32_(offs, pr->d_cnt, groups + 1, &pr->scan_temp, &pr->scan_cap, pr->st);
    if (!rc) rc = cz_gpu_dtoh_async_(&tail, offs + groups, 4, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    if (rc) return rc;
    st->tail[q] = tail;
    st->dtoh_bytes += 4;
    if (2 * (uint64_t)tail <= len) {
        cz_g1_jac ba, tm;
        rc = cz_gpu_g1_batch_add(&ba, pr->d_q[q], (const uint64_t *)pr->d_ones, len, pr->st);
        double t1 = now_ms();
        st->batch_add_ms += t1 - t0;
        cz_fr *tsc = (cz_fr *)pr->d_tail;
        cz_g1_affine *tb = (cz_g1_affine *)(pr->d_tail + (((size_t)tail * 32 + 255) & ~(size_t)255));
        if (!rc) rc = cz_gpu_split_scatter_(tsc, tb, pr->d_w, map, base, len, pr->d_q[q], offs, pr->st);
        if (!rc) rc = cz_gpu_g1_msm(&tm, tb, tsc, tail, pr->st);
        if (rc) return rc;
        cz_g1_jac_add(ans, &ba, &tm);
        st->tail_msm_ms += now_ms() - t1;
        st->dtoh_bytes += 192 + 32 * 192;
    } else {
        const cz_fr *sc = pr->d_w + pr->ni;
        if (map) {
            rc = cz_gpu_gather_scalars_((cz_fr *)pr->d_tail, pr->d_w, map, base, len, pr->st);
            sc = (const cz_fr *)pr->d_tail;
        }
        double t1 = now_ms();
        st->batch_add_ms += t1 - t0;
        if (!rc) rc = cz_gpu_g1_msm(ans, pr->d_q[q], sc, len, pr->st);
        st->tail_msm_ms += now_ms() - t1;
        st->full_msm[q] = 1;
        st->dtoh_bytes += 32 * 192;
    }
    return rc;
}

static int run_device(cz_gpu_prover *pr, cz_groth16_pending *out, const cz_fr *inputs, const cz_fr *aux,
                      cz_gpu_prove_stats *st) {
    double t0 = now_ms(), t;
    int rc = cz_gpu_set_device(pr->device);
    if (!rc) rc = upload_witness(pr, inputs, aux);
    st->htod_bytes += (pr->ni + pr->na) * sizeof(cz_fr);
    t = now_ms(), st->upload_ms = t - t0;
    cz_fr *a = pr->d_abc, *b = a + pr->n, *c = b + pr->n;
    cz_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3 && !rc; k++) rc = cz_gpu_csr_mul_vec(v[k], pr->n, pr->m[k], pr->d_w, pr->st);
    if (!rc) rc = prefetch_next(pr); /* after the SpMV launches: a pageable copy then blocks during them */
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->spmv_ms = now_ms() - t, t = now_ms();
    if (!rc) rc = cz_gpu_groth16_h(pr->plan, pr->log_n, a, b, c, pr->st);
    if (!rc) rc = cz_gpu_stream_sync_(pr->st);
    st->ntt_ms = now_ms() - t, t = now_ms();
    if (!rc) rc = cz_gpu_g1_msm(&out->h_msm, pr->d_h, a, pr->n - 1, pr->st);
    st->h_msm_ms = now_ms() - t;
    st->dtoh_bytes += 32 * 192;
    if (!rc) rc = run_query(pr, Q_L, &out->l_msm, st);
    if (!rc) rc = run_query(pr, Q_A, &out->a_ans, st);
    if (!rc) rc = run_query(pr, Q_B, &out->b1_ans, st);
#ifdef CZ_GPU_HAVE_G2_MSM
    /* B_G2 over the same B scalars. One full MSM for now; the 0/1 split as for G1 (d_ones still holds
     * B's bitmap here; the tail needs 192-byte bases gathered) is the next step. */
    if (pr->p) {
        double tg = now_ms();
        if (!rc) rc = cz_gpu_gather_scalars_((cz_fr *)pr->d_tail, pr->d_w, pr->d_map[Q_B], 0, pr->len[Q_B], pr->st);
        if (!rc) rc = cz_gpu_g2_msm(&out->b2_ans, pr->d_b2, (const cz_fr *)pr->d_tail, pr->len[Q_B], pr->st);
        st->b_g2_cpu_ms = now_ms() - tg; /* on the device in this build */
    }
#endif
    st->gpu_total_ms = now_ms() - t0;
    return rc;
}

int cz_gpu_prover_start(cz_groth16_pending *out, cz_gpu_prover *pr, const cz_fr *inputs, const cz_fr *aux,
                        int nthreads, cz_gpu_prove_stats *stats) {
    cz_gpu_prove_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    if (pr->ni == 0 || !cz_fr_equal(&inputs[0], &CZ_FR_ONE_V))
        return cz_error(CZ_EINVAL, "prove: the first input must be ONE");
    g2_job job;
    memset(&job, 0, sizeof job);
    job.pr = pr, job.inputs = inputs, job.aux = aux, job.nthreads = nthreads;
    cz_g2_jac_set_infinity(&job.r);
    pthread_t th;
    int have_thread = 0;
#ifndef CZ_GPU_HAVE_G2_MSM
    if (pr->p) have_thread = pthread_create(&th, NULL, g2_thread, &job) == 0;
#endif
    cz_gpu_lock(pr->device);
    int rc = run_device(pr, out, inputs, aux, stats);
    cz_gpu_unlock(pr->device);
#ifndef CZ_GPU_HAVE_G2_MSM
    if (pr->p && !have_thread) g2_thread(&job); /* no thread available: run it here */
#endif
    if (have_thread) pthread_join(th, NULL);
    if (!rc) rc = job.rc;
#ifndef CZ_GPU_HAVE_G2_MSM
    out->b2_ans = job.r;
    stats->b_g2_cpu_ms = job.ms;
#else
    if (!pr->p) out->b2_ans = job.r; /* synthetic: infinity */
#endif
    return rc;
}
