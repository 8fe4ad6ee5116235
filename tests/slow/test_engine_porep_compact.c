/* A real 2 KiB PoRep partition (the gpuproxy 2KiB.json C1 when the fixtures are there, else a C1 sealed
 * here from a fresh seed) proven through the in-process engine on both witness paths, with a seeded
 * setup of porep-2k in a temporary cache:
 * - compact (the default): a recording GPU-like backend (start_compact, no host expansion) gets the
 *   compact witness and proves it with the CPU backend's start_compact; beside it the CPU backend's
 *   start() proves the dense hook's witness, and the two pendings (all five MSM results) must be equal.
 *   Inside start the engine's budget must be SRS + partition_mem - dense witness + compact witness (the
 *   refund), and the job must be COMPLETED (the engine verifies the proof against the public inputs
 *   derived from the C1 before it answers);
 * - dense (CUZK_COMPACT_WITNESS=0, the CPU backend): COMPLETED too, start() getting the dense witness.
 * Slow: the seeded setup of the 2.7 M-constraint circuit and three CPU proofs take minutes on 2 cores. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/backend.h"
#include "engine/circuit.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "engine/witness.h"
#include "filecoin/c1.h"
#include "filecoin/synth.h"
#include "groth16/prover.h"

static cz_backend cpu_be;
static cz_engine *g_engine;
static cz_witness g_dense; /* the dense hook's witness of the partition */
static struct {
    int compact_calls, dense_calls;
    bool same_pending, budget_ok;
    uint64_t budget, want, compact_bytes;
} seen;

static bool same_pending(const cz_groth16_pending *a, const cz_groth16_pending *b) {
    return cz_g1_jac_equal(&a->a_ans, &b->a_ans) && cz_g1_jac_equal(&a->b1_ans, &b->b1_ans) &&
           cz_g2_jac_equal(&a->b2_ans, &b->b2_ans) && cz_g1_jac_equal(&a->h_msm, &b->h_msm) &&
           cz_g1_jac_equal(&a->l_msm, &b->l_msm);
}

static int rec_start(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r, const cz_fr *inputs,
                     const cz_fr *aux, void **pending) {
    (void)b;
    seen.dense_calls++;
    return cpu_be.start(&cpu_be, dev, p, r, inputs, aux, pending);
}

static int rec_start_compact(cz_backend *b, int dev, const cz_groth16_params *p, const cz_r1cs *r,
                             const cz_fr *inputs, const cz_wcompact *aux, void **pending) {
    (void)b;
    seen.compact_calls++;
    cz_engine_status st;
    if (!cz_engine_status_get(g_engine, &st)) {
        uint64_t srs = 0;
        for (size_t i = 0; i < st.n_srs; i++)
            if (st.srs[i].tier == CZ_TIER_HOT) srs += st.srs[i].size_bytes;
        const cz_circuit *c = cz_circuit_find("porep-2k");
        seen.compact_bytes = r->num_inputs * 32 + cz_wcompact_bytes(aux);
        seen.budget = st.budget_used;
        uint64_t charge = c->partition_mem < st.budget_total ? c->partition_mem : st.budget_total;
        seen.want = srs + charge - (r->num_inputs + r->num_aux) * 32 + seen.compact_bytes;
        seen.budget_ok = st.budget_used == seen.want && st.witness_bytes == seen.compact_bytes;
        cz_engine_status_free(&st);
    }
    void *pd = NULL;
    int rc = cpu_be.start(&cpu_be, dev, p, r, g_dense.inputs, g_dense.aux, &pd);
    if (!rc) rc = cpu_be.start_compact(&cpu_be, dev, p, r, inputs, aux, pending);
    seen.same_pending = !rc && pd && same_pending(pd, *pending);
    if (pd) cpu_be.discard(&cpu_be, pd);
    return rc;
}

static int one_device(void) { return 1; }
static int rec_init(cz_backend *b, const cz_config *cfg, int nthreads) {
    (void)cfg;
    cz_backend_cpu_init(&cpu_be, nthreads);
    cz_backend_cpu_init(b, nthreads);
    b->name = "recorder";
    b->ndevices = 1;
    b->start = rec_start;
    b->start_compact = rec_start_compact;
    b->compact_expands = false; /* like the GPU: the engine refunds the dense witness */
    return 0;
}

