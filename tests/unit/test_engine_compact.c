/* The engine's compact-witness path (src/engine/witness.c, the circuits' synthesize_compact, the backends'
 * start_compact, engine.c's budget refund):
 * - the real 2 KiB PoRep hooks (a C1 sealed here from a fresh seed, and the gpuproxy 2KiB.json fixture
 *   when present): the compact witness of a random partition has the dense hook's inputs, and expands to
 *   exactly its aux; n_dense is the count of values outside {0, 1} counted here on the dense aux; its
 *   size is the formula's; the expanded witness satisfies the recorded R1CS (a, b, c: A.w * B.w == C.w on
 *   every row) and one changed value does not;
 * - the hand-off (cz_backend_start_witness) to a recording backend: start_compact receives the
 *   synthesized compact vector itself (no copy, no dense form); a backend without start_compact gets the
 *   expanded dense aux; a dense witness goes to start(); counts that do not match the circuit, a freed
 *   aux, an n_dense that disagrees with the bitmap are CZ_EFORMAT;
 * - the budget charge (cz_witness_charge) of the real witness: a GPU-like backend keeps
 *   charge - dense + compact, the CPU backend (which expands) and dense witnesses keep the charge;
 * - the CPU backend: start_compact and start give the same pending (all five MSM results) on a witness
 *   mixing 0, 1 and random values (and a changed value gives another), and the same proof for fixed r, s;
 * - the engine (test circuit, seeded setup): with a recording GPU-like backend, both partitions go
 *   through start_compact and carry exactly the dense hook's witness, the proofs verify, the budget seen
 *   inside start is the SRS plus each partition's charge, refunded to partition_mem - dense + compact for
 *   an all-zero witness ("bits:" payloads) and not for random values (compact is larger there), and the
 *   metrics count compact partitions and their bytes; with CUZK_COMPACT_WITNESS=0, and with
 *   synthesis.compact_witness = false, the jobs go through start() dense (no refund); the CPU backend
 *   completes through its own start_compact.
 * A full 2 KiB PoRep proof through the engine on both paths is tests/slow/test_engine_porep_compact.c. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/witness.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "util/rng.h"

/* ---- a recording backend ---- */

#define REC_MAX 8
typedef struct {
    pthread_mutex_t mu;
    int dense_calls, compact_calls;
    const cz_wcompact *last_compact; /* the pointer start_compact got */
    int n;                           /* witnesses recorded (expanded) */
    cz_fr *in[REC_MAX], *aux[REC_MAX];
    uint64_t ni[REC_MAX], na[REC_MAX];
    bool prove;       /* delegate to the CPU backend (else *pending = NULL) */
    cz_engine *e;     /* snapshot the engine's status inside start */
    int snaps, refunds; /* snapshots taken, partitions seen holding a refunded charge */
    bool budget_ok;     /* every snapshot matched */
    char why[256];
} recorder;
static recorder rec = {.mu = PTHREAD_MUTEX_INITIALIZER};
static cz_backend cpu_be;

/* Page-locked staging ahead of start() (cz_backend.host_alloc), under rec.mu: the buffers the engine holds
 * now, the calls, and what start() saw. The first start() waits until `want` buffers were allocated, and a
 * thread other than the first to allocate waits before it until some partition is inside start() (both until
 * 5 s after the first allocation): when the engine copies outside the device's lock, the second worker's
 * buffer comes while the first partition is inside start(); inside the lock it could not. */
#define STG_MAX 16
static struct {
    bool on, fail;             /* hooks installed; host_alloc fails */
    void *p[STG_MAX];
    uint64_t bytes[STG_MAX];
    int n;                     /* buffers held now */
    int allocs, frees, beside; /* calls; allocations while a partition was inside start() */
    int in_start, starts, want;
    int not_staged;            /* parts start() received outside every buffer */
    bool bad_free;
    pthread_t first;
    struct timespec until;
    pthread_cond_t cv;
} stg = {.cv = PTHREAD_COND_INITIALIZER};

static int rec_host_alloc(cz_backend *b, int dev, void **p, uint64_t bytes) {
    (void)b, (void)dev;
    *p = NULL;
    pthread_mutex_lock(&rec.mu);
    if (stg.allocs == 0) {
        stg.first = pthread_self();
        clock_gettime(CLOCK_REALTIME, &stg.until);
        stg.until.tv_sec += 5;
    }
    while (stg.on && !pthread_equal(stg.first, pthread_self()) && stg.in_start == 0 &&
           pthread_cond_timedwait(&stg.cv, &rec.mu, &stg.until) == 0) {
    }
    stg.allocs++;
    stg.beside += stg.in_start > 0;
    if (!stg.fail && stg.n < STG_MAX && (*p = aligned_alloc(64, (bytes + 63) & ~(uint64_t)63)))
        stg.p[stg.n] = *p, stg.bytes[stg.n++] = bytes;
    pthread_cond_broadcast(&stg.cv);
    pthread_mutex_unlock(&rec.mu);
    return *p ? 0 : CZ_ENOMEM;
}

static void rec_host_free(cz_backend *b, void *p) {
    (void)b;
    pthread_mutex_lock(&rec.mu);
    stg.frees++;
    int i = 0;
    while (i < stg.n && stg.p[i] != p) i++;
    if (i == stg.n) stg.bad_free = true;
    else stg.p[i] = stg.p[stg.n - 1], stg.bytes[i] = stg.bytes[stg.n - 1], stg.n--;
    pthread_mutex_unlock(&rec.mu);
    free(p);
}

/* [p, p + bytes) inside one buffer held now */
static bool stg_has(const void *p, uint64_t bytes) {
    for (int i = 0; i < stg.n; i++)
        if ((const uint8_t *)p >= (const uint8_t *)stg.p[i] &&
            (const uint8_t *)p + bytes <= (const uint8_t *)stg.p[i] + stg.bytes[i])
            return true;
    return false;
}

