/* Scheduler ordering against a naive reference, priority defaults, the circuit registry's request
 * checks, and the engine itself in process: priorities across queued jobs, cancel, dedup, bound, await
 * timeout, and proofs that verify (the engine checks each against the vk; a wrong witness must fail). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/sched.h"
#include "engine/srs.h"

typedef struct {
    int prio;
    uint64_t seq;
    int live;
} ref_item;

static void sched_random(cz_rng *rng) {
    enum { N = 400 };
    static ref_item items[N];
    cz_sched s;
    cz_sched_init(&s);
    CHECK(cz_sched_pop(&s) == NULL && cz_sched_peek(&s) == NULL);
    size_t n = 0;
    uint64_t seq = 0;
    for (int step = 0; step < 3000; step++) {
        uint64_t op = cz_rng_next(rng) % 10;
        if (op < 5 && n < N) {
            items[n] = (ref_item){1 + (int)(cz_rng_next(rng) % 4), seq++, 1};
            /* rank = live items that come first, by the naive definition */
            size_t want = 0;
            for (size_t i = 0; i < n; i++)
                want += items[i].live && (items[i].prio > items[n].prio ||
                                          (items[i].prio == items[n].prio && items[i].seq < items[n].seq));
            CHECK(cz_sched_rank(&s, items[n].prio, items[n].seq) == want);
            CHECK(cz_sched_push(&s, items[n].prio, items[n].seq, &items[n]) == 0);
            n++;
        } else if (op < 8) {
            ref_item *best = NULL;
            for (size_t i = 0; i < n; i++)
                if (items[i].live && (!best || items[i].prio > best->prio || (items[i].prio == best->prio && items[i].seq < best->seq)))
                    best = &items[i];
            ref_item *got = cz_sched_pop(&s);
            CHECK(got == best);
            if (got) got->live = 0;
        } else if (n) {
            size_t k = cz_rng_next(rng) % n;
            int was = items[k].live;
            CHECK(cz_sched_remove(&s, &items[k]) == was);
            items[k].live = 0;
        }
        size_t live = 0;
        for (size_t i = 0; i < n; i++) live += items[i].live;
        CHECK(s.n == live);
    }
    cz_sched_free(&s);
}

