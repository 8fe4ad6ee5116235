/* A long prover build beside another circuit's partitions (backend_gpu.c acquire, cz_backend.prepare, the device
 * lock's yields in the Lagrange build), on fresh random circuits:
 *  - W (small) is resident; L's prover is built by another thread through be.prepare with the H query in Lagrange
 *    form and no cache file (CZ_GPU_PROVER_LAGRANGE=1: bases built on the device, checked, C folded into L), the
 *    8.3-minute build of a 32 GiB PoRep here at 2^18;
 *  - while it runs, prepare for L answers CZ_EBUILDING at once, and W's proofs go on: at least two of them complete
 *    and verify while the build still runs (before: the build held the device's mutex and its lock throughout, and
 *    W's start() waited for all of it);
 *  - S, a small circuit with no prover yet (a first Winning PoSt's during a PoRep's build), gets its prover built
 *    beside L's build (prepare answers 0, not CZ_EBUILDING, while L's still runs; CZ_GPU_SMALL_BUILD_KB makes S
 *    small and L big at these sizes) and its proof verifies; S's prepare passes no witness (a PreloadSRS's build,
 *    engine.c warm_main: no density hint either);
 *  - the build ends with a prover that proves L (the proof verifies, a changed input does not), found resident
 *    afterwards (one created for each circuit, none dropped);
 *  - before that, the same build aborted (cz_backend.abort_builds, a daemon's shutdown) while under way: it fails
 *    with CZ_ECANCELED in less than half the time the whole build takes, the device's free memory is back where
 *    it was, no build begins while builds stay aborted (prepare answers CZ_ECANCELED) and W proves meanwhile;
 *  - F, a big circuit (2^21 constraints) with the H query in its usual form (a PoRep's prover without
 *    gpus.h_lagrange), built by another thread: W proves at least 3 times while it runs (the build lets the device
 *    lock go for its host coding and its copies; with CZ_GPU_BUILD_LOCKED=1 it keeps it throughout, as before, W
 *    proves at most once and the check fails), and F's proof verifies.
 * CZ_TEST_GPU_MAX_N caps L's and F's constraints (compute-sanitizer runs). Exits 77 (skipped) without a GPU. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cz_error.h"
#include "engine/backend.h"
#include "gpu/gpu.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_prover.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "gpu_circuit.h"
#include "gpu_keyed.h"
#include "testutil.h"

static cz_rng rng;
static cz_backend be;

static int make(keyed *k, size_t pub, size_t nfree, size_t nc) { return keyed_make(&rng, k, pub, nfree, nc); }
static int prove(keyed *k) { return keyed_prove(&be, k); }

typedef struct {
    keyed *k;
    int rc;
    double ms;
    int done;
    char msg[512];
} build_job;

static void *builder(void *arg) {
    build_job *j = arg;
    const double t0 = cz_gpu_now_ms_();
    j->rc = be.prepare(&be, 0, &j->k->p, &j->k->c.r, j->k->c.aux, NULL, UINT64_MAX);
    j->ms = cz_gpu_now_ms_() - t0;
    snprintf(j->msg, sizeof j->msg, "%s", j->rc ? cz_error_message() : "");
    __atomic_store_n(&j->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* j's build on a new thread; whether it was seen under way on the device (up to ~10 s: else it already ended) */
static int start_build(build_job *j, pthread_t *th) {
    CHECK(pthread_create(th, NULL, builder, j) == 0);
    int seen = 0;
    for (int t = 0; t < 100000 && !seen && !__atomic_load_n(&j->done, __ATOMIC_SEQ_CST); t++)
        if (!(seen = cz_backend_gpu_building(0))) usleep(100);
    return seen;
}