/* Inside start (rec.mu held): every part it copies lies in a staging buffer (inputs, then aux or the bitmaps
 * and the dense values); the first start waits for `want` buffers. Returns with in_start raised. */
static void stg_enter(uint64_t ni, const cz_fr *inputs, const cz_fr *aux, uint64_t na, const cz_wcompact *c) {
    if (!stg.on) return;
    const uint64_t bm = c ? (c->n + 63) / 64 * 8 : 0;
    stg.not_staged += !stg_has(inputs, ni * sizeof(cz_fr));
    if (aux) stg.not_staged += !stg_has(aux, na * sizeof(cz_fr));
    if (c) stg.not_staged += !stg_has(c->is_bit, bm) + !stg_has(c->bit, bm);
    if (c && c->n_dense) stg.not_staged += !stg_has(c->dense, c->n_dense * sizeof(cz_fr));
    stg.in_start++;
    pthread_cond_broadcast(&stg.cv);
    if (stg.starts++ == 0)
        while (stg.allocs < stg.want && pthread_cond_timedwait(&stg.cv, &rec.mu, &stg.until) == 0) {
        }
}

static void rec_reset(void) {
    for (int i = 0; i < rec.n; i++) free(rec.in[i]), free(rec.aux[i]);
    pthread_mutex_lock(&rec.mu);
    rec.dense_calls = rec.compact_calls = rec.n = rec.snaps = rec.refunds = 0;
    rec.last_compact = NULL;
    rec.prove = false, rec.e = NULL, rec.budget_ok = true, rec.why[0] = 0;
    stg.on = stg.fail = false, stg.n = stg.allocs = stg.frees = stg.beside = stg.in_start = stg.starts = stg.want = 0;
    stg.not_staged = 0, stg.bad_free = false;
    pthread_mutex_unlock(&rec.mu);
}

static void rec_keep(const cz_fr *in, uint64_t ni, const cz_fr *aux, const cz_wcompact *caux, uint64_t na) {
    if (rec.n >= REC_MAX) return;
    int k = rec.n++;
    rec.in[k] = malloc(ni * sizeof(cz_fr)), rec.aux[k] = malloc((na ? na : 1) * sizeof(cz_fr));
    memcpy(rec.in[k], in, ni * sizeof(cz_fr));
    if (aux) memcpy(rec.aux[k], aux, na * sizeof(cz_fr));
    else if (cz_wcompact_to_dense(caux, 0, na, rec.aux[k])) memset(rec.aux[k], 0xff, na * sizeof(cz_fr));
    rec.ni[k] = ni, rec.na[k] = na;
}

/* Inside start: the engine's budget must be the SRS plus, per partition in flight: while it synthesizes, its
 * dense witness size (capped by its charge); once synthesized, the witness bytes it holds; in start(), its
 * full charge, less the dense witness plus the compact one when the backend takes it compact without
 * expanding it and it is smaller (one snapshot, one lock). */
static void rec_snapshot(const cz_backend *b) {
    cz_engine_status st;
    if (cz_engine_status_get(rec.e, &st)) return;
    uint64_t srs = 0, want = 0;
    for (size_t i = 0; i < st.n_srs; i++)
        if (st.srs[i].tier == CZ_TIER_HOT) srs += st.srs[i].size_bytes;
    const cz_circuit *c = cz_circuit_find("porep-2k-test");
    uint64_t charge = c->partition_mem < st.budget_total ? c->partition_mem : st.budget_total;
    uint64_t dense = (2 + CZ_TEST_CIRCUIT_CONSTRAINTS + 2) * 32ull; /* ONE, y | x0, x1, one per row */
    for (size_t k = 0; k < st.n_pipelines; k++)
        for (uint32_t i = 0; i < st.pipelines[k].total_partitions; i++) {
            char s = st.pipelines[k].part_state[i];
            uint64_t wb = st.pipelines[k].part_witness_bytes[i];
            if (s != 's' && s != 'S' && s != 'g') continue;
            if (s != 'g') { /* synthesizing (no witness yet), or holding its witness until its start() */
                uint64_t held = wb ? wb : dense;
                want += held < charge ? held : charge;
                continue;
            }
            bool refund = wb && st.pipelines[k].witness_compact && b->start_compact && !b->compact_expands && wb < dense;
            want += refund ? charge - dense + wb : charge;
            rec.refunds += refund;
        }
    rec.snaps++;
    if (st.budget_used != srs + want + st.staging_bytes && rec.budget_ok) {
        rec.budget_ok = false;
        snprintf(rec.why, sizeof rec.why, "budget_used %llu, SRS %llu + partitions %llu",
                 (unsigned long long)st.budget_used, (unsigned long long)srs, (unsigned long long)want);
    }
    if (st.witness_bytes == 0 && rec.budget_ok) { /* the partition inside start holds its witness */
        rec.budget_ok = false;
        snprintf(rec.why, sizeof rec.why, "witness_bytes 0 inside start");
    }
    cz_engine_status_free(&st);
}

static int rec_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                     const cz_fr *aux, void **pending) {
    pthread_mutex_lock(&rec.mu);
    rec.dense_calls++;
    rec_keep(inputs, r->num_inputs, aux, NULL, r->num_aux);
    if (rec.e) rec_snapshot(b);
    stg_enter(r->num_inputs, inputs, aux, r->num_aux, NULL);
    bool prove = rec.prove;
    pthread_mutex_unlock(&rec.mu);
    *pending = NULL;
    int rc = prove ? cpu_be.start(&cpu_be, dev, p, r, inputs, aux, pending) : 0;
    pthread_mutex_lock(&rec.mu);
    stg.in_start -= stg.on;
    pthread_mutex_unlock(&rec.mu);
    return rc;
}