static void priorities_and_registry(void) {
    CHECK(cz_effective_priority(CZ_KIND_WINNING, 0) == CZ_PRIO_CRITICAL);
    CHECK(cz_effective_priority(CZ_KIND_WPOST, 0) == CZ_PRIO_HIGH);
    CHECK(cz_effective_priority(CZ_KIND_POREP, 0) == CZ_PRIO_NORMAL);
    CHECK(cz_effective_priority(CZ_KIND_SNAP, 0) == CZ_PRIO_NORMAL);
    CHECK(cz_effective_priority(CZ_KIND_POREP, 9) == CZ_PRIO_NORMAL && cz_effective_priority(CZ_KIND_POREP, -1) == CZ_PRIO_NORMAL);
    CHECK(cz_effective_priority(CZ_KIND_POREP, CZ_PRIO_LOW) == CZ_PRIO_LOW);
    const cz_circuit *c;
    CHECK(cz_circuit_for_request(0, 2048, false, &c) == CZ_EINVAL && cz_circuit_for_request(5, 2048, false, &c) == CZ_EINVAL);
    CHECK(cz_circuit_for_request(1, 4096, false, &c) == CZ_EINVAL && cz_circuit_for_request(1, 0, false, &c) == CZ_EINVAL);
    /* SnapDeals for every size, with the official files; 2 KiB also allows a seeded setup */
    CHECK(cz_circuit_for_request(2, 32ull << 30, true, &c) == 0 && !strcmp(c->id, "snap-32g") && c->partitions == 16 &&
          strstr(c->params_file, "empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9"));
    CHECK(cz_circuit_for_request(2, 2048, true, &c) == 0 && !strcmp(c->id, "snap-2k") && c->partitions == 1 &&
          c->setup_seed && strstr(c->params_file, "8-0-0-fb9e095b"));
    CHECK(cz_circuit_for_request(2, 8u << 20, false, &c) == 0 && c->partitions == 4 &&
          strstr(c->params_file, "8-0-0-92180959"));
    CHECK(cz_circuit_for_request(2, 512u << 20, false, &c) == 0 && c->partitions == 16 &&
          strstr(c->params_file, "8-0-0-61fa69f3"));
    CHECK(cz_circuit_for_request(2, 64ull << 30, false, &c) == 0 && strstr(c->params_file, "8-8-2-102e1444"));
    /* PoSt for every size: Window / Winning with their official files (tests/unit/test_post_names.c: the hashes) */
    static const char *const wp[5] = {"wpost-2k", "wpost-8m", "wpost-512m", "wpost-32g", "wpost-64g"};
    static const char *const wn[5] = {"winning-2k", "winning-8m", "winning-512m", "winning-32g", "winning-64g"};
    static const uint64_t psz[5] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    for (int i = 0; i < 5; i++) {
        CHECK(cz_circuit_for_request(3, psz[i], false, &c) == 0 && !strcmp(c->id, wp[i]) && c->partitions == 1 &&
              strstr(c->params_file, "v28-proof-of-spacetime-fallback-") != NULL);
        CHECK(cz_circuit_for_request(4, psz[i], false, &c) == 0 && !strcmp(c->id, wn[i]) && c->partitions == 1);
    }
    CHECK(cz_circuit_for_request(4, 32ull << 30, false, &c) == 0 &&
          strstr(c->params_file, "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e"));
    CHECK(cz_circuit_for_request(3, 32ull << 30, false, &c) == 0 &&
          strstr(c->params_file, "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc"));
    /* Real PoRep circuits for every size; the test circuit only for 2 KiB when asked for. */
    static const char *const real[5] = {"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"};
    static const uint64_t sizes[5] = {2048, 8u << 20, 512u << 20, 32ull << 30, 64ull << 30};
    for (int i = 0; i < 5; i++) {
        CHECK(cz_circuit_for_request(1, sizes[i], false, &c) == 0 && c && !strcmp(c->id, real[i]) && !c->is_test &&
              c->params_file && strstr(c->params_file, "v28-stacked-proof-of-replication-"));
        CHECK(cz_circuit_for_request(1, sizes[i], true, &c) == 0 && c && c->is_test == (i == 0));
    }
    CHECK(cz_circuit_for_request(1, 32ull << 30, false, &c) == 0 && c->partitions == 10 &&
          strstr(c->params_file, "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"));
    CHECK(cz_circuit_for_request(1, 2048, true, &c) == 0 && c && !strcmp(c->id, "porep-2k-test") && c->is_test);
    CHECK(cz_circuit_find("porep-32g") && cz_circuit_find("porep-32g")->available && !cz_circuit_find("x"));
    /* sector_size 0 (Curio's proof-share Snap requests): the size the kind's registered_proof names; a size that
     * is set is kept as it is (the circuits' prepare checks it against registered_proof). */
    for (int i = 0; i < 5; i++) {
        uint64_t got = 1;
        cz_submit q = {.kind = CZ_KIND_SNAP, .registered_proof = (uint64_t)i};
        CHECK_MSG(cz_request_sector_size(&q, &got) == 0 && got == sizes[i], "snap id %d: %llu", i,
                  (unsigned long long)got);
        q.kind = CZ_KIND_POREP, q.registered_proof = (uint64_t)(5 * (i % 4) + i); /* V1, V1_1, Synthetic, NI */
        CHECK(cz_request_sector_size(&q, &got) == 0 && got == sizes[i]);
        q.kind = CZ_KIND_WINNING, q.registered_proof = (uint64_t)i;
        CHECK(cz_request_sector_size(&q, &got) == 0 && got == sizes[i]);
        q.kind = CZ_KIND_WPOST, q.registered_proof = (uint64_t)(5 + i); /* V1; V1_1 below */
        CHECK(cz_request_sector_size(&q, &got) == 0 && got == sizes[i]);
        q.registered_proof = (uint64_t)(10 + i);
        CHECK(cz_request_sector_size(&q, &got) == 0 && got == sizes[i]);
        q.sector_size = 4096; /* set: kept, whatever registered_proof says */
        CHECK(cz_request_sector_size(&q, &got) == 0 && got == 4096);
    }
    {
        static const struct { int kind; uint64_t rp; } bad[] = {
            {CZ_KIND_SNAP, 5},     {CZ_KIND_SNAP, 1ull << 32}, {CZ_KIND_POREP, 20}, {CZ_KIND_WINNING, 5},
            {CZ_KIND_WPOST, 4},    {CZ_KIND_WPOST, 15},        {0, 0},              {5, 3},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            uint64_t got = 1;
            cz_submit q = {.kind = bad[i].kind, .registered_proof = bad[i].rp};
            int rc = cz_request_sector_size(&q, &got);
            CHECK_MSG(rc == CZ_EINVAL && got == 0 &&
                          strstr(cz_error_message(), q.kind >= 1 && q.kind <= 4 ? "names no" : "invalid proof_kind"),
                      "kind %d registered_proof %llu, sector_size 0: rc %d %s", q.kind,
                      (unsigned long long)q.registered_proof, rc, cz_error_message());
        }
    }
    CHECK(cz_circuit_find("snap-32g") && cz_circuit_find("snap-32g")->available);
    void *st1, *st2, *st3;
    cz_submit sub = {0};
    CHECK(c->prepare(c, &sub, &st1) == CZ_EINVAL);
    /* Different payloads give different public inputs; the same payload the same. */
    cz_fr *in1, *in2, *in3, *aux;
    uint64_t ni, na;
    const uint8_t p1[] = "payload-1", p2[] = "payload-2";
    sub.vanilla = p1, sub.vanilla_len = sizeof p1;
    CHECK(c->prepare(c, &sub, &st1) == 0 && c->prepare(c, &sub, &st2) == 0);
    sub.vanilla = p2;
    CHECK(c->prepare(c, &sub, &st3) == 0);
    CHECK(c->synthesize(c, st1, 0, &in1, &ni, &aux, &na) == 0 && ni == 2 && na > 0);
    free(aux);
    CHECK(c->synthesize(c, st2, 0, &in2, &ni, &aux, &na) == 0);
    free(aux);
    CHECK(c->synthesize(c, st3, 0, &in3, &ni, &aux, &na) == 0);
    free(aux);
    CHECK(cz_fr_equal(&in1[1], &in2[1]) && !cz_fr_equal(&in1[1], &in3[1]));
    free(in1), free(in2), free(in3);
    CHECK(c->synthesize(c, st1, c->partitions, &in1, &ni, &aux, &na) == CZ_ERANGE);
    c->release(c, st1), c->release(c, st2), c->release(c, st3);
}