int main(void) {
    if (cz_gpu_device_count() <= 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cz_test_rng(&rng);
    setenv("CZ_GPU_SMALL_BUILD_KB", "8192", 1); /* S (~1 MB of bases) small, L (~50 MB) not; read at first use */
    cz_backend_gpu_init(&be, 0);
    CHECK(be.prepare != NULL);
    size_t nc = ((size_t)1 << 18) - 64;
    const char *cap = getenv("CZ_TEST_GPU_MAX_N");
    if (cap && atol(cap) > 1024 && (size_t)atol(cap) < nc) nc = (size_t)atol(cap) - 64;
    keyed w, l, sm, f;
    CHECK(make(&w, 3, 600, 2000) == 0);
    CHECK(make(&sm, 2, 300, 1500) == 0);
    CHECK(make(&l, 2, nc / 2, nc) == 0);
    size_t nf = ((size_t)1 << 21) - 64;
    if (cap && atol(cap) > 1024 && (size_t)atol(cap) < nf) nf = (size_t)atol(cap) - 64;
    CHECK(make(&f, 2, nf / 2, nf) == 0);
    CHECK_MSG(prove(&w) == 0, "W alone: %s", cz_error_message()); /* W resident, its scratch grown */

    setenv("CZ_GPU_PROVER_LAGRANGE", "1", 1);
    unsetenv("CZ_GPU_PROVER_LAGRANGE_CACHE");
    pthread_t th;

    /* the build aborted while under way */
    CHECK(be.abort_builds != NULL);
    size_t free0 = 0, free1 = 0, tot = 0;
    CHECK(cz_gpu_set_device(0) == 0 && cz_gpu_mem_info(&free0, &tot) == 0);
    build_job ab = {&l, -1, 0, 0, ""};
    const int seen = start_build(&ab, &th);
    usleep(150 * 1000); /* into the build (at 2^18 it takes ~1 s on an H100) */
    const int ended_first = __atomic_load_n(&ab.done, __ATOMIC_SEQ_CST);
    const double t_abort = cz_gpu_now_ms_();
    be.abort_builds(&be);
    pthread_join(th, NULL);
    const double abort_ms = cz_gpu_now_ms_() - t_abort;
    CHECK_MSG(seen && !ended_first, "the build to abort was %s", seen ? "over before the abort" : "never seen");
    CHECK_MSG(ab.rc == CZ_ECANCELED, "the aborted build: %d (%s), not CZ_ECANCELED", ab.rc, ab.msg);
    CHECK(!cz_backend_gpu_building(0));
    CHECK(cz_gpu_mem_info(&free1, &tot) == 0);
    const double leak_mib = ((double)free0 - (double)free1) / 1048576.0;
    CHECK_MSG(leak_mib < 16, "%.1f MiB less free after the aborted build", leak_mib);
    const double t_refused = cz_gpu_now_ms_();
    const int refused = be.prepare(&be, 0, &l.p, &l.c.r, l.c.aux, NULL, UINT64_MAX);
    CHECK_MSG(refused == CZ_ECANCELED && cz_gpu_now_ms_() - t_refused < 50 && !cz_backend_gpu_building(0),
              "prepare while builds are aborted: %d (%s) after %.0f ms", refused, cz_error_message(),
              cz_gpu_now_ms_() - t_refused);
    CHECK_MSG(prove(&w) == 0, "W while builds are aborted: %s", cz_error_message());
    cz_gpu_prover_abort_builds(false);

    build_job bj = {&l, -1, 0, 0, ""};
    /* the build under way (or it already ended: then nothing to measure); prepare for L answers CZ_EBUILDING */
    int busy = start_build(&bj, &th);
    CHECK_MSG(busy, "no build seen on the device");
    const int again = be.prepare(&be, 0, &l.p, &l.c.r, l.c.aux, NULL, UINT64_MAX);
    CHECK_MSG(!busy || again == CZ_EBUILDING || !cz_backend_gpu_building(0),
              "prepare for L during its build: %d (%s), not CZ_EBUILDING", again, cz_error_message());
    /* S's prover built beside L's build */
    const double t_s = cz_gpu_now_ms_();
    const int s_rc = busy ? be.prepare(&be, 0, &sm.p, &sm.c.r, NULL, NULL, UINT64_MAX) : -1;
    const double s_ms = cz_gpu_now_ms_() - t_s;
    const int l_still = cz_backend_gpu_building(0);
    CHECK_MSG(s_rc == 0, "S's prepare during L's build: %d (%s), not built beside it", s_rc, cz_error_message());
    CHECK_MSG(prove(&sm) == 0, "S during L's build: %s", cz_error_message());
    const int s_during = l_still && cz_backend_gpu_building(0);
    CHECK_MSG(l_still, "L's build ended before S's was done (%.0f ms): nothing shown", s_ms);
    int during = 0, bad = 0, total = 0;
    double worst = 0;
    while (busy && total < 100000) {
        const double t0 = cz_gpu_now_ms_();
        const int rc = prove(&w);
        const double ms = cz_gpu_now_ms_() - t0;
        total++;
        if (rc) {
            bad++;
            CHECK_MSG(rc == 0, "W during L's build: %s", cz_error_message());
            break;
        }
        busy = cz_backend_gpu_building(0);
        if (busy) during++, worst = ms > worst ? ms : worst;
    }
    pthread_join(th, NULL);
    unsetenv("CZ_GPU_PROVER_LAGRANGE");
    CHECK_MSG(bj.rc == 0, "L's build: %s", bj.msg);
    CHECK_MSG(during >= 2 && bad == 0, "%d of W's proofs completed during L's %.0f ms build (%d failed)", during,
              bj.ms, bad);
    printf("L (2^%d constraints at most, Lagrange-form H built on the device) built in %.0f ms by another thread; "
           "W proved %d times meanwhile (slowest %.1f ms)\n", 64 - __builtin_clzll((unsigned long long)nc), bj.ms,
           during, worst);
    printf("S (small) built beside L's build in %.0f ms and proved%s\n", s_ms,
           s_during ? ", L's build still under way" : "");
    CHECK_MSG(abort_ms < bj.ms / 2, "the abort took %.0f ms, the whole build %.0f ms", abort_ms, bj.ms);
    printf("L's build aborted %.0f ms after the abort (the whole build %.0f ms); %.1f MiB less free after it\n",
           abort_ms, bj.ms, leak_mib);
    CHECK_MSG(prove(&l) == 0, "L after its build: %s", cz_error_message());
    CHECK_MSG(prove(&w) == 0, "W after L's build: %s", cz_error_message());
    CHECK_MSG(prove(&sm) == 0, "S after L's build: %s", cz_error_message());

    /* F's build in the H form (CZ_GPU_PROVER_LAGRANGE unset above) */
    build_job fj = {&f, -1, 0, 0, ""};
    busy = start_build(&fj, &th);
    CHECK_MSG(busy, "F's build never seen on the device");
    int f_during = 0;
    double f_worst = 0;
    for (int i = 0; busy && i < 100000; i++) {
        const double t0 = cz_gpu_now_ms_();
        const int rc = prove(&w);
        const double ms = cz_gpu_now_ms_() - t0;
        CHECK_MSG(rc == 0, "W during F's build: %s", cz_error_message());
        if (rc) break;
        busy = cz_backend_gpu_building(0);
        if (busy) f_during++, f_worst = ms > f_worst ? ms : f_worst;
    }
    pthread_join(th, NULL);
    CHECK_MSG(fj.rc == 0, "F's build: %s", fj.msg);
    const char *locked = getenv("CZ_GPU_BUILD_LOCKED");
    CHECK_MSG(f_during >= 3, "%d of W's proofs completed during F's %.0f ms build in the H form%s", f_during, fj.ms,
              locked ? " (CZ_GPU_BUILD_LOCKED set)" : "");
    printf("F (2^%d constraints at most, H form) built in %.0f ms by another thread; W proved %d times meanwhile "
           "(slowest %.1f ms)%s\n", 64 - __builtin_clzll((unsigned long long)nf), fj.ms, f_during, f_worst,
           locked ? " (CZ_GPU_BUILD_LOCKED set)" : "");
    CHECK_MSG(prove(&f) == 0, "F after its build: %s", cz_error_message());

    int res;
    uint64_t created, evicted;
    cz_backend_gpu_residency(0, &res, &created, &evicted);
    CHECK_MSG(res == 4 && created == 4 && evicted == 0, "resident %d, created %llu, dropped %llu (want 4 4 0)", res,
              (unsigned long long)created, (unsigned long long)evicted);
    cz_backend_gpu_release();
    keyed_free(&w);
    keyed_free(&l);
    keyed_free(&sm);
    keyed_free(&f);
    return cz_test_finish();
}
