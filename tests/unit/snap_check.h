/* Shared by the SnapDeals tests: one synthetic sector's partitions through bincode, the vanilla
 * verifier and the circuit (record|witness mode, every row checked), with the negative cases. */
#ifndef CZ_TEST_SNAP_CHECK_H
#define CZ_TEST_SNAP_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/snap_vanilla.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static int check_circuit(const cz_snap_params *p, const cz_snap_witness *w, const cz_fr want[4]) {
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    if (!rc) rc = cz_snap_synthesize(cs, p, w);
    if (!rc) rc = cz_cs_finalize(cs);
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL;
    uint64_t nin = 0, naux = 0, bad = 0;
    if (!rc) rc = cz_cs_take_r1cs(cs, &r);
    if (!rc) rc = cz_cs_take_witness(cs, &in, &nin, &aux, &naux);
    if (!rc && (rc = cz_r1cs_check(&bad, &r, in, aux, 1)))
        fprintf(stderr, "row %llu unsatisfied\n", (unsigned long long)bad);
    if (!rc && nin != 5) rc = -100;
    for (int i = 0; i < 4 && !rc; i++)
        if (!cz_fr_equal(&in[1 + i], &want[i])) rc = -101 - i;
    if (!rc) {
        /* the last aux is the last tree_d path's packed root hash: constrained */
        cz_fr_add(&aux[naux - 1], &aux[naux - 1], &CZ_FR_ONE_V);
        if (cz_r1cs_check(NULL, &r, in, aux, 1) != CZ_EVERIFY) rc = -110;
        /* and so is k_and_h_select's first bit (aux 1) */
        cz_fr_sub(&aux[naux - 1], &aux[naux - 1], &CZ_FR_ONE_V);
        cz_fr_add(&aux[1], &aux[1], &CZ_FR_ONE_V);
        if (cz_r1cs_check(NULL, &r, in, aux, 1) != CZ_EVERIFY) rc = -111;
    }
    cz_r1cs_free(&r);
    free(in), free(aux);
    cz_cs_free(cs);
    return rc;
}

/* The partitions of one synthetic sector from first_k on: a random update with full trees (period 0), else an empty
 * update (cz_snap_empty_update_sector) whose old replica repeats with that period. */
