/* A real SnapDeals 2 KiB proof through the in-process engine (src/engine/circuit_snap.c): a synthetic
 * updated sector from a fresh seed, its one bincode PartitionProof and the three commitments as Curio
 * sends them; the snap-2k circuit (1.7 M constraints) gets a seeded setup in a temporary cache. The job
 * must be COMPLETED with one 192-byte proof, which the engine verifies against the public inputs derived
 * from the request before it answers; a resubmission under the same request_id with another comm_r_new
 * is refused (dedup covers the commitments). Slow: the seeded setup and the CPU prover take minutes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/config.h"
#include "engine/engine.h"
#include "engine/log.h"
#include "filecoin/snap_vanilla.h"
#include "util/rng.h"

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    cz_snap_sector sec;
    int rc = cz_snap_synthetic_sector(&sec, 2048, 1, cz_rng_next(&rng));
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) return cz_test_finish();
    cz_snap_partition_proof pp;
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK(cz_snap_sector_partition_proof(&pp, &sec, 0) == 0);
    CHECK(cz_snap_partition_proof_encode(&pp, &sec.p, &buf, &len) == 0);
    cz_snap_partition_proof_free(&pp);
    uint8_t ro[32], rn[32], dn[32];
    cz_fr_to_bytes_le(ro, &sec.comm_r_old);
    cz_fr_to_bytes_le(rn, &sec.comm_r_new);
    cz_fr_to_bytes_le(dn, &sec.comm_d_new);
    const uint8_t *vp[1] = {buf};
    size_t vl[1] = {len};
    cz_submit s = {0};
    s.request_id = "snap-1000-1";
    s.kind = CZ_KIND_SNAP, s.sector_size = 2048, s.registered_proof = 0;
    s.n_vanillas = 1, s.vanillas = vp, s.vanilla_lens = vl;
    s.comm_r_old = ro, s.comm_r_new = rn, s.comm_d_new = dn;
    s.comm_r_old_len = s.comm_r_new_len = s.comm_d_new_len = 32;
    s.miner_id = 1000, s.sector_number = 1;

    char dir[] = "/tmp/cz-snap-XXXXXX";
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
    rc = cz_engine_submit(e, &s, jid, &q);
    CHECK_MSG(rc == 0, "submit: %s", cz_error_message());
    if (!rc && cz_engine_await(e, jid, 0, &r) == 0) {
        CHECK_MSG(r.status == CZ_JOB_COMPLETED && r.proof_len == 192, "SnapDeals 2 KiB: status %d, %zu bytes, %s",
                  r.status, r.proof_len, r.error);
        printf("SnapDeals 2 KiB proof: srs %llu ms, synthesis %llu ms, prove+verify %llu ms, total %llu ms\n",
               (unsigned long long)r.srs_load_ms, (unsigned long long)r.synthesis_ms,
               (unsigned long long)r.gpu_compute_ms, (unsigned long long)r.total_ms);
        cz_result_free(&r);
    }
    uint8_t other[32];
    memcpy(other, rn, 32);
    other[0] ^= 1;
    cz_submit bad = s;
    bad.comm_r_new = other;
    /* same request_id, other comm_r_new: the finished job's id is free again (a Curio retry is a new job), and the
     * request is refused at submit because its vanilla proofs are not of that comm_r_new */
    rc = cz_engine_submit(e, &bad, jid, &q);
    CHECK_MSG(rc == CZ_EINVAL, "other comm_r_new: rc %d %s", rc, cz_error_message());
    printf("other comm_r_new -> %s\n", cz_error_message());
    cz_engine_free(e);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    free(buf);
    cz_snap_sector_free(&sec);
    return cz_test_finish();
}