static int rec_start_compact(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                             const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    pthread_mutex_lock(&rec.mu);
    rec.compact_calls++;
    rec.last_compact = aux;
    rec_keep(inputs, r->num_inputs, NULL, aux, aux->n);
    if (rec.e) rec_snapshot(b);
    stg_enter(r->num_inputs, inputs, NULL, aux->n, aux);
    bool prove = rec.prove;
    pthread_mutex_unlock(&rec.mu);
    *pending = NULL;
    int rc = prove ? cpu_be.start_compact(&cpu_be, dev, p, r, inputs, aux, pending) : 0;
    pthread_mutex_lock(&rec.mu);
    stg.in_start -= stg.on;
    pthread_mutex_unlock(&rec.mu);
    return rc;
}

/* GPU-like: takes the compact form as is (compact_expands false), so the engine refunds the charge. */
static void rec_init(cz_backend *b, bool with_compact) {
    cz_backend_cpu_init(&cpu_be, 0);
    cz_backend_cpu_init(b, 0);
    b->name = "recorder";
    b->start = rec_start;
    b->start_compact = with_compact ? rec_start_compact : NULL;
    b->compact_expands = false;
}

static int one_device(void) { return 1; }
static int rec_provider_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg, (void)nthreads;
    rec_init(b, true);
    b->ndevices = 1;
    if (stg.on) b->host_alloc = rec_host_alloc, b->host_free = rec_host_free;
    return 0;
}

static bool same_fr(const cz_fr *a, const cz_fr *b, uint64_t n) { return !memcmp(a, b, n * sizeof(cz_fr)); }

/* ---- the real 2 KiB PoRep hooks ---- */

/* a partition of the C1 of miner f0<miner>'s sector <sector> */
static void porep_partition(const char *what, const cz_c1 *c1, const char *json, size_t len, uint64_t miner,
                            uint64_t sector, cz_rng *rng, const cz_r1cs *r) {
    const cz_circuit *c = cz_circuit_find("porep-2k");
    CHECK(c && c->synthesize_compact == cz_porep_circuit_synth_compact);
    cz_submit s = {0};
    s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.registered_proof = c1->proof_id;
    s.miner_id = miner, s.sector_number = sector;
    s.vanilla = (const uint8_t *)json, s.vanilla_len = len;
    void *st = NULL;
    int rc = c->prepare(c, &s, &st);
    CHECK_MSG(rc == 0, "%s: prepare: %s", what, cz_error_message());
    if (rc) return;
    uint32_t k = (uint32_t)(cz_rng_next(rng) % c->partitions_of(c, st));
    cz_witness wc, wd;
    rc = cz_witness_synthesize(c, st, k, true, &wc);
    CHECK_MSG(rc == 0 && wc.compact && !wc.aux, "%s: compact synthesis: %s", what, rc ? cz_error_message() : "");
    rc = cz_witness_synthesize(c, st, k, false, &wd);
    CHECK_MSG(rc == 0 && !wd.compact && wd.aux, "%s: dense synthesis: %s", what, rc ? cz_error_message() : "");
    CHECK(wc.ni == wd.ni && wc.na == wd.na && wc.caux.n == wd.na && wd.ni == 40);
    CHECK_MSG(same_fr(wc.inputs, wd.inputs, wd.ni), "%s partition %u: compact inputs == dense inputs", what, k);
    uint64_t others = 0;
    for (uint64_t i = 0; i < wd.na; i++)
        others += !cz_fr_equal(&wd.aux[i], &CZ_FR_ZERO_V) && !cz_fr_equal(&wd.aux[i], &CZ_FR_ONE_V);
    CHECK_MSG(wc.caux.n_dense == others, "%s: n_dense %llu, values outside {0,1} %llu", what,
              (unsigned long long)wc.caux.n_dense, (unsigned long long)others);
    cz_fr *x = NULL;
    CHECK(cz_wcompact_expand(&wc.caux, &x) == 0);
    CHECK_MSG(x && same_fr(x, wd.aux, wd.na), "%s partition %u: expanded compact aux == dense aux", what, k);
    uint64_t cb = cz_witness_bytes(&wc), db = cz_witness_bytes(&wd);
    CHECK(db == cz_witness_dense_bytes(&wd) && db == (40 + wd.na) * 32);
    CHECK(cb == 40 * 32 + 16 * ((wd.na + 63) / 64) + 32 * others);
    CHECK(cb * 8 < db); /* ~97 % of a PoRep witness is bits */
    printf("%s partition %u: %llu aux, %llu outside {0,1}; witness %llu B dense, %llu B compact (%.1fx)\n", what, k,
           (unsigned long long)wd.na, (unsigned long long)others, (unsigned long long)db, (unsigned long long)cb,
           (double)db / (double)cb);
    if (r && x) { /* a, b, c: the expanded witness satisfies the circuit; one changed value does not */
        CHECK_MSG(cz_r1cs_check(NULL, r, wc.inputs, x, 0) == 0, "%s: expanded witness: %s", what, cz_error_message());
        uint64_t i = cz_rng_next(rng) % wd.na;
        cz_fr_add(&x[i], &x[i], &CZ_FR_ONE_V);
        CHECK(cz_r1cs_check(NULL, r, wc.inputs, x, 0) == CZ_EVERIFY);
    }
    free(x);

    /* the hand-off */
    cz_r1cs shape = {0};
    shape.num_inputs = wd.ni, shape.num_aux = wd.na;
    cz_groth16_params none;
    memset(&none, 0, sizeof none);
    cz_backend b;
    void *pd;
    rec_reset();
    rec_init(&b, true);
    CHECK(cz_backend_start_witness(&b, 0, &none, &shape, &wc, &pd) == 0);
    CHECK(rec.compact_calls == 1 && rec.dense_calls == 0 && rec.last_compact == &wc.caux);
    CHECK(rec.n == 1 && same_fr(rec.aux[0], wd.aux, wd.na) && same_fr(rec.in[0], wd.inputs, wd.ni));
    CHECK(cz_backend_start_witness(&b, 0, &none, &shape, &wd, &pd) == 0 && rec.dense_calls == 1);
    rec_reset();
    rec_init(&b, false); /* no start_compact: expanded for start() */
    CHECK(cz_backend_start_witness(&b, 0, &none, &shape, &wc, &pd) == 0);
    CHECK(rec.dense_calls == 1 && rec.compact_calls == 0 && rec.n == 1 && same_fr(rec.aux[0], wd.aux, wd.na));
    cz_r1cs other = shape;
    other.num_aux++;
    CHECK(cz_backend_start_witness(&b, 0, &none, &other, &wc, &pd) == CZ_EFORMAT);
    other = shape, other.num_inputs--;
    CHECK(cz_backend_start_witness(&b, 0, &none, &other, &wd, &pd) == CZ_EFORMAT);
    wc.caux.n_dense--; /* the bitmap says otherwise: expanding would read past the dense values */
    CHECK(cz_backend_start_witness(&b, 0, &none, &shape, &wc, &pd) == CZ_EFORMAT);
    wc.caux.n_dense++;
    CHECK(rec.dense_calls == 1);

    /* the budget charge: 2 GiB counts the dense witness; a backend that takes it compact keeps the rest */
    uint64_t charge = c->partition_mem;
    rec_init(&b, true);
    CHECK(cz_witness_charge(charge, true, cb, db, &b) == charge - db + cb);
    CHECK(cz_witness_charge(charge, false, db, db, &b) == charge);
    CHECK(cz_witness_charge(db / 2, true, cb, db, &b) == cb); /* a charge below the dense witness */
    CHECK(cz_witness_charge(cb / 2, true, cb, db, &b) == cb / 2);
    cz_backend cpu;
    cz_backend_cpu_init(&cpu, 1);
    CHECK(cpu.start_compact && cpu.compact_expands && cz_witness_charge(charge, true, cb, db, &cpu) == charge);
    rec_init(&b, false);
    CHECK(cz_witness_charge(charge, true, cb, db, &b) == charge);

    cz_witness_free_aux(&wc);
    CHECK(wc.inputs && cz_witness_bytes(&wc) == 40 * 32);
    CHECK(cz_backend_start_witness(&b, 0, &none, &shape, &wc, &pd) == CZ_EFORMAT); /* aux already freed */
    cz_witness_free(&wc), cz_witness_free(&wd);
    CHECK(!wc.inputs && !wd.aux);
    CHECK(c->synthesize_compact(c, st, c->partitions_of(c, st), &wc.inputs, &wc.ni, &wc.caux) != 0);
    cz_wcompact_free(&wc.caux);
    c->release(c, st);
    rec_reset();
}

