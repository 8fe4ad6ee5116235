/* Synthetic PoSt vanilla proofs (what the daemon's bench jobs use): for every sector size and both
 * kinds, the sparse-tree generator answers the real challenges of a fresh random randomness, passes
 * the vanilla verifier, survives a bincode round trip and satisfies the circuit (record|witness
 * mode, reduced to 2 circuit sectors for Window 32/64 GiB; the full Winning circuit of 66 sectors
 * at 2 KiB and 32 GiB). The parallel witness equals the sequential one value for value. */
#include "post_check.h"

static void one(cz_post_kind kind, uint64_t size, unsigned reduce, cz_rng *rng) {
    cz_post_params p;
    CHECK(cz_post_params_for(&p, kind, size) == 0);
    if (reduce) p.sectors = reduce;
    uint8_t rnd[32];
    cz_rng_bytes(rng, rnd, 32);
    rnd[31] &= 0x3f;
    bool v12 = cz_rng_next(rng) & 1;
    unsigned nv = kind == CZ_POST_WINNING ? 1 : p.sectors;
    cz_post_sector_proof sp[4];
    uint64_t ids[4];
    cz_fr comm_r[4];
    uint64_t *ch = malloc(66 * sizeof(uint64_t));
    for (unsigned s = 0; s < nv; s++) {
        ids[s] = cz_rng_next(rng) >> 20;
        int rc = cz_post_synthetic_sector(&sp[s], &p, v12, rnd, ids[s], s, cz_rng_next(rng));
        CHECK_MSG(rc == 0, "%s: %s", p.name, cz_error_message());
        comm_r[s] = sp[s].comm_r;
        cz_post_sector_challenges(ch, &p, v12, rnd, ids[s], s);
        CHECK_MSG(cz_post_sector_proof_verify(&sp[s], &p, ch) == 0, "%s: %s", p.name, cz_error_message());
        uint8_t *enc;
        size_t len;
        cz_post_sector_proof back;
        CHECK(cz_post_sector_proof_encode(&sp[s], &p, &enc, &len) == 0);
        CHECK(cz_post_sector_proof_parse(&back, enc, len, &p) == 0);
        CHECK(back.nproofs == sp[s].nproofs && cz_fr_equal(&back.comm_r, &sp[s].comm_r) &&
              back.proofs[back.nproofs - 1].index == sp[s].proofs[sp[s].nproofs - 1].index);
        cz_post_sector_proof_free(&back);
        free(enc);
    }
    cz_post_sector *secs = malloc(p.sectors * sizeof *secs);
    cz_fr *want = malloc(p.sectors * (1 + p.challenges) * sizeof(cz_fr));
    CHECK(cz_post_partition_sectors(secs, &p, sp, nv) == 0);
    CHECK(cz_post_public_inputs(want, &p, v12, rnd, ids, comm_r, nv, 0) == 0);
    int rc = pc_check_circuit(&p, secs, want, true);
    CHECK_MSG(rc == 0, "%s: %d %s", p.name, rc, cz_error_message());
    /* parallel witness vs sequential */
    uint64_t naux = cz_post_sector_aux(&p) * p.sectors, nin = 1 + cz_post_sector_inputs(&p) * p.sectors;
    cz_fr *aux = malloc(naux * sizeof(cz_fr)), *in = malloc(nin * sizeof(cz_fr));
    CHECK(cz_post_witness_parallel(&p, secs, in, nin, aux, naux, 2) == 0);
    cz_cs *cs;
    cz_cs_new(&cs, CZ_CS_WITNESS);
    CHECK(cz_post_synthesize(cs, &p, secs) == 0);
    cz_fr *sin, *saux;
    uint64_t snin, snaux;
    CHECK(cz_cs_take_witness(cs, &sin, &snin, &saux, &snaux) == 0);
    CHECK(snin == nin && snaux == naux && memcmp(sin, in, nin * sizeof(cz_fr)) == 0 &&
          memcmp(saux, aux, naux * sizeof(cz_fr)) == 0);
    free(sin), free(saux), free(in), free(aux);
    cz_cs_free(cs);
    printf("%-19s synthetic, %u circuit sectors: vanilla ok, circuit satisfied, inputs match\n", p.name,
           p.sectors);
    for (unsigned s = 0; s < nv; s++) cz_post_sector_proof_free(&sp[s]);
    free(secs), free(want), free(ch);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int i = 0; i < 5; i++) one(CZ_POST_WINDOW, sizes[i], i >= 3 ? 2 : 0, &rng);
    one(CZ_POST_WINNING, 2048, 0, &rng);
    one(CZ_POST_WINNING, 32ull << 30, 0, &rng);
    one(CZ_POST_WINNING, 64ull << 30, 3, &rng);
    return cz_test_finish();
}