static cz_submit req(const char *id, int prio, const char *payload) {
    cz_submit s = {0};
    s.request_id = id;
    s.kind = CZ_KIND_POREP;
    s.sector_size = 2048;
    s.priority = prio;
    s.vanilla = (const uint8_t *)payload;
    s.vanilla_len = strlen(payload);
    return s;
}

/* An engine on the built-in test circuit: one prover worker, one synthesis worker, a one-slot prover queue;
 * max_pending 0 keeps the default. NULL (and a failed CHECK) when it cannot start. */
static cz_engine *test_engine(uint32_t max_pending) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = 1;
    cfg.max_parallel_synthesis = 1;
    cfg.max_gpu_queue_depth = 1;
    if (max_pending) cfg.max_pending = max_pending;
    cz_log_set_level("warn");
    cz_engine *e = NULL;
    CHECK(cz_engine_new(&e, &cfg) == 0);
    return e;
}

static void engine_in_process(void) {
    cz_engine *e = test_engine(6);
    if (!e) return;
    char id[CZ_JOB_ID_MAX];
    uint32_t q;
    /* The first job makes the dispatcher load the SRS (a seeded setup, no cache: about a second), and
     * LOW, NORMAL, LOW, CRITICAL are submitted meanwhile (microseconds), so they wait in the scheduler
     * whatever the machine's speed: CRITICAL must finish before the others, NORMAL before both LOWs,
     * the two LOWs in submission order. */
    const char *ids[] = {"first", "low-1", "normal", "low-2", "critical"};
    int prios[] = {CZ_PRIO_NORMAL, CZ_PRIO_LOW, CZ_PRIO_NORMAL, CZ_PRIO_LOW, CZ_PRIO_CRITICAL};
    for (int i = 0; i < 5; i++) {
        cz_submit s = req(ids[i], prios[i], ids[i]);
        CHECK(cz_engine_submit(e, &s, id, &q) == 0 && !strcmp(id, ids[i]));
    }
    cz_submit extra = req("extra", 0, "extra");
    CHECK(cz_engine_submit(e, &extra, id, &q) == 0);
    cz_submit over = req("over", 0, "over");
    CHECK(cz_engine_submit(e, &over, id, &q) == CZ_EFULL);
    bool was;
    CHECK(cz_engine_cancel(e, "extra", &was) == 0 && !was);
    cz_result r;
    CHECK(cz_engine_await(e, "extra", 0, &r) == 0 && r.status == CZ_JOB_CANCELLED && !r.proof);
    cz_result_free(&r);
    CHECK(cz_engine_await(e, "low-2", 1, &r) == 0 && r.status == CZ_JOB_TIMEOUT);
    uint64_t done_at[5];
    for (int i = 0; i < 5; i++) {
        CHECK(cz_engine_await(e, ids[i], 0, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == 384);
        done_at[i] = r.total_ms; /* from each job's own submit time */
        cz_result_free(&r);
    }
    /* Submission times differ by < 30 ms, so completion order shows in total_ms with a wide margin
     * (each job takes two proofs of a 1022-constraint circuit). */
    CHECK_MSG(done_at[4] < done_at[2] && done_at[2] < done_at[1] && done_at[1] < done_at[3],
              "critical %llu normal %llu low-1 %llu low-2 %llu", (unsigned long long)done_at[4],
              (unsigned long long)done_at[2], (unsigned long long)done_at[1], (unsigned long long)done_at[3]);
    bool already;
    uint64_t ms;
    CHECK(cz_engine_preload(e, "porep-2k-test", &already, &ms) == 0 && already && ms == 0);
    /* Dedup: a finished job's id returns the same job. */
    cz_submit again = req("normal", 0, "normal");
    CHECK(cz_engine_submit(e, &again, id, &q) == 0 && q == 0);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.completed == 5 && st.cancelled == 1 && st.n_srs == 1 &&
          st.srs[0].ref_count == 0 && st.queue_depth == 0);
    cz_engine_status_free(&st);
    /* ... and with another payload it is a new job under that id (Curio retries a WindowPoSt with another skip set
     * under the same id): proved (its proof differs: the test circuit's input comes from the payload), the id's
     * result is the new one, a repeat of it joins it. */
    uint8_t first_proof[384] = {0};
    CHECK(cz_engine_await(e, "normal", 0, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == 384);
    if (r.proof_len == 384) memcpy(first_proof, r.proof, 384);
    cz_result_free(&r);
    cz_submit other = req("normal", 0, "normal, another payload");
    CHECK_MSG(cz_engine_submit(e, &other, id, &q) == 0 && !strcmp(id, "normal"), "COMPLETED id, another payload: %s",
              cz_error_message());
    CHECK(cz_engine_await(e, "normal", 0, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == 384 &&
          memcmp(r.proof, first_proof, 384) != 0);
    cz_result_free(&r);
    CHECK(cz_engine_submit(e, &other, id, &q) == 0 && q == 0);
    CHECK(cz_engine_status_get(e, &st) == 0 && st.completed == 6 && st.queue_depth == 0);
    cz_engine_status_free(&st);
    uint64_t freed;
    CHECK(cz_engine_evict(e, "porep-2k-test", &was, &freed) == 0 && was && freed > 0);
    char *m = cz_engine_metrics(e);
    CHECK(m && strstr(m, "cuzk_proofs_completed_total 6\n") && strstr(m, "cuzk_proofs_completed{proof_kind=\"porep_c2\"} 6\n"));
    free(m);
    cz_engine_free(e);
    cz_log_set_level("info");
}

/* Finished jobs are pruned at a submit: beyond the newest retain_max, and after retention_ms. A pruned id is
 * NOT_FOUND for AwaitProof and a new job when submitted again. (10 minutes and 4,096 in the daemon; shortened
 * here.) */
static void job_retention(void) {
    cz_engine *e = test_engine(0);
    if (!e) return;
    cz_engine_set_retention_for_test(e, 60 * 1000, 2);
    char id[CZ_JOB_ID_MAX];
    uint32_t q;
    cz_result r;
    const char *ids[] = {"k1", "k2", "k3", "k4"};
    for (int i = 0; i < 4; i++) {
        cz_submit s = req(ids[i], 0, ids[i]);
        CHECK(cz_engine_submit(e, &s, id, &q) == 0);
        CHECK(cz_engine_await(e, ids[i], 0, &r) == 0 && r.status == CZ_JOB_COMPLETED);
        cz_result_free(&r);
    }
    /* k4's submit found k1, k2, k3 finished and kept the newest two */
    CHECK_MSG(cz_engine_await(e, "k1", 0, &r) == CZ_ENOTFOUND, "k1 kept beyond the newest 2");
    for (int i = 1; i < 4; i++) {
        CHECK_MSG(cz_engine_await(e, ids[i], 0, &r) == 0 && r.status == CZ_JOB_COMPLETED, "%s pruned", ids[i]);
        cz_result_free(&r);
    }
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && st.completed == 4);
    cz_engine_status_free(&st);
    /* after the retention time every finished job goes at the next submit; k1 again is a new job */
    cz_engine_set_retention_for_test(e, 50, 4096);
    usleep(120 * 1000);
    cz_submit again = req("k1", 0, "k1");
    CHECK(cz_engine_submit(e, &again, id, &q) == 0 && !strcmp(id, "k1"));
    for (int i = 1; i < 4; i++)
        CHECK_MSG(cz_engine_await(e, ids[i], 0, &r) == CZ_ENOTFOUND, "%s kept after 50 ms", ids[i]);
    CHECK(cz_engine_await(e, "k1", 0, &r) == 0 && r.status == CZ_JOB_COMPLETED && r.proof_len == 384);
    cz_result_free(&r);
    CHECK(cz_engine_status_get(e, &st) == 0 && st.completed == 5);
    cz_engine_status_free(&st);
    cz_engine_free(e);
    cz_log_set_level("info");
}

/* The SRS manager's tiers, reference counts, explicit evict and idle eviction under memory pressure.
 * With a cache directory: the seeded setup is written once; HOT -> WARM keeps the mapping, WARM -> HOT
 * decodes it again without a setup, WARM -> COLD unmaps, a new manager finds the file COLD. */
static void srs_manager(void) {
    char dir[] = "/tmp/cz_test_srs_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cz_srs_mgr m;
    cz_srs_init(&m, "", dir, 1);
    const cz_circuit *c = cz_circuit_find("porep-2k-test");
    CHECK(m.head == NULL); /* nothing on disk yet */
    cz_srs_entry *s;
    uint64_t ms;
    CHECK(cz_srs_loaded_bytes(&m) == 0);
    CHECK(cz_srs_acquire(&m, c, &s, &ms) == 0 && s->refs == 1 && s->bytes > 0 && cz_srs_tier(s) == CZ_TIER_HOT);
    CHECK(s->seeded && s->file_bytes > 0 && s->map != NULL);
    uint64_t bytes = s->bytes;
    CHECK(cz_srs_loaded_bytes(&m) == bytes);
    CHECK(cz_srs_evict_idle(&m, 1, 0) == 0); /* referenced */
    bool was;
    uint64_t freed;
    CHECK(cz_srs_evict(&m, c, &was, &freed) == CZ_EBUSY && cz_srs_loaded_bytes(&m) == bytes);
    cz_srs_release(&m, s);
    CHECK(cz_srs_evict_idle(&m, 1, 60000) == 0); /* not idle long enough */
    CHECK(cz_srs_evict_idle(&m, 1, 0) == bytes && cz_srs_loaded_bytes(&m) == 0 && cz_srs_tier(s) == CZ_TIER_WARM);
    bool already = true;
    CHECK(cz_srs_preload(&m, c, &already, &ms) == 0 && !already && cz_srs_loaded_bytes(&m) == bytes &&
          cz_srs_tier(s) == CZ_TIER_HOT);
    CHECK(cz_srs_preload(&m, c, &already, &ms) == 0 && already && ms == 0);
    CHECK(cz_srs_evict(&m, c, &was, &freed) == 0 && was && freed == bytes && cz_srs_tier(s) == CZ_TIER_WARM);
    CHECK(cz_srs_evict(&m, c, &was, &freed) == 0 && !was && freed == 0 && cz_srs_tier(s) == CZ_TIER_COLD && !s->map);
    CHECK(cz_srs_evict(&m, c, &was, &freed) == 0 && !was && freed == 0);
    cz_srs_destroy(&m);
    /* A fresh manager knows the cached file (COLD) and loads it; a corrupted cache file is redone. */
    cz_srs_init(&m, "", dir, 1);
    CHECK(m.head && m.head->circuit == c && cz_srs_tier(m.head) == CZ_TIER_COLD && m.head->file_bytes > 0);
    CHECK(cz_srs_preload(&m, c, &already, &ms) == 0 && !already && cz_srs_loaded_bytes(&m) == bytes);
    cz_groth16_vk vk1 = m.head->params.vk;
    uint8_t g1[96], g2[96];
    cz_g1_to_uncompressed(g1, &vk1.alpha_g1);
    cz_srs_destroy(&m);
    char path[128];
    snprintf(path, sizeof path, "%s/cuzk-test-porep-2k-test.params", dir);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) fputc(0xff, f), fclose(f); /* the vk's first byte: the point no longer decodes */
    cz_srs_init(&m, "", dir, 1);
    CHECK(cz_srs_preload(&m, c, &already, &ms) == 0 && cz_srs_loaded_bytes(&m) == bytes);
    cz_g1_to_uncompressed(g2, &m.head->params.vk.alpha_g1);
    CHECK(!memcmp(g1, g2, 96)); /* the same seed gives the same parameters */
    cz_srs_destroy(&m);
    /* Real circuits without their official file: a clear error naming the file and the directory. */
    cz_srs_init(&m, dir, dir, 1);
    CHECK(cz_srs_check(&m, cz_circuit_find("porep-32g")) == CZ_ENOPARAMS &&
          strstr(cz_error_message(), "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-") &&
          strstr(cz_error_message(), dir));
    CHECK(cz_srs_check(&m, cz_circuit_find("porep-2k")) == 0); /* seeded setup allowed */
    CHECK(cz_srs_check(&m, cz_circuit_find("snap-32g")) == CZ_ENOPARAMS &&
          strstr(cz_error_message(), "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"));
    CHECK(cz_srs_check(&m, cz_circuit_find("snap-2k")) == 0);
    cz_srs_destroy(&m);
    unlink(path);
    rmdir(dir);
}