static void porep_hooks(cz_rng *rng) {
    cz_r1cs r = {0};
    const cz_circuit *c = cz_circuit_find("porep-2k");
    int rc = c->build_r1cs(c, &r, NULL, NULL);
    CHECK_MSG(rc == 0, "porep-2k r1cs: %s", cz_error_message());
    cz_c1 c1;
    unsigned ids[3] = {5, 10, 15}; /* V1_1, Synthetic, NI */
    unsigned id = ids[cz_rng_next(rng) % 3];
    rc = cz_porep_sealed_c1(&c1, id, cz_rng_next(rng), 1000, 1);
    CHECK_MSG(rc == 0, "sealed C1: %s", cz_error_message());
    if (!rc) {
        char *json = NULL;
        size_t len = 0;
        CHECK(cz_c1_to_json(&c1, &json, &len) == 0);
        char what[64];
        snprintf(what, sizeof what, "sealed 2 KiB C1 (proof %u)", id);
        if (json) porep_partition(what, &c1, json, len, 1000, 1, rng, rc ? NULL : &r);
        free(json);
        cz_c1_free(&c1);
    }
    char path[1024];
    size_t len = 0;
    char *json = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &len);
    if (json && cz_c1_parse(&c1, json, len) == 0) {
        porep_partition("gpuproxy 2KiB.json", &c1, json, len, 1001, 0, rng, &r); /* its Miner f01001, SectorNum 0 */
        cz_c1_free(&c1);
    } else {
        printf("%s not readable: the fixture half is skipped\n", path);
    }
    free(json);
    cz_r1cs_free(&r);
}

/* ---- the CPU backend: start_compact == start ---- */

static bool same_pending(const cz_groth16_pending *a, const cz_groth16_pending *b) {
    return cz_g1_jac_equal(&a->a_ans, &b->a_ans) && cz_g1_jac_equal(&a->b1_ans, &b->b1_ans) &&
           cz_g2_jac_equal(&a->b2_ans, &b->b2_ans) && cz_g1_jac_equal(&a->h_msm, &b->h_msm) &&
           cz_g1_jac_equal(&a->l_msm, &b->l_msm);
}

