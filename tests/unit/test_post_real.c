/* PoSt on real data nobody here produced.
 * 1. curio's 32 GiB WindowPoSt vanilla proof (lib/proof/testgolden/post.vproof) with its public info
 *    (postpub.json): parses as a bincode FallbackPoStSectorProof, re-encodes to the same bytes, its
 *    sector id and comm_r equal the public info's (SealedCID), every Merkle path verifies against
 *    comm_r_last, comm_r = Poseidon(comm_c, comm_r_last), and the opened leaves are exactly the
 *    challenges derived from the public randomness. The circuit (reduced to 2 sectors: the proof
 *    and its padding copy; the full 2349-sector partition is tests/slow/test_post_full.c) is
 *    satisfied in witness mode and its public inputs equal the ones derived from postpub.json.
 * 2. venus' two pre-sealed 2 KiB replicas: tree_r_last rebuilt from the sealed bytes equals p_aux's
 *    comm_r_last, Poseidon(comm_c, comm_r_last) = the CommR CIDs of pre-seal-t0106.json; vanilla
 *    proofs for fresh random randomness give a satisfied 2-sector WindowPoSt and 66-challenge
 *    WinningPoSt with public inputs derived independently from (randomness, sector ids, CIDs).
 * 3. Bad inputs: truncations, a trailing byte, the wrong sector size, a wrong enum tag, an
 *    out-of-field hash, a damaged sibling, a wrong randomness: each fails with its code. */
#include "post_check.h"

static char *b64(const uint8_t *in, size_t n) {
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc(4 * ((n + 2) / 3) + 1), *q = o;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v =
            (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        *q++ = a[v >> 18], *q++ = a[(v >> 12) & 63];
        *q++ = i + 1 < n ? a[(v >> 6) & 63] : '=';
        *q++ = i + 2 < n ? a[v & 63] : '=';
    }
    *q = 0;
    return o;
}

/* cuzk-bench's --vanilla: the raw file as one proof, or a JSON array of base64 proofs */
static void test_list(const uint8_t *v, size_t vlen) {
    cz_vanilla_blob *b;
    unsigned n;
    CHECK(cz_vanilla_list_parse(&b, &n, v, vlen) == 0 && n == 1 && b[0].len == vlen &&
          !memcmp(b[0].p, v, vlen));
    free(b);
    char *e = b64(v, vlen);
    size_t el = strlen(e);
    char *js = malloc(2 * el + 16);
    int jl = sprintf(js, " [\"%s\", \"%s\"]", e, e);
    CHECK(cz_vanilla_list_parse(&b, &n, (uint8_t *)js, (size_t)jl) == 0 && n == 2);
    if (n == 2) CHECK(b[1].len == vlen && !memcmp(b[1].p, v, vlen) && !memcmp(b[0].p, v, vlen));
    free(b);
    jl = sprintf(js, "[\"%s\", 5]", e);
    CHECK(cz_vanilla_list_parse(&b, &n, (uint8_t *)js, (size_t)jl) == CZ_EFORMAT);
    jl = sprintf(js, "[\"@@@@\"]");
    CHECK(cz_vanilla_list_parse(&b, &n, (uint8_t *)js, (size_t)jl) == CZ_EFORMAT);
    CHECK(cz_vanilla_list_parse(&b, &n, (uint8_t *)"[]", 2) == 0 && n == 0);
    free(b);
    free(e), free(js);
}