/* The real 2 KiB PoRep hooks on the real gpuproxy 2KiB.json (a sealed sector's C1 in the Commit2In wrapper):
 * prepare parses and verifies it, the witness of partition 0 carries exactly the public inputs that
 * public_inputs derives from the C1's public values; a request naming another size, or another miner than the
 * C1's, is refused. */
static void porep_hooks(void) {
    char path[1024];
    size_t n = 0;
    char *buf = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &n);
    if (!buf) {
        printf("%s not found: real PoRep hook checks skipped\n", path);
        return;
    }
    const cz_circuit *c = cz_circuit_find("porep-2k"), *c8 = cz_circuit_find("porep-8m");
    cz_submit s = {0};
    s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.registered_proof = 5;
    s.miner_id = 1000, s.sector_number = 0; /* the fixture is f01001's sector 0: not this miner's */
    s.vanilla = (const uint8_t *)buf, s.vanilla_len = n;
    void *st = NULL;
    CHECK(c->prepare(c, &s, &st) == CZ_EINVAL && strstr(cz_error_message(), "not that of miner f01000 sector 0"));
    s.miner_id = 1001;
    int rc = c->prepare(c, &s, &st);
    CHECK_MSG(rc == 0, "prepare: %s", cz_error_message());
    if (rc) {
        free(buf);
        return;
    }
    cz_fr *in, *aux, pub[39];
    uint64_t ni, na;
    CHECK(c->synthesize(c, st, 0, &in, &ni, &aux, &na) == 0 && ni == 40 && na == 2685673);
    CHECK(c->public_inputs(c, st, 0, pub, 39) == 0);
    int same = 1;
    for (int i = 0; i < 39; i++) same &= cz_fr_equal(&pub[i], &in[1 + i]);
    CHECK(same);
    CHECK(c->public_inputs(c, st, 0, pub, 38) == CZ_ERANGE);
    free(in), free(aux);
    c->release(c, st);
    s.registered_proof = 8;
    CHECK(c->prepare(c, &s, &st) == CZ_EINVAL && strstr(cz_error_message(), "32GiB"));
    s.registered_proof = 6, s.sector_size = 8u << 20;
    CHECK(c8->prepare(c8, &s, &st) == CZ_EINVAL && strstr(cz_error_message(), "the C1 is a 2KiB proof"));
    s.vanilla_len = n / 2;
    s.registered_proof = 5, s.sector_size = 2048;
    CHECK(c->prepare(c, &s, &st) == CZ_EINVAL && strstr(cz_error_message(), "vanilla_proof: "));
    free(buf);
}