static void cpu_backend(cz_rng *rng) {
    const cz_circuit *c = cz_circuit_find("porep-2k-test");
    cz_r1cs r = {0};
    cz_groth16_params params;
    cz_groth16_toxic tw;
    cz_groth16_toxic_from_seed(&tw, cz_rng_next(rng));
    int rc = c->build_r1cs(c, &r, NULL, NULL);
    if (!rc) rc = cz_groth16_setup(&params, &r, &tw, 0);
    CHECK_MSG(rc == 0, "test circuit setup: %s", cz_error_message());
    if (rc) return;
    /* a witness with every kind of value (the prover does not need it to satisfy the circuit) */
    cz_fr *in = malloc(r.num_inputs * sizeof *in), *aux = malloc(r.num_aux * sizeof *aux);
    in[0] = CZ_FR_ONE_V;
    for (uint64_t i = 1; i < r.num_inputs; i++) cz_fr_random(&in[i], rng);
    for (uint64_t i = 0; i < r.num_aux; i++) {
        uint64_t t = cz_rng_next(rng) % 3;
        if (t == 2) cz_fr_random(&aux[i], rng);
        else aux[i] = t ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
    }
    cz_wcompact w;
    cz_wcompact_init(&w);
    CHECK(cz_wcompact_from_dense(&w, aux, r.num_aux) == 0 && w.n_dense > 0 && w.n_dense < r.num_aux);
    cz_backend b;
    cz_backend_cpu_init(&b, 0);
    void *pd = NULL, *pc = NULL, *px = NULL;
    CHECK(b.start(&b, 0, &params, &r, in, aux, &pd) == 0);
    CHECK(b.start_compact(&b, 0, &params, &r, in, &w, &pc) == 0);
    CHECK_MSG(pd && pc && same_pending(pd, pc), "cpu backend: start_compact's pending == start's");
    cz_fr_add(&aux[r.num_aux / 2], &aux[r.num_aux / 2], &CZ_FR_ONE_V);
    CHECK(b.start(&b, 0, &params, &r, in, aux, &px) == 0);
    CHECK(px && pc && !same_pending(px, pc));
    cz_fr rr, ss;
    cz_fr_random(&rr, rng), cz_fr_random(&ss, rng);
    cz_groth16_proof p1, p2;
    uint8_t e1[CZ_GROTH16_PROOF_BYTES], e2[CZ_GROTH16_PROOF_BYTES];
    if (pd && pc) {
        CHECK(cz_groth16_prove_finish(&p1, pd, &params.vk, &rr, &ss) == 0);
        CHECK(cz_groth16_prove_finish(&p2, pc, &params.vk, &rr, &ss) == 0);
        cz_groth16_proof_encode(e1, &p1), cz_groth16_proof_encode(e2, &p2);
        CHECK(!memcmp(e1, e2, sizeof e1));
    }
    b.discard(&b, pd), b.discard(&b, pc), b.discard(&b, px);
    cz_r1cs shorter = r;
    shorter.num_aux--;
    CHECK(b.start_compact(&b, 0, &params, &shorter, in, &w, &pc) == CZ_EFORMAT);
    w.n_dense++;
    CHECK(b.start_compact(&b, 0, &params, &r, in, &w, &pc) == CZ_EFORMAT);
    w.n_dense--;
    /* shrink gives back the spare storage; later pushes grow it again; the values stay */
    cz_wcompact_shrink(&w);
    CHECK(w.cap == ((r.num_aux + 63) & ~63ull) && w.dense_cap == w.n_dense);
    cz_fr extra[3] = {CZ_FR_ONE_V, CZ_FR_ZERO_V, in[1]}, *x = NULL;
    uint64_t nd = w.n_dense;
    int bad = 0;
    for (int i = 0; i < 200; i++) bad |= cz_wcompact_push(&w, &extra[i % 3]);
    CHECK(!bad && w.n == r.num_aux + 200 && w.n_dense == nd + 66 && cz_wcompact_expand(&w, &x) == 0);
    bool same = x && !memcmp(x, aux, (r.num_aux / 2) * sizeof *x); /* aux[num_aux / 2] was changed above */
    for (int i = 0; x && i < 200; i++) same &= cz_fr_equal(&x[r.num_aux + i], &extra[i % 3]);
    CHECK(same);
    free(x);
    cz_wcompact_free(&w);
    free(in), free(aux);
    cz_groth16_params_free(&params);
    cz_r1cs_free(&r);
}

/* ---- cz_witness_stage_copy ---- */

/* A witness staged into the backend's buffer: the view's parts are in it, hold the same values (the compact
 * one expands to the dense aux), the source is untouched; a larger witness grows the buffer (free, then a
 * bigger one), another device takes a new one, one over `max` or an allocation failure is not staged. */
