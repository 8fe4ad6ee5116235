/* Internal to r1cs/: a growable CSR matrix that takes one row at a time from an unsorted term list
 * (sorted by variable id, repeated ids merged, zero sums dropped), shared by the cs recorder and the
 * circom reader so both produce the same canonical rows. */
#ifndef CZ_R1CS_CSR_BUILD_H
#define CZ_R1CS_CSR_BUILD_H

#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

typedef struct {
    uint64_t rows, row_cap, nnz, nnz_cap;
    uint64_t *row_ptr;
    uint32_t *col;
    cz_fr *val;
    /* A window into another builder's arrays (cz_cs_record_blocks): never grown or freed; row_ptr points
     * at the window's first row, nnz counts from the window's first term in the shared col / val. */
    bool fixed, overflowed; /* overflowed: a push did not fit the window (CZ_ERANGE) */
    bool count_only;        /* pushes only count rows and terms (a block's shape, a circuit's count), reserve nothing */
} cz_csr_builder;

/* Sorts terms[0..n) by var id and merges equal ids in place; returns the number of non-zero terms
 * left at the front. */
size_t cz_lc_terms_normalize(cz_lc_term *terms, size_t n);
int cz_csr_builder_reserve(cz_csr_builder *b, uint64_t rows, uint64_t nnz);
/* Appends a row from already normalized terms (column = var id as is). 0 or CZ_ENOMEM. */
int cz_csr_builder_push(cz_csr_builder *b, const cz_lc_term *terms, size_t n);
/* Moves the rows into m (shrunk to fit) and resets b. */
void cz_csr_builder_finish(cz_csr_builder *b, cz_csr *m);
void cz_csr_builder_free(cz_csr_builder *b);

#endif