/* The GPU seam: gpus.backend against providers with and without devices / an init. */
static int two_devices(void) { return 2; }
static int no_devices(void) { return 0; }
static const int fake_ords[2] = {3, 5}; /* gpus.devices = [3, 5] */
static int fake_describe(cz_backend *b, int dev, cz_gpu_info *out) {
    (void)b;
    snprintf(out->name, sizeof out->name, "Fake \"GPU\" %d", fake_ords[dev]);
    out->vram_total = 80ull << 30, out->vram_free = (uint64_t)(10 + dev) << 30;
    out->resident_circuits = 1 + dev, out->circuit_uploads = 7 + (uint64_t)dev;
    return 0;
}
static int fake_gpu_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(b, nthreads); /* the CPU calls under a GPU name: enough to see the selection */
    b->name = "fake-gpu";
    b->ndevices = 2;
    b->ordinals = fake_ords;
    b->describe = fake_describe;
    return 0;
}

static void no_driver_why(char *why, size_t n) {
    snprintf(why, n, "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version");
}

/* usable() for cz_backend_pick_devices: ordinals 1 and 4 are a build-less architecture */
static int pick_calls;
static int fake_usable(int ord, char *why, size_t n) {
    pick_calls++;
    if (ord != 1 && ord != 4) return 0;
    snprintf(why, n, "Fake RTX %d is sm_89, and this build has kernels for CZ_CUDA_ARCH=90 only", ord);
    return cz_error(CZ_EUNSUPPORTED, "GPU %d: %s", ord, why);
}