static void test_curio(void) {
    size_t vlen = 0, plen = 0;
    uint8_t *v = pc_fixture("filecoin-project+curio/post.vproof", &vlen);
    char *pub = (char *)pc_fixture("filecoin-project+curio/postpub.json", &plen);
    if (!v || !pub) {
        printf("curio PoSt fixture not found (set CZ_FIXTURES_DIR): skipped\n");
        free(v), free(pub);
        return;
    }
    cz_post_public pp;
    CHECK_MSG(cz_post_public_parse(&pp, pub, plen) == 0, "%s", cz_error_message());
    CHECK(pp.nsectors == 1 && pp.sector_ids[0] == 1 && pp.prover == 1000 && pp.post_proof == 8);
    cz_post_kind kind;
    uint64_t size;
    bool v12;
    CHECK(cz_post_registered(pp.post_proof, &kind, &size, &v12) == 0);
    CHECK(kind == CZ_POST_WINDOW && size == 32ull << 30 && !v12);
    cz_post_params p;
    cz_post_params_for(&p, kind, size);
    cz_post_sector_proof sp;
    int rc = cz_post_sector_proof_parse(&sp, v, vlen, &p);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) goto out;
    CHECK(sp.sector_id == pp.sector_ids[0]);
    CHECK(cz_fr_equal(&sp.comm_r, &pp.comm_rs[0]));
    CHECK(sp.nproofs == 10);
    test_list(v, vlen);
    uint64_t ch[10];
    cz_post_leaf_challenges(ch, &p, v12, pp.randomness, pp.sector_ids[0], 0);
    rc = cz_post_sector_proof_verify(&sp, &p, ch);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    printf("curio 32 GiB WindowPoSt sector %llu: 10 paths verify, challenges",
           (unsigned long long)sp.sector_id);
    for (int i = 0; i < 10; i++) printf(" %llu", (unsigned long long)ch[i]);
    printf("\n");
    /* a different randomness names other leaves */
    uint8_t r2[32];
    memcpy(r2, pp.randomness, 32);
    r2[0] ^= 1;
    uint64_t ch2[10];
    cz_post_leaf_challenges(ch2, &p, v12, r2, pp.sector_ids[0], 0);
    CHECK(cz_post_sector_proof_verify(&sp, &p, ch2) == CZ_EVERIFY);
    /* the V1_2 rule gives the same challenges for sector index 0, another for index 1 */
    cz_post_leaf_challenges(ch2, &p, true, pp.randomness, pp.sector_ids[0], 0);
    CHECK(memcmp(ch, ch2, sizeof ch) == 0);
    cz_post_leaf_challenges(ch2, &p, false, pp.randomness, pp.sector_ids[0], 1);
    CHECK(memcmp(ch, ch2, sizeof ch) != 0);
    /* encode round trip */
    uint8_t *enc = NULL;
    size_t elen = 0;
    CHECK(cz_post_sector_proof_encode(&sp, &p, &enc, &elen) == 0);
    CHECK(elen == vlen && memcmp(enc, v, vlen) == 0);
    free(enc);

    /* the circuit, reduced to 2 sectors (the proof and its padding copy) */
    cz_post_params small = p;
    small.sectors = 2;
    cz_post_sector secs[2];
    CHECK(cz_post_partition_sectors(secs, &small, &sp, 1) == 0);
    cz_fr want[2 * 11];
    CHECK(cz_post_public_inputs(want, &small, v12, pp.randomness, pp.sector_ids, pp.comm_rs, 1, 0) == 0);
    CHECK(cz_fr_equal(&want[11], &want[0]) && cz_fr_equal(&want[21], &want[10]));
    rc = pc_check_circuit(&small, secs, want, true);
    CHECK_MSG(rc == 0, "curio circuit: %d %s", rc, cz_error_message());
    /* the parallel witness writes the same inputs */
    uint64_t naux = cz_post_sector_aux(&small) * 2;
    cz_fr *aux = malloc(naux * sizeof(cz_fr)), in[1 + 22];
    CHECK(cz_post_witness_parallel(&small, secs, in, 23, aux, naux, 2) == 0);
    for (int i = 0; i < 22; i++) CHECK(cz_fr_equal(&in[1 + i], &want[i]));
    CHECK(cz_post_witness_parallel(&small, secs, in, 22, aux, naux, 2) == CZ_ERANGE);
    free(aux);

    /* bad inputs */
    cz_post_sector_proof bad;
    size_t cuts[] = {0, 7, 8, 40, 100, 333, vlen / 2, vlen - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        CHECK_MSG(cz_post_sector_proof_parse(&bad, v, cuts[i], &p) == CZ_EFORMAT, "cut %zu", cuts[i]);
    uint8_t *x = malloc(vlen + 1);
    memcpy(x, v, vlen);
    x[vlen] = 0;
    CHECK(cz_post_sector_proof_parse(&bad, x, vlen + 1, &p) == CZ_EFORMAT);
    cz_post_params p2k, p64;
    cz_post_params_for(&p2k, CZ_POST_WINDOW, 2048);
    cz_post_params_for(&p64, CZ_POST_WINDOW, 64ull << 30);
    CHECK(cz_post_sector_proof_parse(&bad, v, vlen, &p2k) == CZ_EFORMAT);
    printf("2 KiB params on the 32 GiB proof: %s\n", cz_error_message());
    CHECK(cz_post_sector_proof_parse(&bad, v, vlen, &p64) == CZ_EFORMAT);
    printf("64 GiB params on the 32 GiB proof: %s\n", cz_error_message());
    /* inclusion proof 0 starts at byte 56: tag u32; a wrong tag */
    memcpy(x, v, vlen);
    x[56] = 7;
    CHECK(cz_post_sector_proof_parse(&bad, x, vlen, &p) == CZ_EFORMAT);
    /* its first sibling (bytes 76..107): all 0xff is not a field element; a flipped bit breaks the path */
    memcpy(x, v, vlen);
    memset(x + 76, 0xff, 32);
    CHECK(cz_post_sector_proof_parse(&bad, x, vlen, &p) == CZ_ERANGE);
    memcpy(x, v, vlen);
    x[80] ^= 1;
    CHECK(cz_post_sector_proof_parse(&bad, x, vlen, &p) == 0);
    CHECK(cz_post_sector_proof_verify(&bad, &p, ch) == CZ_EVERIFY);
    printf("damaged sibling: %s\n", cz_error_message());
    cz_post_sector_proof_free(&bad);
    /* comm_c damaged: comm_r no longer matches */
    memcpy(x, v, vlen);
    x[vlen - 64] ^= 1;
    CHECK(cz_post_sector_proof_parse(&bad, x, vlen, &p) == 0);
    CHECK(cz_post_sector_proof_verify(&bad, &p, ch) == CZ_EVERIFY);
    cz_post_sector_proof_free(&bad);
    free(x);
    /* partition assembly: too many proofs, Winning wants exactly one */
    cz_post_sector_proof many[3] = {sp, sp, sp};
    CHECK(cz_post_partition_sectors(secs, &small, many, 3) == CZ_EINVAL);
    cz_post_sector_proof_free(&sp);
out:
    cz_post_public_free(&pp);
    free(v), free(pub);
}