static int prove(const cz_config *cfg, const cz_submit *s, const char *what) {
    cz_engine *e;
    int rc = cz_engine_new(&e, cfg);
    CHECK_MSG(rc == 0, "%s: engine: %s", what, cz_error_message());
    if (rc) return rc;
    g_engine = e;
    char jid[CZ_JOB_ID_MAX];
    uint32_t q;
    cz_result r;
    rc = cz_engine_submit(e, s, jid, &q);
    CHECK_MSG(rc == 0, "%s: submit: %s", what, cz_error_message());
    if (!rc && cz_engine_await(e, jid, 0, &r) == 0) {
        CHECK_MSG(r.status == CZ_JOB_COMPLETED && r.proof_len == 192, "%s: status %d, %zu bytes, %s", what, r.status,
                  r.proof_len, r.error);
        printf("%s: srs %llu ms, synthesis %llu ms, prove+verify %llu ms, total %llu ms\n", what,
               (unsigned long long)r.srs_load_ms, (unsigned long long)r.synthesis_ms,
               (unsigned long long)r.gpu_compute_ms, (unsigned long long)r.total_ms);
        rc = r.status == CZ_JOB_COMPLETED ? 0 : CZ_EVERIFY;
        cz_result_free(&r);
    }
    cz_engine_free(e);
    g_engine = NULL;
    return rc;
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    char path[1024];
    size_t len = 0;
    char *json = cz_test_read_fixture("ipfs-force-community+gpuproxy/2KiB.json", path, sizeof path, &len);
    cz_c1 c1;
    const char *what = "gpuproxy 2KiB.json";
    const bool json_is_fixture = json != NULL; /* miner f01001's sector 0 */
    if (!json) {
        what = "sealed 2 KiB C1";
        printf("%s not readable: proving a C1 sealed here instead\n", path);
        CHECK(cz_porep_sealed_c1(&c1, 5, cz_rng_next(&rng), 1000, 1) == 0);
        CHECK(cz_c1_to_json(&c1, &json, &len) == 0);
        cz_c1_free(&c1);
    }
    if (!json) return cz_test_finish();
    CHECK(cz_c1_parse(&c1, json, len) == 0);
    printf("proving partition 0 of the %s\n", what);
    cz_submit s = {0};
    s.kind = CZ_KIND_POREP, s.sector_size = 2048, s.registered_proof = c1.proof_id;
    s.miner_id = json_is_fixture ? 1001 : 1000, s.sector_number = json_is_fixture ? 0 : 1; /* the C1's sector */
    s.vanilla = (const uint8_t *)json, s.vanilla_len = len;
    cz_c1_free(&c1);
    /* the dense witness, for the pending comparison */
    const cz_circuit *c = cz_circuit_find("porep-2k");
    void *st = NULL;
    CHECK(c->prepare(c, &s, &st) == 0);
    CHECK(cz_witness_synthesize(c, st, 0, false, &g_dense) == 0);
    c->release(c, st);

    char dir[] = "/tmp/cz-compact-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    cz_config cfg;
    cz_config_defaults(&cfg);
    snprintf(cfg.param_cache, sizeof cfg.param_cache, "%s", dir);
    cfg.gpu_workers_per_device = 1;
    cz_log_set_level("warn");
    unsetenv("CUZK_COMPACT_WITNESS");

    cz_gpu_provider prov = {one_device, rec_init, NULL, NULL};
    cz_backend_set_gpu_provider(&prov);
    snprintf(cfg.backend, sizeof cfg.backend, "gpu");
    s.request_id = "compact";
    prove(&cfg, &s, "compact witness (recording backend)");
    CHECK_MSG(seen.compact_calls == 1 && seen.dense_calls == 0, "start_compact %d, start %d", seen.compact_calls,
              seen.dense_calls);
    CHECK_MSG(seen.same_pending, "start_compact(compact witness) == start(dense witness): all five MSMs");
    CHECK_MSG(seen.budget_ok, "budget inside start %llu, want SRS + partition_mem - dense + compact = %llu",
              (unsigned long long)seen.budget, (unsigned long long)seen.want);
    printf("witness: dense %llu B, compact %llu B\n", (unsigned long long)cz_witness_dense_bytes(&g_dense),
           (unsigned long long)seen.compact_bytes);

    cz_backend_set_gpu_provider(NULL);
    snprintf(cfg.backend, sizeof cfg.backend, "cpu");
    setenv("CUZK_COMPACT_WITNESS", "0", 1);
    s.request_id = "dense";
    prove(&cfg, &s, "dense witness (cpu backend)");
    unsetenv("CUZK_COMPACT_WITNESS");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    cz_witness_free(&g_dense);
    free(json);
    return cz_test_finish();
}