static int refuse_all(int ord, char *why, size_t n) {
    snprintf(why, n, "Fake GPU %d is sm_75", ord);
    return cz_error(CZ_EUNSUPPORTED, "GPU %d: %s", ord, why);
}

static void device_picking(void) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    int ords[CZ_CONFIG_MAX_DEVICES];
    cz_log_set_level("error"); /* the skipped devices' warnings */
    /* every device, none refused */
    CHECK(cz_backend_pick_devices(&cfg, 1, fake_usable, ords) == 1 && ords[0] == 0);
    CHECK(cz_backend_pick_devices(&cfg, 3, NULL, ords) == 3 && ords[2] == 2);
    /* without gpus.devices the refused ones are skipped, the rest kept in order */
    pick_calls = 0;
    CHECK(cz_backend_pick_devices(&cfg, 6, fake_usable, ords) == 4 && ords[0] == 0 && ords[1] == 2 && ords[2] == 3 &&
          ords[3] == 5 && pick_calls == 6);
    /* every device refused: CZ_EUNSUPPORTED naming the first and why; no device at all */
    CHECK(cz_backend_pick_devices(&cfg, 2, refuse_all, ords) == CZ_EUNSUPPORTED &&
          strstr(cz_error_message(), "no usable CUDA device (GPU 0: Fake GPU 0 is sm_75)"));
    CHECK(cz_backend_pick_devices(&cfg, 0, fake_usable, ords) == CZ_EUNSUPPORTED &&
          strstr(cz_error_message(), "none found"));
    /* listed: a refused device is an error, not a silent skip */
    cfg.ndevices = 2, cfg.devices[0] = 0, cfg.devices[1] = 4;
    CHECK(cz_backend_pick_devices(&cfg, 6, fake_usable, ords) == CZ_EUNSUPPORTED &&
          strstr(cz_error_message(), "gpus.devices lists GPU 4") && strstr(cz_error_message(), "sm_89") &&
          strstr(cz_error_message(), "CZ_CUDA_ARCH=90"));
    cfg.devices[1] = 5;
    CHECK(cz_backend_pick_devices(&cfg, 6, fake_usable, ords) == 2 && ords[0] == 0 && ords[1] == 5);
    /* out of range or twice: refused before any device is asked */
    cfg.devices[1] = 6;
    pick_calls = 0;
    CHECK(cz_backend_pick_devices(&cfg, 6, fake_usable, ords) == CZ_EINVAL && strstr(cz_error_message(), "lists GPU 6") &&
          pick_calls == 0);
    cfg.devices[1] = 0;
    CHECK(cz_backend_pick_devices(&cfg, 6, fake_usable, ords) == CZ_EINVAL && strstr(cz_error_message(), "twice") &&
          pick_calls == 0);
    cz_log_set_level("info");
}

/* cz_backend_check (cuzk --check-config): a provider of three GPUs seen without opening them: an H200, an sm_89 card
 * the build's list rules out, and one whose query fails (left to the open at start) */
static int three_devices(void) { return 3; }
static int fake_peek(int ord, char *desc, size_t dn, char *why, size_t wn) {
    if (ord == 2) return cz_error(CZ_EDEVICE, "GPU 2 cannot be queried: cudaErrorUnknown");
    snprintf(desc, dn, ord ? "Fake RTX 4090, 128 SMs, 23.6 GiB, sm_89" : "Fake H200, 132 SMs, 139.8 GiB, sm_90");
    snprintf(why, wn, "%s", ord ? "this build has kernels for CZ_CUDA_ARCH=90 only: rebuild with -DCZ_CUDA_ARCH=89" : "");
    return ord ? CZ_EUNSUPPORTED : 0;
}
static char check_out[4096];
static void check_line(void *ctx, const char *text) {
    (void)ctx;
    size_t k = strlen(check_out);
    snprintf(check_out + k, sizeof check_out - k, "%s\n", text);
}
static int check_with(const cz_gpu_provider *p, const char *backend, int ndev, int dev0) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.backend, sizeof cfg.backend, "%s", backend);
    cfg.ndevices = ndev, cfg.devices[0] = dev0;
    cz_backend_set_gpu_provider(p);
    check_out[0] = 0;
    const int rc = cz_backend_check(&cfg, check_line, NULL);
    cz_backend_set_gpu_provider(NULL);
    return rc;
}

