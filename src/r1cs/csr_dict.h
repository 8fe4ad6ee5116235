/* A compact CSR for device residency: each coefficient is a 32-bit index into a table of the
 * matrix's distinct values. Real circuits use few distinct coefficients (1, -1, powers of two, a
 * few constants), so a term costs 8 bytes (column + index) instead of 36, which is what lets the
 * 32 GiB PoRep matrices (~720 M terms) sit on the GPU beside the SRS. Same rows and columns as the
 * cz_csr it was made from. */
#ifndef CZ_R1CS_CSR_DICT_H
#define CZ_R1CS_CSR_DICT_H

#include <stdbool.h>

#include "r1cs/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t rows;
    uint64_t *row_ptr; /* rows + 1 */
    uint32_t *col;     /* nnz */
    uint32_t *coef;    /* nnz indices into coeffs */
    cz_fr *coeffs;     /* ncoeffs distinct values, in order of first use */
    uint32_t ncoeffs;
    bool borrowed; /* coef and coeffs are a coded cz_csr's own (cz_csr_dict_borrow): cz_csr_dict_free leaves them */
} cz_csr_dict;

/* 0, CZ_ENOMEM, or CZ_ERANGE if the matrix has 2^32 or more distinct coefficients. Coded in parallel (all
 * threads, slices of at least 2^20 terms); the result is the same as a one-thread coding. */
int cz_csr_dict_from_csr(cz_csr_dict *out, const cz_csr *m);
/* The same with nthreads (0: all) and slices of at least min_slice terms (tests). */
int cz_csr_dict_from_csr_par(cz_csr_dict *out, const cz_csr *m, int nthreads, uint64_t min_slice);
/* The coding alone (coef, coeffs; row_ptr and col left NULL: m's are the structure), as the GPU's upload
 * needs it: no copy of the structure (2.2 GB of 32 GiB PoRep's A). */
int cz_csr_dict_coefs(cz_csr_dict *out, const cz_csr *m, int nthreads, uint64_t min_slice);
void cz_csr_dict_free(cz_csr_dict *d);
/* A coded matrix's coding as a dictionary without a copy (coef and coeffs stay m's; row_ptr and col NULL, as
 * cz_csr_dict_coefs leaves them). 0, or CZ_EINVAL when m is not coded. (On a coded m, cz_csr_dict_coefs and
 * cz_csr_dict_from_csr copy its coding.) */
int cz_csr_dict_borrow(cz_csr_dict *out, const cz_csr *m);
/* out[i] = <row i, w> with w = [inputs | aux] split at num_inputs, as cz_csr_mul_vec. */
void cz_csr_dict_mul_vec(cz_fr *out, const cz_csr_dict *d, uint64_t num_inputs, const cz_fr *inputs,
                         const cz_fr *aux, int nthreads);

#ifdef __cplusplus
}
#endif

#endif
