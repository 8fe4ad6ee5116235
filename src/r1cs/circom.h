/* Readers for circom's iden3 binary files over BLS12-381 (circom --prime bls12381, snarkjs):
 * .r1cs (constraints) into the same cz_r1cs form the cs recorder produces, and .wtns (witness).
 *
 * Variable mapping: circom wire 0 is ONE, wires 1..nPubOut+nPubIn are the public signals (outputs
 * first), the rest private; our column order [inputs | aux] is the same sequence, so wire w is
 * column w, num_inputs = 1 + nPubOut + nPubIn and a .wtns vector is the full witness w as is
 * (inputs = values, aux = values + num_inputs). Like a finalized cs, the r1cs gets one row
 * x_i * 0 = 0 per input after circom's constraints, merged/sorted rows and the densities.
 * Any malformed file gives CZ_EFORMAT (CZ_EUNSUPPORTED for PLONK custom-gate sections) with a message
 * naming the file, the section and the byte offset; the parsers never read outside the buffer. */
#ifndef CZ_R1CS_CIRCOM_H
#define CZ_R1CS_CIRCOM_H

#include <stddef.h>
#include <stdint.h>

#include "ff/fr.h"
#include "r1cs/r1cs.h"

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
} cz_circom_header;

/* hdr may be NULL. name is only used in messages. */
int cz_circom_r1cs_parse(cz_r1cs *out, cz_circom_header *hdr, const uint8_t *buf, size_t len, const char *name);
int cz_circom_r1cs_read(cz_r1cs *out, cz_circom_header *hdr, const char *path);

/* *values (Montgomery, freed with free()) gets the *n witness values; values[0] must be 1. */
int cz_circom_wtns_parse(cz_fr **values, uint64_t *n, const uint8_t *buf, size_t len, const char *name);
int cz_circom_wtns_read(cz_fr **values, uint64_t *n, const char *path);

#endif