static void stage_copy(cz_rng *rng) {
    cz_backend b;
    rec_init(&b, true);
    b.host_alloc = rec_host_alloc, b.host_free = rec_host_free;
    rec_reset();
    for (int round = 0; round < 2; round++) {
        const uint64_t na = round ? 5000 : 1000, ni = 3;
        cz_fr in[3], *aux = malloc(na * sizeof(cz_fr));
        for (uint64_t i = 0; i < ni; i++) cz_fr_random(&in[i], rng);
        for (uint64_t i = 0; i < na; i++) {
            const uint64_t r = cz_rng_next(rng) % 3;
            if (r == 2) cz_fr_random(&aux[i], rng);
            else aux[i] = r ? CZ_FR_ONE_V : CZ_FR_ZERO_V;
        }
        cz_witness wc = {.inputs = in, .ni = ni, .na = na, .compact = true}, wd = {.inputs = in, .ni = ni, .na = na, .aux = aux};
        cz_wcompact_init(&wc.caux);
        CHECK(cz_wcompact_from_dense(&wc.caux, aux, na) == 0);
        cz_witness_stage st = {0};
        for (int dense = 0; dense < 2; dense++) {
            const cz_witness *w = dense ? &wd : &wc;
            cz_witness v;
            const int allocs = stg.allocs;
            CHECK(cz_witness_stage_copy(&b, 0, &st, w, 64, &v) == 0 && stg.allocs == allocs); /* over max */
            CHECK(cz_witness_stage_grow(&b, &st, 0, w, 64) == 0);
            /* the parts 64-byte aligned, plus a quarter for the next witnesses */
            const uint64_t bm = (na + 63) / 64 * 8, nd = w->caux.n_dense * 32;
            const uint64_t need = 128 + (dense ? na * 32 : 2 * ((bm + 63) / 64 * 64) + (nd + 63) / 64 * 64);
            const uint64_t grow = cz_witness_stage_grow(&b, &st, 0, w, UINT64_MAX);
            CHECK_MSG(grow == need + need / 4, "grow %llu for %llu bytes", (unsigned long long)grow, (unsigned long long)need);
            CHECK(cz_witness_stage_copy(&b, 0, &st, w, UINT64_MAX, &v) == 1);
            CHECK(stg.n == 1 && stg.bytes[0] == grow && st.cap == grow); /* what grow said it would take */
            CHECK(cz_witness_stage_grow(&b, &st, 0, w, UINT64_MAX) == 0);  /* fits now */
            CHECK(cz_witness_stage_grow(&b, &st, 1, w, UINT64_MAX) == grow); /* another device: a new buffer */
            CHECK(v.inputs != in && stg_has(v.inputs, ni * sizeof(cz_fr)) && same_fr(v.inputs, in, ni));
            cz_fr *x = NULL;
            if (dense) {
                CHECK(v.aux != aux && stg_has(v.aux, na * sizeof(cz_fr)) && same_fr(v.aux, aux, na));
            } else {
                const uint64_t bm = (na + 63) / 64 * 8;
                CHECK(stg_has(v.caux.is_bit, bm) && stg_has(v.caux.bit, bm) && v.caux.n_dense > 0 &&
                      stg_has(v.caux.dense, v.caux.n_dense * sizeof(cz_fr)) && v.caux.dense != wc.caux.dense);
                CHECK(cz_wcompact_expand(&v.caux, &x) == 0 && x && same_fr(x, aux, na));
                free(x);
            }
            CHECK(cz_witness_stage_copy(&b, 1, &st, w, UINT64_MAX, &v) == 1 && st.device == 1); /* new device */
        }
        CHECK_MSG(stg.n == 1, "round %d: %d buffers held", round, stg.n);
        pthread_mutex_lock(&rec.mu);
        stg.fail = true;
        pthread_mutex_unlock(&rec.mu);
        cz_witness v;
        CHECK(cz_witness_stage_copy(&b, 0, &st, &wc, UINT64_MAX, &v) == 0 && st.buf == NULL); /* device 0 again */
        pthread_mutex_lock(&rec.mu);
        stg.fail = false;
        pthread_mutex_unlock(&rec.mu);
        cz_witness_stage_free(&b, &st);
        CHECK(stg.n == 0 && !stg.bad_free);
        cz_wcompact_free(&wc.caux);
        free(aux);
    }
    /* a dense 32 GiB Window PoSt witness (4.06 GB; grow reads only the sizes): at most 64 MiB of slack */
    {
        cz_fr one = CZ_FR_ONE_V;
        cz_witness big = {.inputs = &one, .ni = 25840, .na = 126902376, .aux = &one};
        cz_witness_stage st = {0};
        const uint64_t need = (25840 * 32 + 63) / 64 * 64 + 126902376ull * 32;
        CHECK(cz_witness_stage_grow(&b, &st, 0, &big, UINT64_MAX) == need + (64 << 20));
        CHECK(cz_witness_stage_grow(&b, &st, 0, &big, (uint64_t)8 << 30) == need + (64 << 20));
        CHECK(cz_witness_stage_grow(&b, &st, 0, &big, (uint64_t)2 << 30) == 0); /* over max */
        /* a buffer of that size (only its capacity is read) keeps a witness of a quarter of it or more, and gives
         * way to a smaller one (a PoRep partition's after a Window PoSt): the buffer shrinks to its size; up to
         * CZ_STAGE_KEEP_MAX, a buffer is kept whatever it holds */
        int anchor;
        st.buf = &anchor, st.cap = need + (64 << 20), st.device = 0;
        cz_witness quarter = big, small = big;
        quarter.na = st.cap / 4 / 32 + 1, small.na = 2 * 1000 * 1000;
        const uint64_t qneed = (25840 * 32 + 63) / 64 * 64 + quarter.na * 32;
        const uint64_t gq = cz_witness_stage_grow(&b, &st, 0, &quarter, UINT64_MAX);
        CHECK_MSG(qneed >= st.cap / 4 && gq == 0, "a quarter of the buffer: grow %llu", (unsigned long long)gq);
        const uint64_t sneed = (25840 * 32 + 63) / 64 * 64 + small.na * 32;
        const uint64_t gs = cz_witness_stage_grow(&b, &st, 0, &small, UINT64_MAX);
        CHECK_MSG(gs == sneed + sneed / 4, "a small witness in a big buffer: grow %llu", (unsigned long long)gs);
        st.cap = CZ_STAGE_KEEP_MAX;
        CHECK(cz_witness_stage_grow(&b, &st, 0, &small, UINT64_MAX) == 0);
        st.cap = CZ_STAGE_KEEP_MAX + 64;
        CHECK(cz_witness_stage_grow(&b, &st, 0, &small, UINT64_MAX) == sneed + sneed / 4);
        st.buf = NULL, st.cap = 0;
    }
    /* no hooks: not staged */
    cz_backend cpu;
    cz_backend_cpu_init(&cpu, 0);
    cz_witness_stage st = {0};
    cz_fr one = CZ_FR_ONE_V;
    cz_witness w = {.inputs = &one, .ni = 1, .na = 1, .aux = &one}, v;
    CHECK(cz_witness_stage_copy(&cpu, 0, &st, &w, UINT64_MAX, &v) == 0 && !st.buf);
    rec_reset();
    printf("cz_witness_stage_copy: ok\n");
}

