/* The full 32 GiB WindowPoSt partition (2349 circuit sectors) built from curio's real vanilla proof
 * (one sector, padded by repetition as upstream does): the parallel witness (126.9 M aux) has the
 * public inputs derived from postpub.json, and every sector's slice satisfies the one-sector R1CS
 * (sectors share no variable but ONE, so this checks the whole partition). Timed. */
#include <time.h>

#include "../unit/post_check.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
    size_t vlen, plen;
    uint8_t *v = pc_fixture("filecoin-project+curio/post.vproof", &vlen);
    char *pub = (char *)pc_fixture("filecoin-project+curio/postpub.json", &plen);
    if (!v || !pub) {
        printf("curio fixture not found: skipped\n");
        return cz_test_finish();
    }
    cz_post_public pp;
    CHECK(cz_post_public_parse(&pp, pub, plen) == 0);
    cz_post_params p;
    cz_post_params_for(&p, CZ_POST_WINDOW, 32ull << 30);
    cz_post_sector_proof sp;
    CHECK(cz_post_sector_proof_parse(&sp, v, vlen, &p) == 0);
    cz_post_sector *secs = malloc(p.sectors * sizeof *secs);
    CHECK(cz_post_partition_sectors(secs, &p, &sp, 1) == 0);
    uint64_t s_in = cz_post_sector_inputs(&p), s_aux = cz_post_sector_aux(&p);
    uint64_t nin = 1 + s_in * p.sectors, naux = s_aux * p.sectors;
    cz_fr *in = malloc(nin * sizeof(cz_fr)), *aux = malloc(naux * sizeof(cz_fr));
    cz_fr *want = malloc((nin - 1) * sizeof(cz_fr));
    CHECK(in && aux && want);
    double t0 = now();
    int rc = cz_post_witness_parallel(&p, secs, in, nin, aux, naux, 0);
    double t1 = now();
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    printf("32 GiB WindowPoSt witness, 2349 sectors: %llu inputs, %llu aux in %.2f s\n",
           (unsigned long long)nin, (unsigned long long)naux, t1 - t0);
    CHECK(cz_post_public_inputs(want, &p, false, pp.randomness, pp.sector_ids, pp.comm_rs, 1, 0) == 0);
    CHECK(memcmp(in + 1, want, (nin - 1) * sizeof(cz_fr)) == 0);
    /* the one-sector R1CS */
    cz_post_params one = p;
    one.sectors = 1;
    cz_cs *cs;
    cz_r1cs r = {0};
    cz_cs_new(&cs, CZ_CS_RECORD);
    CHECK(cz_post_synthesize(cs, &one, NULL) == 0 && cz_cs_finalize(cs) == 0 && cz_cs_take_r1cs(cs, &r) == 0);
    cz_cs_free(cs);
    cz_fr sin[1 + 11];
    sin[0] = CZ_FR_ONE_V;
    unsigned bad = 0;
    for (unsigned i = 0; i < p.sectors; i++) {
        memcpy(sin + 1, in + 1 + s_in * i, s_in * sizeof(cz_fr));
        if (cz_r1cs_check(NULL, &r, sin, aux + s_aux * i, 1)) bad++;
    }
    CHECK_MSG(bad == 0, "%u sectors unsatisfied", bad);
    printf("all 2349 sector slices satisfy the one-sector R1CS (%.2f s)\n", now() - t1);
    cz_r1cs_free(&r);
    free(in), free(aux), free(want), free(secs);
    cz_post_sector_proof_free(&sp);
    cz_post_public_free(&pp);
    free(v), free(pub);
    return cz_test_finish();
}
