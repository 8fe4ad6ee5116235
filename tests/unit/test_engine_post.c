/* Window and Winning PoSt in the engine (src/engine/circuit_post.c) on synthetic vanilla sector proofs
 * (cz_post_synthetic_sector: they answer the real challenges of a fresh random randomness, sector ids and
 * seed each run), sent as bincode FallbackPoStSectorProof bytes as Curio does. Hooks: prepare accepts
 * them, the witness carries exactly the public inputs derived from public values (sector ids, comm_r,
 * randomness, partition index); rejections name what is wrong (another randomness: the sector and
 * challenge; a Winning registered_proof on a Window request; randomness not masked; too many sectors;
 * truncated bincode; Winning with 2 proofs). Then a real 2 KiB WindowPoSt proof through the in-process
 * engine (seeded setup of the 2-sector circuit, cached in a temporary directory): COMPLETED, 192 bytes,
 * verified by the engine against the public inputs before it answers; a V1 request with the partition
 * index changed is refused at submit (V1 challenges depend on the sector's index in the PoSt; V1_1's
 * restart per sector). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "filecoin/post_inputs.h"
#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "util/rng.h"

typedef struct {
    unsigned n;
    uint8_t *buf[4];
    size_t len[4];
    uint64_t ids[4];
} vanillas;

static int make(vanillas *v, cz_post_kind kind, bool v12, const uint8_t rnd[32], unsigned n, unsigned k, cz_rng *rng) {
    cz_post_params p;
    int rc = cz_post_params_for(&p, kind, 2048);
    v->n = n;
    for (unsigned i = 0; !rc && i < n; i++) {
        cz_post_sector_proof sp;
        v->ids[i] = cz_rng_next(rng) % 100000;
        uint64_t index = kind == CZ_POST_WINNING ? 0 : (uint64_t)k * p.sectors + i;
        rc = cz_post_synthetic_sector(&sp, &p, v12, rnd, v->ids[i], index, cz_rng_next(rng));
        if (!rc) {
            rc = cz_post_sector_proof_encode(&sp, &p, &v->buf[i], &v->len[i]);
            cz_post_sector_proof_free(&sp);
        }
    }
    return rc;
}

static void vfree(vanillas *v) {
    for (unsigned i = 0; i < v->n; i++) free(v->buf[i]);
}

static cz_submit req(int kind, uint64_t reg, const vanillas *v, const uint8_t *rnd, uint32_t k) {
    cz_submit s = {0};
    s.kind = kind, s.sector_size = 2048, s.registered_proof = reg;
    s.n_vanillas = v->n, s.vanillas = (const uint8_t *const *)v->buf, s.vanilla_lens = v->len;
    s.randomness = rnd, s.randomness_len = 32, s.partition_index = k;
    s.miner_id = 1000;
    return s;
}

/* prepare + witness inputs == public inputs, for one circuit */
static void hooks(const char *id, const cz_submit *s) {
    const cz_circuit *c = cz_circuit_find(id);
    void *st = NULL;
    int rc = c->prepare(c, s, &st);
    CHECK_MSG(rc == 0, "%s prepare: %s", id, cz_error_message());
    if (rc) return;
    cz_fr *in = NULL, *aux = NULL;
    uint64_t ni = 0, na = 0;
    rc = c->synthesize(c, st, 0, &in, &ni, &aux, &na);
    CHECK_MSG(rc == 0, "%s synthesize: %s", id, cz_error_message());
    cz_fr *pub = rc ? NULL : malloc((ni - 1) * sizeof *pub);
    if (pub) {
        CHECK(c->public_inputs(c, st, 0, pub, ni - 1) == 0);
        bool same = true;
        for (uint64_t i = 0; i + 1 < ni; i++) same &= cz_fr_equal(&pub[i], &in[1 + i]);
        CHECK_MSG(same, "%s: %llu public inputs from public values == the witness's", id, (unsigned long long)(ni - 1));
        CHECK(c->public_inputs(c, st, 0, pub, ni - 2) == CZ_ERANGE);
    }
    printf("%s: %llu inputs, %llu aux\n", id, (unsigned long long)ni, (unsigned long long)na);
    free(pub), free(in), free(aux);
    c->release(c, st);
}

