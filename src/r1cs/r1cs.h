/* A finished rank-1 constraint system in CSR form, with bellperson's density bitmaps, and the
 * evaluation a = A·w, b = B·w, c = C·w that feeds the prover's H computation.
 *
 * Variable (column) order: [inputs | aux]. Column 0 is the constant ONE (input 0), columns
 * 1..num_inputs-1 the public inputs in allocation order, column num_inputs + j is aux variable j.
 * A full witness w is therefore inputs followed by aux; the calls below take the two halves as
 * separate pointers so that a caller never has to concatenate them.
 *
 * Row order: the circuit's num_constraints constraints in enforce order, then one row per input i
 * (i = 0..num_inputs-1): A = x_i, B = 0, C = 0 (bellperson's ProvingAssignment appends exactly these,
 * which gives every input full density in A). num_rows = num_constraints + num_inputs.
 *
 * Each CSR row holds strictly increasing columns with non-zero coefficients (Montgomery Fr): repeated
 * variables of a linear combination are merged and terms that merge to zero are dropped, which is
 * what bellperson's Indexer + eval_with_trackers (zero coefficients are skipped) amount to. */
#ifndef CZ_R1CS_R1CS_H
#define CZ_R1CS_R1CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"

typedef struct {
    uint64_t rows;
    uint64_t *row_ptr; /* rows + 1 entries; nnz = row_ptr[rows] */
    uint32_t *col;     /* nnz column indices, increasing within a row */
    cz_fr *val;        /* nnz non-zero coefficients; NULL once coded (cz_r1cs_code) */
    /* Coded coefficients (cz_r1cs_code): term k's coefficient is coeffs[coef[k]], ncoeffs distinct values in
     * order of first use. Real circuits have few (1, -1, powers of two, some constants), so a term costs 8 bytes
     * instead of 36: 32 GiB PoRep's R1CS ~26 → ~8 GB of host memory. A matrix holds val or coef, not both; read
     * a coefficient with cz_csr_coeff. */
    uint32_t *coef;
    cz_fr *coeffs;
    uint32_t ncoeffs;
} cz_csr;

/* Density bitmaps: 64 bits per word, variable i is bit i%64 of word i/64 (cz_g1_batch_add's layout).
 * A bit is set iff the variable has a non-zero coefficient in some row of that matrix:
 *   a_aux_density   (num_aux bits)    aux variables used by A (inputs are always dense in A);
 *   b_input_density (num_inputs bits) inputs used by B;
 *   b_aux_density   (num_aux bits)    aux variables used by B.
 * There is no C density (the L query is dense over aux). */
typedef struct {
    uint64_t num_inputs; /* including ONE */
    uint64_t num_aux;
    uint64_t num_constraints; /* the circuit's own constraints */
    uint64_t num_rows;        /* num_constraints + num_inputs */
    cz_csr a, b, c;
    uint64_t *a_aux_density, *b_input_density, *b_aux_density;
    uint64_t a_aux_popcount, b_input_popcount, b_aux_popcount;
} cz_r1cs;

static inline uint64_t cz_r1cs_nnz(const cz_csr *m) { return m->rows ? m->row_ptr[m->rows] : 0; }
/* Term k's coefficient, coded or not. */
static inline const cz_fr *cz_csr_coeff(const cz_csr *m, uint64_t k) {
    return m->coef ? &m->coeffs[m->coef[k]] : &m->val[k];
}
static inline bool cz_density_get(const uint64_t *bits, uint64_t i) { return (bits[i >> 6] >> (i & 63)) & 1; }

/* An R1CS's size without its terms: what cz_cs_count_circuit (r1cs/cs.h) learns without recording, and
 * what cz_r1cs_shape_of reads off a recorded one, so that the two compare field by field. */
typedef struct {
    uint64_t num_inputs, num_aux, num_constraints;
    uint64_t num_rows; /* num_constraints + num_inputs: the rows of each of A, B and C */
    uint64_t nnz[3];   /* terms of A, B, C (A holds one more per input: the rows finalize appends) */
} cz_r1cs_shape;

/* The shape of a recorded R1CS. */
cz_r1cs_shape cz_r1cs_shape_of(const cz_r1cs *r);
/* Host bytes of an R1CS of shape s: per matrix row_ptr ((num_rows + 1) * 8) and per term a column and a
 * coefficient (4 + 32), plus the three density bitmaps. The one formula for a recorded R1CS (the SRS
 * manager charges it to the memory budget) and a counted one (charged before the first recording). */
uint64_t cz_r1cs_shape_bytes(const cz_r1cs_shape *s);
/* The host bytes r holds: cz_r1cs_shape_bytes of its shape while its coefficients are values; a coded matrix's
 * terms take 4 + 4 bytes each, plus its distinct values (cz_r1cs_code). */
uint64_t cz_r1cs_host_bytes(const cz_r1cs *r);

/* Codes each matrix's coefficients as indices into its distinct values (cz_csr.coef, coeffs) and frees its values,
 * one matrix at a time (the peak is one matrix's values plus its indices), coded in parallel on nthreads (0: all).
 * Every term keeps its value (cz_csr_coeff), so everything that reads the matrices computes the same. A matrix with
 * 2^32 or more distinct values stays as it is. 0, or CZ_ENOMEM with the matrices not yet coded left as values. */
int cz_r1cs_code(cz_r1cs *r, int nthreads);

/* Frees everything r owns and zeroes it (safe on a zeroed struct). */
void cz_r1cs_free(cz_r1cs *r);

/* (Re)computes the three density bitmaps and popcounts from the matrices. 0 or CZ_ENOMEM. */
int cz_r1cs_compute_densities(cz_r1cs *r);

/* out[i] = <row i of m, w> for i < m->rows, w = [inputs | aux] split at num_inputs.
 * nthreads <= 0 uses OpenMP's default. out needs m->rows entries (entries beyond are untouched). */
void cz_csr_mul_vec(cz_fr *out, const cz_csr *m, uint64_t num_inputs, const cz_fr *inputs,
                    const cz_fr *aux, int nthreads);

/* a, b, c = A·w, B·w, C·w, each buffer with at least r->num_rows entries (the caller pads to the
 * domain size). inputs has num_inputs values (inputs[0] must be ONE), aux num_aux values. */
void cz_r1cs_eval(cz_fr *a, cz_fr *b, cz_fr *c, const cz_r1cs *r, const cz_fr *inputs, const cz_fr *aux,
                  int nthreads);

/* Checks <A_i,w>·<B_i,w> == <C_i,w> for every row. Returns 0, or CZ_EVERIFY with the first failing
 * row in *bad_row (when bad_row is not NULL) and a message naming it; CZ_EINVAL when inputs[0] != 1. */
int cz_r1cs_check(uint64_t *bad_row, const cz_r1cs *r, const cz_fr *inputs, const cz_fr *aux, int nthreads);

#endif
