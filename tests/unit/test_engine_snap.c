/* SnapDeals in the engine (src/engine/circuit_snap.c) on a synthetic 2 KiB updated sector
 * (cz_snap_synthetic_sector: fresh random old replica, comm_c and new data from a fresh seed each run),
 * sent as Curio sends it: one bincode PartitionProof per partition plus the raw comm_r_old / comm_r_new /
 * comm_d_new. prepare accepts it and finds h; the witness carries exactly the public inputs derived from
 * the request's public values (k_and_h_select, the three commitments: checked against
 * cz_snap_public_inputs called here on the sector's own values); rejections name what is wrong: a
 * tampered proof byte (the partition), another comm_r_new / comm_d_new / comm_r_old (the partition), a
 * commitment of the wrong length or not a field element, the wrong proof count, a registered_proof of
 * another size or out of range, truncated bincode. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../testutil.h"
#include "cz_error.h"
#include "engine/circuit.h"
#include "engine/engine.h"
#include "filecoin/snap_vanilla.h"
#include "util/rng.h"

static void hooks(const cz_submit *s, const cz_snap_sector *sec) {
    const cz_circuit *c = cz_circuit_find("snap-2k");
    void *st = NULL;
    int rc = c->prepare(c, s, &st);
    CHECK_MSG(rc == 0, "snap-2k prepare: %s", cz_error_message());
    if (rc) return;
    CHECK(c->partitions_of(c, st) == 1);
    cz_fr *in = NULL, *aux = NULL;
    uint64_t ni = 0, na = 0;
    rc = c->synthesize(c, st, 0, &in, &ni, &aux, &na);
    CHECK_MSG(rc == 0, "snap-2k synthesize: %s", cz_error_message());
    if (!rc) {
        cz_fr pub[4], want[4];
        CHECK(ni == 5 && c->public_inputs(c, st, 0, pub, 4) == 0);
        CHECK(cz_snap_public_inputs(want, &sec->p, 0, sec->h, &sec->comm_r_old, &sec->comm_d_new,
                                    &sec->comm_r_new) == 0);
        bool same = true;
        for (int i = 0; i < 4; i++) same &= cz_fr_equal(&pub[i], &in[1 + i]) && cz_fr_equal(&pub[i], &want[i]);
        CHECK_MSG(same, "snap-2k: 4 public inputs from the request == the witness's == the sector's");
        CHECK(cz_fr_equal(&in[2], &sec->comm_r_old) && cz_fr_equal(&in[3], &sec->comm_d_new) &&
              cz_fr_equal(&in[4], &sec->comm_r_new));
        CHECK(c->public_inputs(c, st, 0, pub, 3) == CZ_ERANGE && c->public_inputs(c, st, 1, pub, 4) == CZ_ERANGE);
        CHECK(c->synthesize(c, st, 1, &in, &ni, &aux, &na) == CZ_ERANGE);
        printf("snap-2k: %llu inputs, %llu aux\n", (unsigned long long)ni, (unsigned long long)na);
    }
    free(in), free(aux);
    c->release(c, st);
}

static void expect_reject(const cz_submit *s, const char *w1, const char *w2) {
    const cz_circuit *c = cz_circuit_find("snap-2k");
    void *st = NULL;
    int rc = c->prepare(c, s, &st);
    CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), w1) && (!w2 || strstr(cz_error_message(), w2)),
              "snap-2k rejects (%s): rc %d %s", w1, rc, cz_error_message());
    if (!rc) c->release(c, st);
}

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
    uint8_t ro[32], rn[32], dn[32], bad[32];
    cz_fr_to_bytes_le(ro, &sec.comm_r_old);
    cz_fr_to_bytes_le(rn, &sec.comm_r_new);
    cz_fr_to_bytes_le(dn, &sec.comm_d_new);

    const uint8_t *vp[2] = {buf, buf};
    size_t vl[2] = {len, len};
    cz_submit s = {0};
    s.kind = CZ_KIND_SNAP, s.sector_size = 2048, s.registered_proof = 0;
    s.n_vanillas = 1, s.vanillas = vp, s.vanilla_lens = vl;
    s.comm_r_old = ro, s.comm_r_new = rn, s.comm_d_new = dn;
    s.comm_r_old_len = s.comm_r_new_len = s.comm_d_new_len = 32;
    hooks(&s, &sec);

    cz_submit t = s;
    t.registered_proof = 3; /* 32 GiB */
    expect_reject(&t, "registered_proof 3", "34359738368");
    t.registered_proof = 5;
    expect_reject(&t, "registered_proof 5", "0-4");
    t = s, t.n_vanillas = 2;
    expect_reject(&t, "2 vanilla proofs", "exactly 1");
    t = s, t.n_vanillas = 0;
    expect_reject(&t, "no vanilla_proofs", NULL);
    /* another commitment: the partition does not verify */
    cz_fr other;
    cz_fr_random(&other, &rng);
    cz_fr_to_bytes_le(bad, &other);
    t = s, t.comm_r_new = bad;
    expect_reject(&t, "vanilla_proofs[0] (partition 0) does not verify", NULL);
    t = s, t.comm_d_new = bad;
    expect_reject(&t, "vanilla_proofs[0] (partition 0) does not verify", NULL);
    t = s, t.comm_r_old = bad;
    expect_reject(&t, "vanilla_proofs[0] (partition 0) does not verify", NULL);
    t = s, t.comm_d_new_len = 31;
    expect_reject(&t, "comm_d_new must be 32 bytes", NULL);
    t = s, t.comm_r_old = NULL, t.comm_r_old_len = 0;
    expect_reject(&t, "comm_r_old must be 32 bytes", NULL);
    memset(bad, 0xff, 32);
    t = s, t.comm_r_new = bad;
    expect_reject(&t, "comm_r_new is not a field element", NULL);
    /* a tampered byte in a random challenge's leaf / path (after comm_c and the apex leaves) */
    uint8_t *tam = malloc(len);
    memcpy(tam, buf, len);
    size_t at = 32 + 8 + 8 * 32 + cz_rng_next(&rng) % (len - 32 - 8 - 8 * 32);
    tam[at] ^= (uint8_t)(1u << (cz_rng_next(&rng) % 6)); /* low bits: stays a field element when aligned */
    const uint8_t *tp[1] = {tam};
    t = s, t.vanillas = tp;
    const cz_circuit *c = cz_circuit_find("snap-2k");
    void *st = NULL;
    rc = c->prepare(c, &t, &st);
    CHECK_MSG(rc == CZ_EINVAL && strstr(cz_error_message(), "vanilla_proofs[0]"), "tampered byte %zu: rc %d %s", at,
              rc, cz_error_message());
    if (!rc) c->release(c, st);
    /* truncated bincode */
    size_t short_len[1] = {len - 1};
    t = s, t.vanilla_lens = short_len;
    expect_reject(&t, "vanilla_proofs[0] (partition 0)", NULL);
    free(tam);
    free(buf);
    cz_snap_sector_free(&sec);
    return cz_test_finish();
}
