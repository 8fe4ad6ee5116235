/* Shared by the PoSt tests: fixture paths and "build the partition circuit in record|witness mode
 * and check every row, inputs against independently derived public inputs". */
#ifndef CZ_TEST_POST_CHECK_H
#define CZ_TEST_POST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/post_inputs.h"
#include "filecoin/post_synth.h"
#include "filecoin/post_vanilla.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

/* The fixture rel read whole (NULL if absent). */
static inline uint8_t *pc_fixture(const char *rel, size_t *len) {
    char path[1024];
    return (uint8_t *)cz_test_read_fixture(rel, path, sizeof path, len);
}

/* venus' pre-sealed 2 KiB sectors t0106 0 and 1 (fixtures): their CommR CIDs from pre-seal-t0106.json (js), in sector
 * order. 0 when both decode as sealed-sector CIDs. */
static inline int pc_venus_comm_r(const char *js, cz_fr comm_r[2]) {
    const char *q = js;
    for (int s = 0; s < 2; s++) {
        q = strstr(q, "\"CommR\"");
        const char *c = q ? strstr(q, "\"/\": \"") : NULL;
        if (!c) return -1;
        c += 6;
        uint8_t b[32];
        uint64_t codec;
        if (cz_commcid_decode(b, &codec, c, (size_t)(strchr(c, '"') - c)) || codec != 0xf102 ||
            cz_fr_from_bytes_le(&comm_r[s], b))
            return -1;
        q = c;
    }
    return 0;
}

/* Synthesizes sectors into a record|witness cs, checks all rows and that the public inputs equal
 * want (p->sectors * (1 + challenges) values, or NULL); with tamper, also that one damaged aux value
 * of the last sector's leaf fails the check. Returns 0 when everything held. */
static inline int pc_check_circuit(const cz_post_params *p, const cz_post_sector *sectors, const cz_fr *want,
                            bool tamper) {
    cz_cs *cs;
    int rc = cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS);
    if (!rc) rc = cz_post_synthesize(cs, p, sectors);
    if (!rc) rc = cz_cs_finalize(cs);
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL;
    uint64_t nin = 0, naux = 0;
    if (!rc) rc = cz_cs_take_r1cs(cs, &r);
    if (!rc) rc = cz_cs_take_witness(cs, &in, &nin, &aux, &naux);
    uint64_t bad = 0;
    if (!rc && (rc = cz_r1cs_check(&bad, &r, in, aux, 1)))
        fprintf(stderr, "%s: row %llu unsatisfied\n", p->name, (unsigned long long)bad);
    if (!rc && nin != 1 + cz_post_sector_inputs(p) * p->sectors) rc = -100;
    if (!rc && naux != cz_post_sector_aux(p) * p->sectors) rc = -101;
    if (!rc && want)
        for (uint64_t i = 1; i < nin && !rc; i++)
            if (!cz_fr_equal(&in[i], &want[i - 1])) {
                fprintf(stderr, "%s: public input %llu differs\n", p->name, (unsigned long long)i);
                rc = -102;
            }
    if (!rc && tamper) {
        /* the last sector's last challenge leaf: a constrained aux */
        uint64_t leaf = naux - (cz_post_sector_aux(p) - 3 - 311) / p->challenges;
        cz_fr_add(&aux[leaf], &aux[leaf], &CZ_FR_ONE_V);
        if (cz_r1cs_check(NULL, &r, in, aux, 1) != CZ_EVERIFY) rc = -103;
    }
    cz_r1cs_free(&r);
    free(in), free(aux);
    cz_cs_free(cs);
    return rc;
}

#endif
