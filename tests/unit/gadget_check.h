/* Shared by the gadget tests: finish a cs built in record|witness mode and check every row. */
#ifndef CZ_TEST_GADGET_CHECK_H
#define CZ_TEST_GADGET_CHECK_H

#include <stdlib.h>

#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

/* Finalizes cs (record|witness), checks all rows (0 = satisfied), then, when tamper_aux is below
 * num_aux, adds one to that aux value and returns in *tampered_rc the check's result for the
 * damaged witness (must be CZ_EVERIFY if that variable is constrained). Frees cs. */
static int gc_finish_check(cz_cs *cs, uint64_t tamper_aux, int *tampered_rc) {
    int rc = cz_cs_finalize(cs);
    cz_r1cs r = {0};
    cz_fr *in = NULL, *aux = NULL;
    uint64_t nin = 0, naux = 0;
    if (!rc) rc = cz_cs_take_r1cs(cs, &r);
    if (!rc) rc = cz_cs_take_witness(cs, &in, &nin, &aux, &naux);
    if (!rc) rc = cz_r1cs_check(NULL, &r, in, aux, 1);
    if (!rc && tampered_rc && tamper_aux < naux) {
        cz_fr_add(&aux[tamper_aux], &aux[tamper_aux], &CZ_FR_ONE_V);
        *tampered_rc = cz_r1cs_check(NULL, &r, in, aux, 1);
    }
    cz_r1cs_free(&r);
    free(in);
    free(aux);
    cz_cs_free(cs);
    return rc;
}

#endif