/* ---- the engine ---- */

static cz_submit req(const char *id, const char *payload) {
    cz_submit s = {0};
    s.request_id = id, s.kind = CZ_KIND_POREP, s.sector_size = 2048;
    s.vanilla = (const uint8_t *)payload, s.vanilla_len = strlen(payload);
    return s;
}

/* One test-circuit job (payload = id); returns the engine's metrics text (malloc'ed) after it completed. */
static char *run_job(const cz_config *cfg, const char *id, bool snapshot) {
    cz_engine *e;
    int rc = cz_engine_new(&e, cfg);
    CHECK_MSG(rc == 0, "engine: %s", cz_error_message());
    if (rc) return NULL;
    pthread_mutex_lock(&rec.mu);
    rec.e = snapshot ? e : NULL;
    rec.prove = true;
    pthread_mutex_unlock(&rec.mu);
    cz_submit s = req(id, id);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    cz_result r;
    CHECK(cz_engine_submit(e, &s, jid, &q) == 0);
    CHECK(cz_engine_await(e, jid, 0, &r) == 0);
    CHECK_MSG(r.status == CZ_JOB_COMPLETED && r.proof_len == 384, "%s: status %d %s", id, r.status, r.error);
    cz_result_free(&r);
    cz_engine_status st;
    /* the workers' staging buffers (alive until the engine stops) stay in the budget */
    pthread_mutex_lock(&rec.mu);
    uint64_t staging = 0;
    for (int i = 0; i < stg.n; i++) staging += stg.bytes[i];
    pthread_mutex_unlock(&rec.mu);
    CHECK(cz_engine_status_get(e, &st) == 0 && st.witness_bytes == 0);
    CHECK_MSG(st.staging_bytes == staging && st.budget_used == st.srs[0].size_bytes + staging,
              "%s: budget_used %llu, SRS %llu, staging %llu (buffers held %llu)", id,
              (unsigned long long)st.budget_used, (unsigned long long)st.srs[0].size_bytes,
              (unsigned long long)st.staging_bytes, (unsigned long long)staging);
    cz_engine_status_free(&st);
    char *m = cz_engine_metrics(e);
    char want[96];
    snprintf(want, sizeof want, "cuzk_witness_staging_bytes %llu\n", (unsigned long long)staging);
    CHECK_MSG(m && strstr(m, want), "%s: metrics lack %s", id, want);
    pthread_mutex_lock(&rec.mu);
    rec.e = NULL;
    pthread_mutex_unlock(&rec.mu);
    cz_engine_free(e);
    return m;
}

/* The recorded witnesses are the dense hook's, partition by partition (told apart by the public input). */
static void check_recorded(const char *id) {
    const cz_circuit *c = cz_circuit_find("porep-2k-test");
    cz_submit s = req(id, id);
    void *st = NULL;
    CHECK(c->prepare(c, &s, &st) == 0);
    int matched = 0;
    for (uint32_t k = 0; k < c->partitions; k++) {
        cz_fr *in = NULL, *aux = NULL;
        uint64_t ni = 0, na = 0;
        CHECK(c->synthesize(c, st, k, &in, &ni, &aux, &na) == 0);
        for (int i = 0; i < rec.n; i++)
            if (rec.ni[i] == ni && rec.na[i] == na && same_fr(rec.in[i], in, ni))
                matched += same_fr(rec.aux[i], aux, na);
        free(in), free(aux);
    }
    c->release(c, st);
    CHECK_MSG(matched == 2 && rec.n == 2, "%s: %d of %d recorded witnesses are the dense hook's", id, matched, rec.n);
}