static void one_of(uint64_t size, unsigned first_k, uint64_t seed, uint64_t period) {
    cz_snap_sector s;
    int rc = period ? cz_snap_empty_update_sector(&s, size, 1, seed, period)
                    : cz_snap_synthetic_sector(&s, size, 1, seed);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) return;
    const cz_snap_params *p = &s.p;
    for (unsigned k = first_k; k < p->partitions; k++) {
        cz_snap_partition_proof gen, pp;
        CHECK(cz_snap_sector_partition_proof(&gen, &s, k) == 0);
        uint8_t *enc;
        size_t len;
        CHECK(cz_snap_partition_proof_encode(&gen, p, &enc, &len) == 0);
        rc = cz_snap_partition_proof_parse(&pp, enc, len, p);
        CHECK_MSG(rc == 0, "%s", cz_error_message());
        if (rc) {
            free(enc);
            cz_snap_partition_proof_free(&gen);
            continue;
        }
        rc = cz_snap_partition_proof_verify(&pp, p, k, s.h, &s.comm_r_old, &s.comm_d_new, &s.comm_r_new);
        CHECK_MSG(rc == 0, "%s k %u: %s", p->name, k, cz_error_message());
        /* wrong k, h and commitments */
        if (p->partitions > 1)
            CHECK(cz_snap_partition_proof_verify(&pp, p, k ^ 1, s.h, &s.comm_r_old, &s.comm_d_new,
                                                 &s.comm_r_new) == CZ_EVERIFY);
        CHECK(cz_snap_partition_proof_verify(&pp, p, k, 7, &s.comm_r_old, &s.comm_d_new, &s.comm_r_new) ==
              CZ_EINVAL);
        CHECK(cz_snap_partition_proof_verify(&pp, p, k, s.h, &s.comm_r_old, &s.comm_d_new, &s.comm_c) ==
              CZ_EVERIFY);
        CHECK(cz_snap_partition_proof_verify(&pp, p, k, s.h, &s.comm_r_old, &s.comm_c, &s.comm_r_new) ==
              CZ_EVERIFY);
        /* the circuit */
        cz_snap_challenge *chs = malloc(p->challenges * sizeof *chs);
        cz_snap_witness w;
        cz_fr want[4];
        CHECK(cz_snap_witness_from_proof(&w, chs, &pp, p, k, s.h, &s.comm_r_old, &s.comm_d_new,
                                         &s.comm_r_new) == 0);
        CHECK(cz_snap_public_inputs(want, p, k, s.h, &s.comm_r_old, &s.comm_d_new, &s.comm_r_new) == 0);
        rc = check_circuit(p, &w, want);
        CHECK_MSG(rc == 0, "%s k %u circuit: %d %s", p->name, k, rc, cz_error_message());
        printf("%s%s partition %u: vanilla ok, circuit satisfied, inputs match\n", p->name,
               period ? " (empty update)" : "", k);
        /* the parallel witness equals the sequential one value for value */
        {
            uint64_t ta, ca;
            CHECK(cz_snap_shape(p, &ta, &ca) == 0);
            uint64_t naux = ta + ca * p->challenges;
            cz_fr pin[CZ_SNAP_INPUTS], *paux = malloc(naux * sizeof(cz_fr)), *sin, *saux;
            uint64_t snin, snaux;
            CHECK(cz_snap_witness_parallel(p, &w, pin, CZ_SNAP_INPUTS, paux, naux, 2) == 0);
            cz_cs *cs;
            cz_cs_new(&cs, CZ_CS_WITNESS);
            CHECK(cz_snap_synthesize(cs, p, &w) == 0);
            CHECK(cz_cs_take_witness(cs, &sin, &snin, &saux, &snaux) == 0);
            CHECK(snin == CZ_SNAP_INPUTS && snaux == naux && !memcmp(sin, pin, sizeof pin) &&
                  !memcmp(saux, paux, naux * sizeof(cz_fr)));
            CHECK(cz_snap_witness_parallel(p, &w, pin, CZ_SNAP_INPUTS, paux, naux - 1, 2) == CZ_ERANGE);
            /* the compact form (the daemon's default): the same inputs, aux expanding to exactly the dense
             * values, n_dense the count of values outside {0, 1} */
            cz_fr cin[CZ_SNAP_INPUTS], *cexp = NULL;
            cz_wcompact caux;
            cz_wcompact_init(&caux);
            CHECK(cz_snap_witness_compact(p, &w, cin, CZ_SNAP_INPUTS, &caux, 2) == 0);
            uint64_t others = 0;
            for (uint64_t q = 0; q < naux; q++)
                others += !cz_fr_is_zero(&paux[q]) && !cz_fr_equal(&paux[q], &CZ_FR_ONE_V);
            CHECK_MSG(caux.n == naux && caux.n_dense == others && cz_wcompact_expand(&caux, &cexp) == 0 &&
                          !memcmp(cexp, paux, naux * sizeof(cz_fr)) && !memcmp(cin, pin, sizeof pin),
                      "compact snap witness: n %llu / %llu, dense %llu / %llu", (unsigned long long)caux.n,
                      (unsigned long long)naux, (unsigned long long)caux.n_dense, (unsigned long long)others);
            CHECK(cz_snap_witness_compact(p, &w, cin, CZ_SNAP_INPUTS - 1, &caux, 2) == CZ_ERANGE);
            free(cexp);
            cz_wcompact_free(&caux);
            free(sin), free(saux), free(paux);
            cz_cs_free(cs);
        }
        /* a leaf_r_new that is not the encoding is refused before any constraint fails */
        cz_fr_add(&chs[3].leaf_r_new, &chs[3].leaf_r_new, &CZ_FR_ONE_V);
        cz_cs *cs;
        cz_cs_new(&cs, CZ_CS_WITNESS);
        CHECK(cz_snap_synthesize(cs, p, &w) == CZ_EINVAL);
        cz_cs_free(cs);
        {
            uint64_t ta, ca;
            cz_snap_shape(p, &ta, &ca);
            cz_fr pin[CZ_SNAP_INPUTS], *paux = malloc((ta + ca * p->challenges) * sizeof(cz_fr));
            CHECK(cz_snap_witness_parallel(p, &w, pin, CZ_SNAP_INPUTS, paux, ta + ca * p->challenges, 2) ==
                  CZ_EINVAL);
            printf("bad leaf_r_new: %s\n", cz_error_message());
            cz_wcompact caux;
            cz_wcompact_init(&caux);
            CHECK(cz_snap_witness_compact(p, &w, pin, CZ_SNAP_INPUTS, &caux, 2) == CZ_EINVAL);
            cz_wcompact_free(&caux);
            free(paux);
        }
        free(chs);
        /* bad bytes */
        cz_snap_partition_proof bad;
        size_t cuts[] = {0, 31, 32, 40, 100, len / 2, len - 1};
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
            CHECK_MSG(cz_snap_partition_proof_parse(&bad, enc, cuts[i], p) == CZ_EFORMAT, "cut %zu", cuts[i]);
        uint8_t *x = malloc(len + 1);
        memcpy(x, enc, len);
        x[len] = 0;
        CHECK(cz_snap_partition_proof_parse(&bad, x, len + 1, p) == CZ_EFORMAT);
        memset(x, 0xff, 32); /* comm_c out of the field */
        CHECK(cz_snap_partition_proof_parse(&bad, x, len, p) == CZ_ERANGE);
        memcpy(x, enc, len);
        x[len - 40] ^= 4; /* inside the last proof_r_new: a sibling or the root */
        if (cz_snap_partition_proof_parse(&bad, x, len, p) == 0) {
            CHECK(cz_snap_partition_proof_verify(&bad, p, k, s.h, &s.comm_r_old, &s.comm_d_new,
                                                 &s.comm_r_new) == CZ_EVERIFY);
            printf("damaged byte: %s\n", cz_error_message());
            cz_snap_partition_proof_free(&bad);
        }
        free(x);
        cz_snap_params other;
        cz_snap_params_for(&other, size == 2048 ? 8ull << 20 : 2048);
        CHECK(cz_snap_partition_proof_parse(&bad, enc, len, &other) == CZ_EFORMAT);
        printf("wrong sector size: %s\n", cz_error_message());
        free(enc);
        cz_snap_partition_proof_free(&pp);
        cz_snap_partition_proof_free(&gen);
    }
    cz_snap_sector_free(&s);
}
static void one(uint64_t size, unsigned first_k, uint64_t seed) { one_of(size, first_k, seed, 0); }

