/* cz_tool_c1_inputs: reads a C1 output (raw SealCommitPhase1Output JSON or a lotus Commit2In
 * wrapper), verifies every partition's vanilla proofs on the CPU (paths, labels, encoding, comm_r,
 * challenges from the seed, parents from the graph) and prints each partition's public inputs as
 * big-endian hex Fr, one per line. With --check it also synthesizes each partition (record +
 * witness) and checks every constraint (meant for the small sector sizes).
 * Exit status: 0 ok, 1 a proof or constraint fails, 2 unreadable input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "filecoin/c1.h"
#include "filecoin/porep_inputs.h"
#include "filecoin/vanilla.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"
#include "testutil.h"

static int check_partition(const cz_c1 *c1, unsigned k) {
    cz_porep_witness w;
    int rc = cz_c1_witness(c1, k, &w);
    if (rc) return rc;
    cz_cs *cs;
    if ((rc = cz_cs_new(&cs, CZ_CS_RECORD | CZ_CS_WITNESS))) return rc;
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL;
    uint64_t ni, na;
    rc = cz_porep_synthesize(cs, &c1->params, &w);
    if (!rc) rc = cz_cs_finalize(cs);
    if (!rc) rc = cz_cs_take_r1cs(cs, &r);
    if (!rc) rc = cz_cs_take_witness(cs, &in, &ni, &aux, &na);
    if (!rc) rc = cz_r1cs_check(NULL, &r, in, aux, 0);
    cz_cs_free(cs);
    cz_r1cs_free(&r);
    free(in), free(aux);
    return rc;
}

int main(int argc, char **argv) {
    bool check = argc > 2 && !strcmp(argv[2], "--check");
    if (argc < 2) {
        fprintf(stderr, "usage: %s c1.json [--check]\n", argv[0]);
        return 2;
    }
    cz_c1 c1;
    if (cz_c1_load(&c1, argv[1])) {
        fprintf(stderr, "%s\n", cz_error_message());
        return 2;
    }
    printf("%s: %u partition(s) x %u challenges\n", c1.registered_proof, c1.partitions, c1.challenges);
    int status = 0;
    cz_fr *pub = malloc((3 + 18 * (size_t)c1.challenges) * sizeof(cz_fr));
    for (unsigned k = 0; k < c1.partitions; k++) {
        int rc = cz_c1_verify(&c1, k, true);
        if (!rc) rc = cz_porep_public_inputs(pub, &c1, k, true);
        if (rc) {
            printf("partition %u: FAIL: %s\n", k, cz_error_message());
            status = 1;
            continue;
        }
        printf("partition %u: vanilla proofs verify; %u public inputs:\n", k, 3 + 18 * c1.challenges);
        for (unsigned i = 0; i < 3 + 18 * c1.challenges; i++) {
            uint8_t b[32];
            char hex[65];
            cz_fr_to_bytes_be(b, &pub[i]);
            cz_hex_encode(hex, b, 32);
            printf("  %s\n", hex);
        }
        if (check) {
            rc = check_partition(&c1, k);
            printf("partition %u: circuit %s%s\n", k, rc ? "NOT satisfied: " : "satisfied (every constraint)",
                   rc ? cz_error_message() : "");
            if (rc) status = 1;
        }
    }
    free(pub);
    cz_c1_free(&c1);
    return status;
}