static void backend_check(void) {
    cz_log_set_level("error"); /* cz_backend_pick_devices' warning about the skipped sm_89 GPU */
    const cz_gpu_provider none = {no_devices, fake_gpu_init, no_driver_why, NULL},
                          three = {three_devices, fake_gpu_init, NULL, fake_peek};
    CHECK(check_with(NULL, "auto", 0, 0) == 0 && strstr(check_out, "this build has no CUDA: proofs on the CPU"));
    CHECK(check_with(NULL, "gpu", 0, 0) == 1 && strstr(check_out, "gpus.backend = \"gpu\" would not start"));
    CHECK(check_with(&three, "cpu", 0, 0) == 0 && strstr(check_out, "no GPU used") && !strstr(check_out, "GPU 0"));
    CHECK(check_with(&none, "auto", 0, 0) == 0 && strstr(check_out, "no CUDA device found (cudaErrorInsufficientDriver"));
    CHECK(check_with(&none, "auto", 1, 0) == 1 && strstr(check_out, "but gpus.devices lists GPUs"));
    /* every GPU described; the ruled-out one skipped, the unqueried one left to the open */
    CHECK_MSG(check_with(&three, "auto", 0, 0) == 0 && strstr(check_out, "  GPU 0: Fake H200, 132 SMs") &&
                  strstr(check_out, "  GPU 1: Fake RTX 4090, 128 SMs, 23.6 GiB, sm_89: not usable, this build has "
                                    "kernels for CZ_CUDA_ARCH=90 only") &&
                  strstr(check_out, "  GPU 2: GPU 2 cannot be queried") &&
                  strstr(check_out, "gpus: proofs on 2 of 3 GPU(s) (0, 2), 2 worker(s) each"),
              "%s", check_out);
    /* gpus.devices naming the ruled-out GPU or a missing one: the daemon would prove on the CPU (auto) or not start */
    CHECK_MSG(check_with(&three, "auto", 1, 1) == 1 && strstr(check_out, "gpus.devices lists GPU 1, which cannot be used") &&
                  strstr(check_out, "the daemon would prove on the CPU"),
              "%s", check_out);
    CHECK(check_with(&three, "gpu", 1, 5) == 1 && strstr(check_out, "lists GPU 5 but 3 CUDA device(s) exist") &&
          strstr(check_out, "the daemon would not start"));
    CHECK(check_with(&three, "gpu", 1, 0) == 0 && strstr(check_out, "gpus: proofs on 1 of 3 GPU(s) (0)"));
    cz_log_set_level("info");
}

static void backend_selection(void) {
    cz_config cfg;
    cz_config_defaults(&cfg);
    cz_backend b;
    cz_backend_set_gpu_provider(NULL);
    CHECK(cz_backend_select(&b, &cfg, 1) == 0 && !strcmp(b.name, "cpu") && b.ndevices == 0);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    CHECK(cz_backend_select(&b, &cfg, 1) == CZ_EUNSUPPORTED && strstr(cz_error_message(), "no CUDA"));
    cz_gpu_provider none = {no_devices, fake_gpu_init, NULL, NULL}, noinit = {two_devices, NULL, NULL, NULL},
                    full = {two_devices, fake_gpu_init, NULL, NULL};
    cz_backend_set_gpu_provider(&none);
    CHECK(cz_backend_select(&b, &cfg, 1) == CZ_EUNSUPPORTED && strstr(cz_error_message(), "no CUDA device"));
    cz_gpu_provider nodriver = {no_devices, fake_gpu_init, no_driver_why, NULL};
    cz_backend_set_gpu_provider(&nodriver); /* the driver's reason in the startup error */
    CHECK(cz_backend_select(&b, &cfg, 1) == CZ_EUNSUPPORTED &&
          strstr(cz_error_message(), "no CUDA device found (cudaErrorInsufficientDriver: CUDA driver version"));
    cz_backend_set_gpu_provider(&noinit);
    CHECK(cz_backend_select(&b, &cfg, 1) == CZ_EUNSUPPORTED && strstr(cz_error_message(), "GPU prover"));
    snprintf(cfg.backend, sizeof cfg.backend, "auto");
    CHECK(cz_backend_select(&b, &cfg, 1) == 0 && !strcmp(b.name, "cpu"));
    cz_backend_set_gpu_provider(&full);
    CHECK(cz_backend_select(&b, &cfg, 1) == 0 && !strcmp(b.name, "fake-gpu") && b.ndevices == 2);
    snprintf(cfg.backend, sizeof cfg.backend, "cpu");
    CHECK(cz_backend_select(&b, &cfg, 1) == 0 && !strcmp(b.name, "cpu"));
    /* The engine with two devices x 2 workers: 4 prover workers, device locks; proofs still verify. */
    snprintf(cfg.backend, sizeof cfg.backend, "auto");
    cfg.param_cache[0] = 0;
    cfg.test_circuit = true;
    cfg.gpu_workers_per_device = 2;
    cz_log_set_level("warn");
    cz_engine *e;
    CHECK(cz_engine_new(&e, &cfg) == 0);
    cz_engine_status st;
    CHECK(cz_engine_status_get(e, &st) == 0 && !strcmp(st.backend, "fake-gpu") && st.n_workers == 4);
    /* the devices by CUDA ordinal, workers 0,1 on device 0 (ordinal 3) and 2,3 on device 1 (ordinal 5) */
    CHECK(st.n_gpus == 2 && st.gpus[0].ordinal == 3 && st.gpus[1].ordinal == 5 &&
          !strcmp(st.gpus[1].name, "Fake \"GPU\" 5") && st.gpus[1].vram_free == 11ull << 30 &&
          st.gpus[1].resident_circuits == 2 && st.gpus[0].circuit_uploads == 7);
    CHECK(st.workers[1].gpu_ordinal == 3 && st.workers[1].device == 0 && st.workers[2].gpu_ordinal == 5 &&
          st.workers[3].device == 1);
    cz_engine_status_free(&st);
    char *mt = cz_engine_metrics(e);
    CHECK(mt && strstr(mt, "cuzk_gpu_devices 2\n") &&
          strstr(mt, "cuzk_gpu_info{ordinal=\"5\",name=\"Fake \\\"GPU\\\" 5\"} 1\n") &&
          strstr(mt, "cuzk_gpu_vram_free_bytes{ordinal=\"3\"} 10737418240\n") &&
          strstr(mt, "cuzk_gpu_resident_circuits{ordinal=\"5\"} 2\n") &&
          strstr(mt, "cuzk_gpu_circuit_uploads_total{ordinal=\"3\"} 7\n"));
    free(mt);
    cz_submit sb = {0};
    sb.request_id = "gpu-seam", sb.kind = CZ_KIND_POREP, sb.sector_size = 2048;
    sb.vanilla = (const uint8_t *)"seam", sb.vanilla_len = 4;
    char id[CZ_JOB_ID_MAX];
    uint32_t q;
    cz_result r;
    CHECK(cz_engine_submit(e, &sb, id, &q) == 0 && cz_engine_await(e, id, 0, &r) == 0 && r.status == CZ_JOB_COMPLETED);
    cz_result_free(&r);
    cz_engine_free(e);
    cz_backend_set_gpu_provider(NULL);
    snprintf(cfg.backend, sizeof cfg.backend, "bogus");
    CHECK(cz_config_load_text(&cfg, "[gpus]\nbackend = \"tpu\"\n", "t.toml") == CZ_EFORMAT);
    cz_log_set_level("info");
}