static void expect_reject(const char *id, const cz_submit *s, const char *word) {
    const cz_circuit *c = cz_circuit_find(id);
    void *st = NULL;
    int rc = c->prepare(c, s, &st);
    CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), word), "%s rejects (%s): rc %d %s", id, word, rc,
              cz_error_message());
    if (!rc) c->release(c, st);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    uint8_t rnd[32], other[32];
    cz_rng_bytes(&rng, rnd, 32);
    cz_rng_bytes(&rng, other, 32);
    rnd[31] &= 0x3f, other[31] &= 0x3f;
    unsigned k = (unsigned)(cz_rng_next(&rng) % 3);

    /* Window 2 KiB V1_1 (registered 10, challenge indices restart per sector) and V1 (5) */
    vanillas w = {0}, w1 = {0}, win = {0}, win2 = {0};
    CHECK(make(&w, CZ_POST_WINDOW, true, rnd, 2, k, &rng) == 0);
    CHECK(make(&w1, CZ_POST_WINDOW, false, rnd, 1, k, &rng) == 0);
    CHECK(make(&win, CZ_POST_WINNING, false, rnd, 1, 0, &rng) == 0);
    CHECK(make(&win2, CZ_POST_WINNING, false, rnd, 2, 0, &rng) == 0);
    cz_submit s = req(CZ_KIND_WPOST, 10, &w, rnd, k);
    hooks("wpost-2k", &s);
    cz_submit s1 = req(CZ_KIND_WPOST, 5, &w1, rnd, k);
    hooks("wpost-2k", &s1); /* one sector: the partition's second repeats it */
    cz_submit sw = req(CZ_KIND_WINNING, 0, &win, rnd, 0);
    hooks("winning-2k", &sw);

    cz_submit bad = s;
    bad.randomness = other;
    expect_reject("wpost-2k", &bad, "does not verify");
    /* V1 challenges depend on the sector's index in the PoSt (partition_index); V1_1 ones do not */
    bad = s1, bad.partition_index = k + 1;
    expect_reject("wpost-2k", &bad, "does not verify");
    bad = s, bad.registered_proof = 0;
    expect_reject("wpost-2k", &bad, "Winning");
    bad = s, bad.registered_proof = 13; /* 32 GiB Window */
    expect_reject("wpost-2k", &bad, "sector_size 2048");
    bad = s, bad.registered_proof = 99;
    expect_reject("wpost-2k", &bad, "not a PoSt proof");
    uint8_t unmasked[32];
    memcpy(unmasked, rnd, 32);
    unmasked[31] |= 0x80;
    bad = s, bad.randomness = unmasked;
    expect_reject("wpost-2k", &bad, "field element");
    bad = s, bad.randomness_len = 31;
    expect_reject("wpost-2k", &bad, "32 bytes");
    bad = s, bad.n_vanillas = 0;
    expect_reject("wpost-2k", &bad, "no vanilla_proofs");
    size_t lens[2] = {w.len[0], w.len[1] - 7};
    bad = s, bad.vanilla_lens = lens;
    expect_reject("wpost-2k", &bad, "vanilla_proofs[1]");
    /* both bad: the sectors are checked in parallel, the lowest is named (as one by one) */
    size_t lens2[2] = {w.len[0] - 3, w.len[1] - 7};
    bad = s, bad.vanilla_lens = lens2;
    expect_reject("wpost-2k", &bad, "vanilla_proofs[0]");
    vanillas three = w;
    three.n = 3, three.buf[2] = w.buf[0], three.len[2] = w.len[0];
    bad = req(CZ_KIND_WPOST, 10, &three, rnd, k);
    expect_reject("wpost-2k", &bad, "at most 2 sectors");
    bad = req(CZ_KIND_WINNING, 0, &win2, rnd, 0);
    expect_reject("winning-2k", &bad, "exactly 1");

    /* A real WindowPoSt 2 KiB proof through the engine (seeded setup, in a temporary cache). */
    char dir[] = "/tmp/cz-post-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    snprintf(cfg.backend, sizeof cfg.backend, "cpu");
    cfg.gpu_workers_per_device = 1;
    cz_log_set_level("warn");
    cz_engine *e;
    CHECK(cz_engine_new(&e, &cfg) == 0);
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    cz_result r;
    s.request_id = "wpost-2k-real";
    int rc = cz_engine_submit(e, &s, jid, &q);
    CHECK_MSG(rc == 0, "submit: %s", cz_error_message());
    if (!rc && cz_engine_await(e, jid, 0, &r) == 0) {
        CHECK_MSG(r.status == CZ_JOB_COMPLETED && r.proof_len == 192, "WindowPoSt 2 KiB: status %d, %zu bytes, %s "
                  "(synthesis %llu ms, prove %llu ms)", r.status, r.proof_len, r.error, (unsigned long long)r.synthesis_ms,
                  (unsigned long long)r.gpu_compute_ms);
        printf("WindowPoSt 2 KiB proof: srs %llu ms, synthesis %llu ms, prove+verify %llu ms\n",
               (unsigned long long)r.srs_load_ms, (unsigned long long)r.synthesis_ms,
               (unsigned long long)r.gpu_compute_ms);
        cz_result_free(&r);
    }
    bad = s1, bad.request_id = "wpost-2k-other-k", bad.partition_index = k + 1;
    CHECK(cz_engine_submit(e, &bad, jid, &q) == CZ_EINVAL);
    cz_engine_free(e);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    vfree(&w), vfree(&w1), vfree(&win), vfree(&win2);
    return cz_test_finish();
}
