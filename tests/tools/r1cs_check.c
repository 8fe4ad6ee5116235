/* cz_tool_r1cs_check FILE.r1cs [FILE.wtns]: reads a circom .r1cs (and .wtns) with cuzk's readers,
 * prints the shape, and checks every constraint (plus the appended input rows) on the witness.
 * Exit status: 0 satisfied (or shape only), 1 a constraint fails, 2 a file is rejected or unusable. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cz_error.h"
#include "r1cs/circom.h"

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s FILE.r1cs [FILE.wtns]\n", argv[0]);
        return 2;
    }
    cz_r1cs r;
    cz_circom_header h;
    int rc = cz_circom_r1cs_read(&r, &h, argv[1]);
    if (rc) {
        fprintf(stderr, "error %s: %s\n", cz_error_name(rc), cz_error_message());
        return 2;
    }
    printf("r1cs: wires %u (outputs %u, public %u, private %u), constraints %u; inputs %" PRIu64 " aux %" PRIu64
           " rows %" PRIu64 "; nnz A %" PRIu64 " B %" PRIu64 " C %" PRIu64 "; density a_aux %" PRIu64
           " b_input %" PRIu64 " b_aux %" PRIu64 "\n",
           h.n_wires, h.n_pub_out, h.n_pub_in, h.n_prv_in, h.n_constraints, r.num_inputs, r.num_aux, r.num_rows,
           cz_r1cs_nnz(&r.a), cz_r1cs_nnz(&r.b), cz_r1cs_nnz(&r.c), r.a_aux_popcount, r.b_input_popcount,
           r.b_aux_popcount);
    int status = 0;
    if (argc == 3) {
        cz_fr *w;
        uint64_t n;
        rc = cz_circom_wtns_read(&w, &n, argv[2]);
        if (rc) {
            fprintf(stderr, "error %s: %s\n", cz_error_name(rc), cz_error_message());
            status = 2;
        } else if (n != r.num_inputs + r.num_aux) {
            fprintf(stderr, "error: %s has %" PRIu64 " values, the circuit %" PRIu64 " wires\n", argv[2], n,
                    r.num_inputs + r.num_aux);
            status = 2;
        } else {
            uint64_t bad = 0;
            rc = cz_r1cs_check(&bad, &r, w, w + r.num_inputs, 0);
            if (rc) {
                fprintf(stderr, "error %s: %s\n", cz_error_name(rc), cz_error_message());
                status = rc == CZ_EVERIFY ? 1 : 2;
            } else {
                printf("witness: %" PRIu64 " values, all %" PRIu64 " rows satisfied\n", n, r.num_rows);
            }
        }
        free(w);
    }
    cz_r1cs_free(&r);
    return status;
}