/* The timing generator (any size): vanilla verifier rejects it; with record, the circuit has
 * exactly p->challenges unsatisfied rows (the tree_r_new root equalities). */
static void timing(uint64_t size, unsigned k, unsigned h, bool record, uint64_t seed) {
    cz_snap_params p;
    cz_snap_params_for(&p, size);
    cz_snap_partition_proof pp;
    cz_fr comms[3];
    int rc = cz_snap_timing_partition(&pp, comms, &p, k, h, seed);
    CHECK_MSG(rc == 0, "%s", cz_error_message());
    if (rc) return;
    CHECK(cz_snap_partition_proof_verify(&pp, &p, k, h, &comms[0], &comms[1], &comms[2]) == CZ_EVERIFY);
    CHECK(strstr(cz_error_message(), "does not verify") != NULL);
    cz_snap_challenge *chs = malloc(p.challenges * sizeof *chs);
    cz_snap_witness w;
    CHECK(cz_snap_witness_from_proof(&w, chs, &pp, &p, k, h, &comms[0], &comms[1], &comms[2]) == 0);
    if (record) {
        cz_cs *cs;
        cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
        CHECK(cz_snap_synthesize(cs, &p, &w) == 0);
        CHECK(cz_cs_finalize(cs) == 0);
        cz_r1cs r = {0};
        cz_fr *in, *aux;
        uint64_t nin, naux;
        CHECK(cz_cs_take_r1cs(cs, &r) == 0 && cz_cs_take_witness(cs, &in, &nin, &aux, &naux) == 0);
        cz_fr *a = malloc(3 * r.num_rows * sizeof(cz_fr)), *b = a + r.num_rows, *c = b + r.num_rows;
        cz_r1cs_eval(a, b, c, &r, in, aux, 1);
        uint64_t bad = 0;
        for (uint64_t i = 0; i < r.num_rows; i++) {
            cz_fr ab;
            cz_fr_mul(&ab, &a[i], &b[i]);
            if (!cz_fr_equal(&ab, &c[i]) && getenv("CZ_SNAP_DEBUG"))
                printf("bad row %llu\n", (unsigned long long)i);
            bad += !cz_fr_equal(&ab, &c[i]);
        }
        CHECK_MSG(bad == p.challenges, "%s timing witness: %llu unsatisfied rows", p.name,
                  (unsigned long long)bad);
        free(a), free(in), free(aux);
        cz_r1cs_free(&r);
        cz_cs_free(cs);
    } else {
        uint64_t ta, ca;
        CHECK(cz_snap_shape(&p, &ta, &ca) == 0);
        cz_fr in[CZ_SNAP_INPUTS], want[4], *aux = malloc((ta + ca * p.challenges) * sizeof(cz_fr));
        CHECK(cz_snap_witness_parallel(&p, &w, in, CZ_SNAP_INPUTS, aux, ta + ca * p.challenges, 0) == 0);
        CHECK(cz_snap_public_inputs(want, &p, k, h, &comms[0], &comms[1], &comms[2]) == 0);
        CHECK(!memcmp(in + 1, want, sizeof want));
        free(aux);
    }
    printf("%s timing partition %u: witness complete%s\n", p.name, k,
           record ? ", exactly the tree_r_new root rows unsatisfied" : "");
    free(chs);
    cz_snap_partition_proof_free(&pp);
}

#endif