static void engine_paths(void) {
    cz_gpu_provider prov = {one_device, rec_provider_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    cz_config cfg;
    cz_config_defaults(&cfg);
    CHECK(cfg.compact_witness);
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = 1;
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    cz_log_set_level("warn");
    unsetenv("CUZK_COMPACT_WITNESS");

    rec_reset();
    char *m = run_job(&cfg, "compact-1", true);
    CHECK_MSG(rec.compact_calls == 2 && rec.dense_calls == 0, "compact path: %d start_compact, %d start",
              rec.compact_calls, rec.dense_calls);
    CHECK_MSG(rec.snaps == 2 && rec.budget_ok, "budget inside start: %s", rec.why);
    check_recorded("compact-1");
    CHECK(rec.refunds == 0); /* random values: the compact form is larger than the dense one */
    CHECK(m && strstr(m, "cuzk_partitions_synthesized_total{witness=\"compact\"} 2\n") &&
          strstr(m, "cuzk_partitions_synthesized_total{witness=\"dense\"} 0\n") &&
          strstr(m, "cuzk_witness_held_bytes 0\n"));
    /* compact bytes of two test-circuit witnesses: their values are random (no bits), so 2 x (inputs +
     * bitmaps + every aux dense) */
    uint64_t na = CZ_TEST_CIRCUIT_CONSTRAINTS + 2, per = 2 * 32 + 16 * ((na + 63) / 64) + 32 * na;
    char want[128];
    snprintf(want, sizeof want, "cuzk_witness_synthesized_bytes_total{witness=\"compact\"} %llu\n",
             (unsigned long long)(2 * per));
    CHECK_MSG(m && strstr(m, want), "metrics lack %s", want);
    free(m);

    /* an all-zero witness (the test circuit's "bits:" payloads): 320 compact bytes for 32,832 dense, so
     * each synthesized partition holds partition_mem - 32,832 + 320 of the budget */
    rec_reset();
    m = run_job(&cfg, "bits:compact", true);
    CHECK(rec.compact_calls == 2 && rec.dense_calls == 0);
    CHECK_MSG(rec.snaps == 2 && rec.budget_ok && rec.refunds >= 2, "bits: budget inside start (%d refunds): %s",
              rec.refunds, rec.why);
    check_recorded("bits:compact");
    snprintf(want, sizeof want, "cuzk_witness_synthesized_bytes_total{witness=\"compact\"} %llu\n",
             (unsigned long long)(2 * (2 * 32 + 16 * ((na + 63) / 64))));
    CHECK_MSG(m && strstr(m, want), "metrics lack %s", want);
    free(m);

    rec_reset();
    setenv("CUZK_COMPACT_WITNESS", "0", 1);
    m = run_job(&cfg, "bits:dense-env", true); /* bits, yet dense: no refund */
    CHECK_MSG(rec.dense_calls == 2 && rec.compact_calls == 0, "CUZK_COMPACT_WITNESS=0: %d start, %d start_compact",
              rec.dense_calls, rec.compact_calls);
    CHECK(rec.budget_ok);
    check_recorded("bits:dense-env");
    CHECK(rec.refunds == 0);
    CHECK(m && strstr(m, "cuzk_partitions_synthesized_total{witness=\"dense\"} 2\n"));
    free(m);
    unsetenv("CUZK_COMPACT_WITNESS");

    rec_reset();
    CHECK(cz_config_load_text(&cfg, "[synthesis]\ncompact_witness = false\n", "t.toml") == 0 && !cfg.compact_witness);
    cz_log_set_level("warn"); /* loading a config applies its logging.level */
    m = run_job(&cfg, "dense-cfg", false);
    CHECK(rec.dense_calls == 2 && rec.compact_calls == 0);
    free(m);
    CHECK(cz_config_load_text(&cfg, "[synthesis]\ncompact_witness = 1\n", "t.toml") == CZ_EFORMAT);
    cfg.compact_witness = true;

    /* Staging outside the device's lock: two workers on the one device, each with its page-locked buffer
     * (host_alloc, freed when the engine stops); every part start() receives lies in one, holding the
     * witness (check_recorded), and the second worker stages while the first partition is inside start()
     * (which waits for it). Compact, then dense. */
    cfg.gpu_workers_per_device = 2;
    for (int dense = 0; dense < 2; dense++) {
        const char *what = dense ? "stage dense" : "stage compact";
        rec_reset();
        pthread_mutex_lock(&rec.mu);
        stg.on = true, stg.want = 2;
        pthread_mutex_unlock(&rec.mu);
        if (dense) setenv("CUZK_COMPACT_WITNESS", "0", 1);
        m = run_job(&cfg, dense ? "stage-dense" : "stage-compact", false);
        unsetenv("CUZK_COMPACT_WITNESS");
        free(m);
        pthread_mutex_lock(&rec.mu);
        CHECK_MSG(rec.compact_calls + rec.dense_calls == 2 && (dense ? rec.dense_calls : rec.compact_calls) == 2,
                  "%s: %d start_compact, %d start", what, rec.compact_calls, rec.dense_calls);
        CHECK_MSG(stg.allocs == 2 && stg.frees == 2 && stg.n == 0 && !stg.bad_free,
                  "%s: %d buffers allocated, %d freed (want 2 each), %d left, bad free %d", what, stg.allocs,
                  stg.frees, stg.n, stg.bad_free);
        CHECK_MSG(stg.not_staged == 0, "%s: start() got %d parts outside the staging buffers", what, stg.not_staged);
        CHECK_MSG(stg.beside >= 1, "%s: no buffer allocated while a partition was inside start()", what);
        pthread_mutex_unlock(&rec.mu);
        check_recorded(dense ? "stage-dense" : "stage-compact");
    }
    /* host_alloc failing: start() gets the witness as it is */
    rec_reset();
    pthread_mutex_lock(&rec.mu);
    stg.on = stg.fail = true;
    pthread_mutex_unlock(&rec.mu);
    m = run_job(&cfg, "stage-fails", false);
    free(m);
    CHECK_MSG(rec.compact_calls == 2 && stg.allocs >= 2 && stg.frees == 0 && stg.not_staged == 4 * 2,
              "stage fails: %d start_compact, %d allocations, %d frees, %d parts not staged", rec.compact_calls,
              stg.allocs, stg.frees, stg.not_staged);
    check_recorded("stage-fails");
    /* No room in the memory budget (1 byte: each partition and the SRS go alone): nothing is allocated,
     * start() gets the witness as it is */
    rec_reset();
    pthread_mutex_lock(&rec.mu);
    stg.on = true;
    pthread_mutex_unlock(&rec.mu);
    cfg.total_budget = 1;
    m = run_job(&cfg, "stage-no-room", false);
    free(m);
    cfg.total_budget = 0;
    CHECK_MSG(rec.compact_calls == 2 && stg.allocs == 0 && stg.not_staged == 4 * 2,
              "stage without budget: %d start_compact, %d allocations, %d parts not staged", rec.compact_calls,
              stg.allocs, stg.not_staged);
    check_recorded("stage-no-room");
    cfg.gpu_workers_per_device = 1;

    /* the CPU backend: the compact path through its own start_compact */
    cz_backend_set_gpu_provider(NULL);
    snprintf(cfg.backend, sizeof cfg.backend, "cpu");
    rec_reset();
    m = run_job(&cfg, "cpu-compact", false);
    CHECK(rec.dense_calls == 0 && rec.compact_calls == 0); /* not the recorder */
    CHECK(m && strstr(m, "cuzk_partitions_synthesized_total{witness=\"compact\"} 2\n"));
    free(m);
    rec_reset();
    cz_log_set_level("info");
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cpu_backend(&rng);
    stage_copy(&rng);
    engine_paths();
    porep_hooks(&rng);
    return cz_test_finish();
}