/* venus pre-sealed 2 KiB sectors t0106 0 and 1 */
static void test_venus(cz_rng *rng) {
    const char *base = "filecoin-project+venus/genesis-sectors";
    char rel[256];
    size_t n;
    snprintf(rel, sizeof rel, "%s/pre-seal-t0106.json", base);
    char *js = (char *)pc_fixture(rel, &n);
    if (!js) {
        printf("venus genesis sectors not found: skipped\n");
        return;
    }
    /* the CommR CIDs, in sector order */
    cz_fr comm_r[2];
    uint64_t ids[2] = {0, 1};
    CHECK(pc_venus_comm_r(js, comm_r) == 0);
    cz_post_params pw, pwin;
    cz_post_params_for(&pw, CZ_POST_WINDOW, 2048);
    cz_post_params_for(&pwin, CZ_POST_WINNING, 2048);
    uint8_t rnd[32];
    cz_rng_bytes(rng, rnd, 32);
    rnd[31] &= 0x3f;
    cz_full_tree trees[2];
    cz_fr comm_c[2];
    cz_post_sector_proof sp[2], win;
    for (int s = 0; s < 2; s++) {
        size_t rl, al;
        snprintf(rel, sizeof rel, "%s/sealed/s-t0106-%d", base, s);
        uint8_t *rep = pc_fixture(rel, &rl);
        snprintf(rel, sizeof rel, "%s/cache/s-t0106-%d/p_aux", base, s);
        uint8_t *paux = pc_fixture(rel, &al);
        CHECK(rep && rl == 2048 && paux && al == 64);
        cz_fr leaves[64], comm_r_last;
        for (int i = 0; i < 64; i++) CHECK(cz_fr_from_bytes_le(&leaves[i], rep + 32 * i) == 0);
        CHECK(cz_fr_from_bytes_le(&comm_c[s], paux) == 0 &&
              cz_fr_from_bytes_le(&comm_r_last, paux + 32) == 0);
        CHECK(cz_full_tree_build(&trees[s], &pw.tree, leaves) == 0);
        CHECK(cz_fr_equal(cz_full_tree_root(&trees[s]), &comm_r_last));
        uint64_t ch[10];
        cz_post_sector_challenges(ch, &pw, true, rnd, ids[s], (uint64_t)s);
        CHECK(cz_post_sector_proof_from_tree(&sp[s], &pw, &trees[s], &comm_c[s], ids[s], ch) == 0);
        CHECK(cz_fr_equal(&sp[s].comm_r, &comm_r[s]));
        CHECK(cz_post_sector_proof_verify(&sp[s], &pw, ch) == 0);
        free(rep), free(paux);
    }
    printf("venus 2 KiB replicas: tree_r_last = p_aux, Poseidon(comm_c, comm_r_last) = CommR for both\n");
    /* WindowPoSt 2 KiB, StackedDrgWindow2KiBV1_1 (V1_2 challenges), through bincode and back */
    cz_post_sector_proof parsed[2];
    for (int s = 0; s < 2; s++) {
        uint8_t *enc;
        size_t elen;
        CHECK(cz_post_sector_proof_encode(&sp[s], &pw, &enc, &elen) == 0);
        CHECK(cz_post_sector_proof_parse(&parsed[s], enc, elen, &pw) == 0);
        free(enc);
    }
    cz_post_sector secs[66];
    cz_fr want[66 * 2];
    CHECK(cz_post_partition_sectors(secs, &pw, parsed, 2) == 0);
    CHECK(cz_post_public_inputs(want, &pw, true, rnd, ids, comm_r, 2, 0) == 0);
    int rc = pc_check_circuit(&pw, secs, want, true);
    CHECK_MSG(rc == 0, "2 KiB WindowPoSt: %d %s", rc, cz_error_message());
    /* swapped sector order: the inputs no longer match */
    cz_post_sector sw[2] = {secs[1], secs[0]};
    CHECK(pc_check_circuit(&pw, sw, want, false) == -102);
    /* WinningPoSt 2 KiB of sector 1 (V1: challenge index = circuit sector) */
    uint64_t wch[66];
    cz_post_sector_challenges(wch, &pwin, false, rnd, ids[1], 0);
    CHECK(cz_post_sector_proof_from_tree(&win, &pwin, &trees[1], &comm_c[1], ids[1], wch) == 0);
    CHECK(cz_post_sector_proof_verify(&win, &pwin, wch) == 0);
    CHECK(cz_post_partition_sectors(secs, &pwin, &win, 1) == 0);
    CHECK(cz_post_public_inputs(want, &pwin, false, rnd, &ids[1], &comm_r[1], 1, 0) == 0);
    rc = pc_check_circuit(&pwin, secs, want, true);
    CHECK_MSG(rc == 0, "2 KiB WinningPoSt: %d %s", rc, cz_error_message());
    CHECK(cz_post_partition_sectors(secs, &pwin, parsed, 2) == CZ_EINVAL);
    cz_post_sector_proof_free(&win);
    for (int s = 0; s < 2; s++) {
        cz_post_sector_proof_free(&sp[s]);
        cz_post_sector_proof_free(&parsed[s]);
        cz_full_tree_free(&trees[s]);
    }
    free(js);
}

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    test_curio();
    test_venus(&rng);
    uint8_t b[32];
    CHECK(cz_commcid_decode(b, NULL, "bafy", 4) == CZ_EFORMAT);
    CHECK(cz_commcid_decode(b, NULL, "xagboea", 7) == CZ_EFORMAT);
    cz_post_public pp;
    CHECK(cz_post_public_parse(&pp, "{\"Randomness\":\"AAAA\"}", 21) == CZ_EFORMAT);
    return cz_test_finish();
}
