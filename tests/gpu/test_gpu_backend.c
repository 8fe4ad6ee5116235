/* The engine's GPU backend (backend_gpu.c): several circuits resident per device, on fresh random circuits.
 *  - two circuits of different shapes proved in turn (A B A B) keep both provers resident: two created,
 *    none dropped, every proof verifies (and not with a wrong public input);
 *  - at most one resident (cz_backend_gpu_set_max_resident(1)): A B A builds three provers, drops two;
 *  - four threads proving A and B at once with one resident: every proof verifies (a switch waits for the
 *    other circuit's provers to go idle);
 *  - the engine's staging buffers (cz_backend.host_alloc) are page-locked, and a proof from a witness
 *    copied into one verifies;
 *  - cz_backend.host_bytes: 0 with resident provers; with the matrices in host memory
 *    (CZ_GPU_PROVER_STREAM=1 and _HOSTMAT=1) the sum of what each prover holds (as a prover made alone for the
 *    same circuit says, and > 0), 0 again once they are released;
 *  - params rebuilt in place (same addresses, new setup): the stale prover is dropped, the new proof verifies
 *    against the new key (reused device bases would fail it);
 *  - device memory short (a ballast leaves room for one of A and a bigger C but not both): C evicts the idle
 *    A instead of failing with CZ_ENOMEM, then A proves again (beside C or evicting it) (not under
 *    CZ_TEST_GPU_MAX_N < 2^16: memcheck); A beside a resident C whose scratch has grown stays resident with
 *    room for A and the part of C's reserve not grown (C's whole reserve counted again dropped C); with room
 *    for less than C's bases beside A, A is dropped before any creation of C is tried (no failed create);
 *  - a PreloadSRS's build (cz_backend.prepare without a witness) evicts no resident prover: with room for one of A
 *    and C (and with one resident allowed, for B), it answers CZ_ENOROOM and A stays; a job's C then evicts A.
 * Exits 77 (skipped) without a GPU. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"
#include "gpu/prover_internal.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "gpu_circuit.h"
#include "gpu_keyed.h"
#include "testutil.h"

static cz_rng rng;
static cz_backend be;

static int make(keyed *k, size_t pub, size_t nfree, size_t nc) { return keyed_make(&rng, k, pub, nfree, nc); }
static void unmake(keyed *k) { keyed_free(k); }
static int prove(keyed *k) { return keyed_prove(&be, k); }

static void expect(const char *what, int resident, uint64_t created, uint64_t evicted) {
    int r;
    uint64_t c, e;
    cz_backend_gpu_residency(0, &r, &c, &e);
    CHECK_MSG(r == resident && c == created && e == evicted, "%s: resident %d created %llu dropped %llu (want %d %llu %llu)",
              what, r, (unsigned long long)c, (unsigned long long)e, resident, (unsigned long long)created,
              (unsigned long long)evicted);
}

/* The device bytes k's resident creation counts (no margin): the free memory less the largest margin it still
 * succeeds with (to 1 MiB). Resident only: in AUTO mode a short device would give a streamed prover. */
static size_t create_need(keyed *k) {
    size_t fr, tot;
    CHECK(cz_gpu_mem_info(&fr, &tot) == 0);
    size_t lo = 0, hi = fr; /* create succeeds with margin lo, fails with hi */
    while (hi - lo > ((size_t)1 << 20)) {
        const size_t mid = lo + (hi - lo) / 2;
        cz_gpu_prover *pr = NULL;
        if (cz_gpu_prover_create_mode(&pr, 0, &k->p, &k->c.r, mid, CZ_GPU_PROVER_RESIDENT) == 0) lo = mid;
        else hi = mid;
        cz_gpu_prover_destroy(pr);
    }
    CHECK(cz_gpu_mem_info(&fr, &tot) == 0);
    return fr - lo;
}

typedef struct {
    keyed *k;
    int fails;
} job;

