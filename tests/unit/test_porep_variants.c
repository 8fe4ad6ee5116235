/* Every registered PoRep kind at 2 KiB, on C1s sealed here in memory (cz_porep_sealed_c1: real
 * labels and full trees over random data): V1_1 (interactive), V1_1_Feat_SyntheticPoRep and
 * V1_2_Feat_NonInteractivePoRep (13 partitions). For each: the C1 holds the proof's partitions, the
 * vanilla verifier accepts every partition with the challenge and graph checks on, the public inputs
 * derived from public values alone are the circuit's, the circuit is satisfied (a random partition;
 * synthetic and NI only), a damaged row breaks it. Negative: the same C1 under another kind's name is rejected, naming the
 * partition and challenge (when, at 2 KiB, the two rules happen to pick the same nodes, the parents: each
 * registered proof's porep_id gives it its own graph).
 * The sparse V1_1 generator and the sealer agree on what a valid C1 is (both verify). */
#include "porep_synth_check.h"

static void check_kind(unsigned proof_id, cz_rng *rng) {
    cz_c1 c1;
    double t0 = ps_now();
    int rc = cz_porep_sealed_c1(&c1, proof_id, cz_rng_next(rng), 1000, 1);
    CHECK_MSG(rc == 0, "sealed %u: %s", proof_id, cz_error_message());
    if (rc) return;
    double tgen = ps_now() - t0;
    cz_porep_kind kind = cz_porep_kind_of(proof_id);
    CHECK(c1.partitions == (kind == CZ_POREP_NI ? 13u : 1u) && c1.challenges == 2);
    for (unsigned k = 0; k < c1.partitions; k++)
        CHECK_MSG(cz_c1_verify(&c1, k, true) == 0, "%s partition %u: %s", c1.registered_proof, k, cz_error_message());
    /* the challenges are the kind's (interactive ones would differ) */
    uint64_t want[2];
    unsigned k = (unsigned)(cz_rng_next(rng) % c1.partitions);
    cz_porep_partition_challenges(want, kind, 2, k, 64, c1.replica_id, c1.comm_r, c1.seed);
    CHECK(c1.ch[2 * k].challenge == want[0] && c1.ch[2 * k + 1].challenge == want[1]);
    /* the same proofs claimed under the other kinds */
    for (unsigned other = 0; other < 3; other++) {
        if (other == (unsigned)kind) continue;
        unsigned keep = c1.proof_id;
        c1.proof_id = 5 + 5 * other; /* 2 KiB V1_1 / Synthetic / NI */
        uint64_t alt[2];
        cz_porep_partition_challenges(alt, (cz_porep_kind)other, 2, 0, 64, c1.replica_id, c1.comm_r, c1.seed);
        cz_fr pub[3 + 36];
        rc = cz_porep_public_inputs(pub, &c1, 0, true);
        bool same = alt[0] == c1.ch[0].challenge && alt[1] == c1.ch[1].challenge;
        /* A 2 KiB sector has 64 nodes, so the other rule's first challenge can coincide (1 in 64); then
         * the check moves on and may stop at that node's parents instead (the NI kind is API 1.2: its
         * porep_id, hence its graph, differs) or at challenge 1's rule. Otherwise challenge 0's rule. Both
         * can coincide too (CI seed 0x54c4c1cc5461aa13: an NI C1 claimed as synthetic): then only the graph
         * tells them apart (every registered proof has its own porep_id, so its own graph: a V1_1 C1 claimed
         * as synthetic stops at challenge 0's parents in that run too). */
        const char *m = cz_error_message();
        bool first = alt[0] != c1.ch[0].challenge;
        CHECK_MSG(same ? rc == CZ_EVERIFY && strstr(m, "partition 0 challenge") && strstr(m, "the graph says")
                       : rc == CZ_EVERIFY && strstr(m, first ? "partition 0 challenge 0:" : "partition 0 challenge") &&
                             (strstr(m, "rule derives") || (!first && strstr(m, "the graph says"))),
                  "%s as kind %u: rc %d %s", c1.registered_proof, other, rc, m);
        if (!same) printf("%s claimed as kind %u -> %s\n", c1.registered_proof, other, cz_error_message());
        c1.proof_id = keep;
    }
    /* the circuit (~3 s CPU) for the new kinds; V1_1 C1s are satisfied in test_porep_c1 / _synth */
    if (kind != CZ_POREP_INTERACTIVE) porep_c1_check(&c1, k, tgen);
    cz_c1_free(&c1);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    check_kind(5, &rng);  /* StackedDrg2KiBV1_1 */
    check_kind(10, &rng); /* StackedDrg2KiBV1_1_Feat_SyntheticPoRep */
    check_kind(15, &rng); /* StackedDrg2KiBV1_2_Feat_NonInteractivePoRep */
    cz_c1 c1;
    CHECK(cz_porep_sealed_c1(&c1, 0, 1, 1000, 1) == CZ_EINVAL);  /* API 1.0: other DRG order, not sealed here */
    CHECK(cz_porep_sealed_c1(&c1, 8, 1, 1000, 1) == CZ_EINVAL);  /* 32 GiB: far too large to seal here */
    CHECK(cz_porep_sealed_c1(&c1, 20, 1, 1000, 1) == CZ_EINVAL);
    return cz_test_finish();
}