/* cz_sched_synth_team against its definition, every input in a box, and the burst it gives a 32 GiB PoRep on an
 * idle one-GPU host (pool 14) and once the device is fed (the even split of session 42: 2, 2, 2, 2, 1, ...) */
static void synth_team_policy(void) {
    int bad = 0, cases = 0;
    for (int ndev = 1; ndev <= 4; ndev++)
        for (int ahead = 0; ahead <= 12; ahead++)
            for (int want = 1; want <= 20; want++)
                for (int fr = -2; fr <= 40; fr++) {
                    const int t = cz_sched_synth_team(fr, want, ahead, ndev), hi = fr > 1 ? fr : 1;
                    int ways = ahead < ndev ? ndev - ahead : ahead < 2 * ndev ? 2 : want;
                    if (ways > want) ways = want;
                    const int expect = fr <= 1 ? 1 : (fr + ways - 1) / ways;
                    cases++;
                    bad += t < 1 || t > hi || t != expect;
                    /* never less than the even split; past the dry devices, more ahead never gives a bigger team;
                     * a lone one gets every free thread */
                    if (t < (fr <= 1 ? 1 : (fr + want - 1) / want)) bad++;
                    if (ahead >= ndev && t > cz_sched_synth_team(fr, want, ahead - 1, ndev)) bad++;
                    if (want == 1 && t != hi) bad++;
                    if (ahead >= 2 * ndev && t != (fr <= 1 ? 1 : (fr + want - 1) / want)) bad++;
                }
    CHECK_MSG(bad == 0, "cz_sched_synth_team: %d of %d cases off its definition", bad, cases);
    /* a burst of ten partitions starting one after another (each counted ahead of the next), pool 14, one device */
    int teams[10], fr = 14, n = 0, ahead = 0;
    while (n < 10 && fr >= 1) {
        const int want = 10 - n < 18 - n ? 10 - n : 18 - n;
        teams[n] = cz_sched_synth_team(fr, want, ahead++, 1);
        fr -= teams[n++];
    }
    CHECK_MSG(n == 1 && teams[0] == 14, "idle device: the burst's first team %d, %d started", teams[0], n);
    /* its first partition done and queued, the device busy with it: the second takes half, the rest split */
    fr = 14, n = 0, ahead = 1;
    int sum = 0;
    while (n < 9 && fr >= 1) {
        teams[n] = cz_sched_synth_team(fr, 9 - n, ahead++, 1);
        fr -= teams[n], sum += teams[n++];
    }
    CHECK_MSG(teams[0] == 7 && sum == 14, "one ahead: teams %d then ..., %d threads in all", teams[0], sum);
    /* the devices fed (two ahead of each): session 42's even split, the whole pool in small teams */
    static const int even[10] = {2, 2, 2, 2, 1, 1, 1, 1, 1, 1};
    fr = 14, sum = 0;
    int off = 0;
    for (int i = 0; i < 10; i++) {
        const int t = cz_sched_synth_team(fr, 10 - i, 2 + i, 1);
        off += t != even[i], fr -= t, sum += t;
    }
    CHECK_MSG(off == 0 && sum == 14, "fed device: %d teams off the even split, %d threads in all", off, sum);
    /* two devices, both dry: the first two partitions split the pool between them */
    CHECK(cz_sched_synth_team(14, 10, 0, 2) == 7 && cz_sched_synth_team(7, 9, 1, 2) == 7);
    printf("cz_sched_synth_team: %d cases\n", cases);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    sched_random(&rng);
    synth_team_policy();
    priorities_and_registry();
    srs_manager();
    porep_hooks();
    device_picking();
    backend_selection();
    backend_check();
    engine_in_process();
    job_retention();
    return cz_test_finish();
}