static void *worker(void *arg) {
    job *j = arg;
    for (int i = 0; i < 3; i++) j->fails += prove(j->k) != 0;
    return NULL;
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    cz_backend_gpu_init(&be, 0);
    keyed a, b;
    CHECK(make(&a, 3, 2000, 1 << 14) == 0);
    CHECK(make(&b, 5, 900, 5000) == 0);

    const char *order = "ABAB";
    for (const char *o = order; *o; o++) CHECK_MSG(prove(*o == 'A' ? &a : &b) == 0, "ABAB %c: %s", *o, cz_error_message());
    expect("A B A B, room for both", 2, 2, 0);
    printf("two resident: ok\n");

    /* cz_backend.trim (the engine's retry after a start() ran out of device memory): the device's G1 and G2 MSM /
     * batch-add scratch freed, the provers kept; the next proofs grow it again and verify */
    {
        CHECK(be.trim != NULL);
        cz_gpu_lock(0);
        const size_t held0 = cz_gpu_g1_scratch_held() + cz_gpu_g2_scratch_held();
        cz_gpu_unlock(0);
        size_t f0 = 0, f1 = 0, tot = 0;
        CHECK(cz_gpu_mem_info(&f0, &tot) == 0);
        cz_gpu_lock(0);
        if (be.trim) be.trim(&be, 0);
        const size_t held1 = cz_gpu_g1_scratch_held() + cz_gpu_g2_scratch_held();
        cz_gpu_unlock(0);
        CHECK(cz_gpu_mem_info(&f1, &tot) == 0);
        CHECK_MSG(held0 > 0 && held1 == 0 && f1 >= f0 + held0 / 2, "trim: scratch %zu -> %zu bytes, free %zu -> %zu",
                  held0, held1, f0, f1);
        uint64_t g0 = 0, g1 = 0;
        double ms = 0;
        cz_gpu_scratch_growth_(0, &g0, &ms);
        for (const char *o = "BA"; *o; o++)
            CHECK_MSG(prove(*o == 'A' ? &a : &b) == 0, "after trim %c: %s", *o, cz_error_message());
        cz_gpu_scratch_growth_(0, &g1, &ms);
        cz_gpu_lock(0);
        const size_t held2 = cz_gpu_g1_scratch_held() + cz_gpu_g2_scratch_held();
        cz_gpu_unlock(0);
        CHECK_MSG(g1 > g0 && held2 > 0, "after trim: %llu scratch growths, %zu bytes held", (unsigned long long)(g1 - g0),
                  held2);
        expect("A B after a trim: both still resident", 2, 2, 0);
        printf("trim: ok (%.1f MiB of scratch freed, %llu buffers grown again)\n", held0 / 1048576.0,
               (unsigned long long)(g1 - g0));
    }

    /* the provers' own host memory, which the engine counts in its budget */
    {
        CHECK(be.host_bytes && be.host_bytes(&be) == 0);
        cz_backend_gpu_release();
        setenv("CZ_GPU_PROVER_STREAM", "1", 1); /* the host layout is a streamed one */
        setenv("CZ_GPU_PROVER_HOSTMAT", "1", 1);
        uint64_t alone = 0;
        for (int i = 0; i < 2; i++) {
            keyed *k = i ? &b : &a;
            cz_gpu_prover *pr = NULL;
            CHECK_MSG(cz_gpu_prover_create(&pr, 0, &k->p, &k->c.r, 0) == 0 && cz_gpu_prover_host_matrices(pr),
                      "host matrices %c: %s", "AB"[i], cz_error_message());
            const uint64_t hb = pr ? cz_gpu_prover_host_bytes(pr) : 0;
            CHECK_MSG(hb > 0, "host matrices %c: no host bytes", "AB"[i]);
            alone += hb;
            cz_gpu_prover_destroy(pr);
        }
        for (const char *o = "AB"; *o; o++)
            CHECK_MSG(prove(*o == 'A' ? &a : &b) == 0, "host %c: %s", *o, cz_error_message());
        unsetenv("CZ_GPU_PROVER_HOSTMAT");
        unsetenv("CZ_GPU_PROVER_STREAM");
        const uint64_t got = be.host_bytes ? be.host_bytes(&be) : 0;
        CHECK_MSG(got == alone, "backend host bytes %llu, the provers' %llu", (unsigned long long)got,
                  (unsigned long long)alone);
        cz_backend_gpu_release();
        CHECK(be.host_bytes && be.host_bytes(&be) == 0);
        printf("host bytes: ok (%llu with the matrices in host memory)\n", (unsigned long long)got);
    }

    /* the engine's staging buffers (cz_backend.host_alloc): page-locked; a proof from a witness copied into
     * one verifies (start() finds it locked: with an aux of 1 MiB or more it would lock a pageable one) */
    {
        void *buf = NULL;
        CHECK(be.host_alloc && be.host_free);
        CHECK(be.host_alloc && be.host_alloc(&be, be.ndevices, &buf, 4096) != 0 && !buf); /* no such device */
        keyed d, *k = &a;
        const int big_aux = cz_test_gpu_max_n(SIZE_MAX) >= ((size_t)1 << 15); /* not under the sanitizer's cap */
        if (big_aux) {
            CHECK(make(&d, 3, 2000, 1 << 15) == 0);
            k = &d;
            CHECK(d.c.na * sizeof(cz_fr) >= ((size_t)1 << 20));
        }
        const size_t aux_bytes = k->c.na * sizeof(cz_fr);
        if (be.host_alloc && be.host_alloc(&be, 0, &buf, aux_bytes) == 0 && buf) {
            CHECK(cz_gpu_host_is_pinned_(buf));
            cz_fr *own = k->c.aux;
            memcpy(buf, own, aux_bytes);
            k->c.aux = (cz_fr *)buf;
            CHECK_MSG(prove(k) == 0, "a start() on a staged witness: %s", cz_error_message());
            k->c.aux = own;
            CHECK(cz_gpu_host_is_pinned_(buf));
            be.host_free(&be, buf);
        } else {
            CHECK_MSG(0, "host_alloc: %s", cz_error_message());
        }
        if (big_aux) {
            CHECK_MSG(prove(&d) == 0, "the same witness pageable: %s", cz_error_message());
            cz_backend_gpu_release(); /* its prover goes before its params */
            unmake(&d);
        }
        printf("staging buffers: ok\n");
    }

    /* cz_gpu_host_alloc's two ways (cudaMallocHost below 8 MiB; mapped, huge pages asked for, faulted in by 1 or
     * 8 threads, then registered, from 8 MiB): every buffer page-locked, its bytes through the device and back
     * intact, freed in another order than made */
    {
        const size_t sizes[4] = {(size_t)1 << 20, ((size_t)8 << 20) + 4096, ((size_t)300 << 20) + 12345, 4096 * 3};
        void *bufs[4] = {NULL, NULL, NULL, NULL}, *dv = NULL;
        uint8_t *back = malloc(sizes[2]);
        CHECK(back && cz_gpu_malloc(&dv, sizes[2]) == 0);
        for (int i = 0; i < 4; i++) {
            CHECK_MSG(cz_gpu_host_alloc(&bufs[i], sizes[i]) == 0 && bufs[i], "host_alloc %zu: %s", sizes[i],
                      cz_error_message());
            if (!bufs[i] || !back || !dv) continue;
            CHECK_MSG(cz_gpu_host_is_pinned_(bufs[i]) && cz_gpu_host_is_pinned_((uint8_t *)bufs[i] + sizes[i] - 1),
                      "host_alloc %zu: not page-locked", sizes[i]);
            for (size_t k = 0; k < sizes[i]; k++) ((uint8_t *)bufs[i])[k] = (uint8_t)(k * 131 + i + (k >> 12));
            CHECK(cz_gpu_memcpy_htod(dv, bufs[i], sizes[i]) == 0);
            memset(back, 0, sizes[i]);
            CHECK(cz_gpu_memcpy_dtoh(back, dv, sizes[i]) == 0);
            CHECK_MSG(memcmp(back, bufs[i], sizes[i]) == 0, "host_alloc %zu: the bytes came back changed", sizes[i]);
        }
        static const int order[4] = {2, 0, 3, 1};
        for (int i = 0; i < 4; i++) cz_gpu_host_free(bufs[order[i]]);
        cz_gpu_host_free(NULL);
        void *again = NULL; /* the freed mappings are really gone: the same size again */
        CHECK(cz_gpu_host_alloc(&again, sizes[2]) == 0 && again && cz_gpu_host_is_pinned_(again));
        cz_gpu_host_free(again);
        cz_gpu_free(dv);
        free(back);
        printf("page-locked host buffers: ok\n");
    }

    cz_backend_gpu_release();
    cz_backend_gpu_set_max_resident(1);
    for (const char *o = "ABA"; *o; o++) CHECK_MSG(prove(*o == 'A' ? &a : &b) == 0, "ABA %c: %s", *o, cz_error_message());
    expect("A B A, one resident", 1, 3, 2);
    /* a PreloadSRS's build (no witness) evicts no resident prover: CZ_ENOROOM, A kept */
    const int pre_b = be.prepare(&be, 0, &b.p, &b.c.r, NULL, NULL, UINT64_MAX);
    CHECK_MSG(pre_b == CZ_ENOROOM, "B's preload build with A resident and one allowed: %d (%s), not CZ_ENOROOM",
              pre_b, pre_b ? cz_error_message() : "built");
    expect("B's preload build beside A, one resident", 1, 3, 2);
    printf("one resident: ok\n");

    pthread_t th[4];
    job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){i % 2 ? &b : &a, 0};
        CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
    }
    int fails = 0;
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL), fails += jobs[i].fails;
    CHECK_MSG(fails == 0, "%d of 12 concurrent proofs failed", fails);
    printf("four threads, one resident: ok\n");

    /* params rebuilt in place: same struct addresses, another setup */
    cz_backend_gpu_release();
    cz_backend_gpu_set_max_resident(8);
    CHECK(prove(&a) == 0);
    cz_groth16_pvk_free(&a.pvk);
    cz_groth16_params_free(&a.p);
    cz_groth16_toxic tox;
    cz_groth16_toxic_from_seed(&tox, cz_rng_next(&rng));
    CHECK(cz_groth16_setup(&a.p, &a.c.r, &tox, 0) == 0);
    CHECK(cz_groth16_pvk_init(&a.pvk, &a.p.vk) == 0);
    CHECK_MSG(prove(&a) == 0, "rebuilt params: %s", cz_error_message());
    expect("params rebuilt in place", 1, 2, 1);
    printf("stale prover dropped: ok\n");

    /* memory short: a ballast leaves room for C or A, not both (skipped under the sanitizer's size cap) */
    if (cz_test_gpu_max_n(SIZE_MAX) < ((size_t)1 << 16)) {
        cz_backend_gpu_release();
        unmake(&a);
        unmake(&b);
        return cz_test_finish();
    }
    keyed c;
    CHECK(make(&c, 4, 20000, 1 << 16) == 0);
    cz_backend_gpu_release();
    size_t fr0, fr1, tot;
    const size_t need_c = create_need(&c); /* device bytes C's creation counts (no margin) */
    CHECK(cz_gpu_mem_info(&fr0, &tot) == 0);
    CHECK(prove(&a) == 0); /* A resident, the scratch grown */
    CHECK(cz_gpu_mem_info(&fr1, &tot) == 0);
    const size_t gap = fr0 > fr1 ? fr0 - fr1 : 0, margin = cz_gpu_prover_default_margin(tot);
    CHECK_MSG(gap >= ((size_t)8 << 20), "A holds only %zu bytes of the device", gap);
    /* C alone needs need_c + margin free; leave that minus half of A's footprint: C fits once A is gone, not
     * beside it (where A's scratch reserve is added to the margin) */
    void *ballast = NULL;
    const size_t want = need_c + margin - gap / 2;
    if (fr1 > want) CHECK(cz_gpu_malloc(&ballast, fr1 - want) == 0);
    const int pre_c = be.prepare(&be, 0, &c.p, &c.c.r, NULL, NULL, UINT64_MAX); /* a PreloadSRS's: evicts nothing */
    CHECK_MSG(pre_c == CZ_ENOROOM, "C's preload build with A resident and memory short: %d (%s), not CZ_ENOROOM",
              pre_c, pre_c ? cz_error_message() : "built");
    expect("C's preload build, memory short", 1, 1, 0);
    CHECK_MSG(prove(&c) == 0, "C with A resident and memory short: %s", cz_error_message());
    expect("C evicts A", 1, 2, 1);
    CHECK_MSG(prove(&a) == 0, "A again: %s", cz_error_message());
    { /* A is the smaller: it may fit beside C (what C's estimate reserved but did not allocate) or evict it */
        int r;
        uint64_t cr, ev;
        cz_backend_gpu_residency(0, &r, &cr, &ev);
        CHECK_MSG(cr == 3 && ((r == 1 && ev == 2) || (r == 2 && ev == 1)), "A again: resident %d created %llu dropped %llu",
                  r, (unsigned long long)cr, (unsigned long long)ev);
    }
    printf("memory short, LRU eviction: ok\n");
    cz_gpu_free(ballast);
    ballast = NULL;

    /* A beside a resident C whose scratch is grown: the free memory already counts that scratch, so room for
     * A's own needs and the margin (plus what C's reserve has not grown yet) keeps both resident; counting
     * C's reserve again dropped C */
    /* A's creation needs (as C's above) and C's reserve, from a clean device (a destroy releases the shared
     * scratch, so both are measured before C is resident) */
    cz_backend_gpu_release();
    const size_t need_a = create_need(&a);
    size_t res_c = 0;
    {
        cz_gpu_prover *pc = NULL;
        if (cz_gpu_prover_create_mode(&pc, 0, &c.p, &c.c.r, 0, CZ_GPU_PROVER_RESIDENT) == 0)
            res_c = cz_gpu_prover_work_reserve(pc);
        cz_gpu_prover_destroy(pc);
    }
    CHECK(prove(&c) == 0); /* C resident, its scratch grown */
    CHECK(cz_gpu_mem_info(&fr0, &tot) == 0);
    cz_gpu_lock(0);
    const size_t held = cz_gpu_g1_scratch_held() + cz_gpu_g2_scratch_held();
    cz_gpu_unlock(0);
    CHECK_MSG(held > ((size_t)32 << 20) && res_c > 0, "C's scratch %zu bytes, reserve %zu", held, res_c);
    const size_t want2 = need_a + margin + (res_c > held ? res_c - held : 0) + ((size_t)16 << 20);
    CHECK_MSG(fr0 > want2, "free %zu, A beside C needs %zu", fr0, want2);
    if (fr0 > want2) CHECK(cz_gpu_malloc(&ballast, fr0 - want2) == 0);
    CHECK_MSG(prove(&a) == 0, "A beside C with room for A: %s", cz_error_message());
    expect("A beside C's grown scratch", 2, 2, 0);
    cz_gpu_free(ballast);
    ballast = NULL;
    printf("grown scratch counted once: ok (A needs %.1f MiB, C's scratch %.1f MiB of a %.1f MiB reserve)\n",
           need_a / 1048576.0, held / 1048576.0, res_c / 1048576.0);

    /* C's bases alone do not fit beside A: A goes before any creation of C is tried (a resident create would
     * code C's matrices only to fail for memory) */
    cz_backend_gpu_release();
    CHECK(prove(&a) == 0);
    CHECK(cz_gpu_mem_info(&fr1, &tot) == 0);
    const size_t want3 = cz_gpu_prover_floor_bytes(&c.p) + margin - ((size_t)1 << 20);
    if (fr1 > want3) CHECK(cz_gpu_malloc(&ballast, fr1 - want3) == 0);
    { /* alone, C may still fit streamed in what A left; either way A went and no create beside it failed */
        const int rc3 = prove(&c);
        int r3;
        uint64_t c3, d3;
        cz_backend_gpu_residency(0, &r3, &c3, &d3);
        CHECK_MSG(d3 == 1 && c3 == (rc3 ? 1u : 2u) && r3 == (rc3 ? 0 : 1),
                  "C's bases do not fit beside A: C %s, resident %d created %llu dropped %llu", rc3 ? "failed" : "proved",
                  r3, (unsigned long long)c3, (unsigned long long)d3);
    }
    CHECK_MSG(cz_backend_gpu_failed_creates(0) == 0, "a create of C beside A failed for memory (%llu): A was not "
              "dropped first", (unsigned long long)cz_backend_gpu_failed_creates(0));
    cz_gpu_free(ballast);
    CHECK_MSG(prove(&c) == 0, "C with the ballast gone: %s", cz_error_message());
    printf("bases short, A dropped first: ok\n");

    cz_backend_gpu_release();
    cz_gpu_g1_release_scratch();
    unmake(&a);
    unmake(&b);
    unmake(&c);
    return cz_test_finish();
}
