#include "groth16/proof.h"

#include <stdio.h>
#include <string.h>

#include "cz_error.h"

static const char *problem_text(int code) {
    switch (code) {
    case CZ_ECURVE: return "point not on the curve";
    case CZ_ESUBGROUP: return "point not in the prime-order subgroup";
    case CZ_ERANGE: return "x coordinate not below the field modulus";
    case CZ_EINVAL: return "bad flag bits or no square root for x";
    default: return "undecodable point";
    }
}

void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *p) {
    cz_g1_to_compressed(out, &p->a);
    cz_g2_to_compressed(out + 48, &p->b);
    cz_g1_to_compressed(out + 144, &p->c);
}

static int located(int rc, const char *what, int offset, int is_inf) {
    if (is_inf)
        return cz_error(CZ_EINVAL, "proof: element %s at byte offset %d: point at infinity (not allowed)", what,
                        offset);
    return cz_error(rc, "proof: element %s at byte offset %d: %s", what, offset, problem_text(rc));
}

int cz_groth16_proof_decode(cz_groth16_proof *p, const uint8_t in[CZ_GROTH16_PROOF_BYTES]) {
    const unsigned chk = CZ_DECODE_CHECK_SUBGROUP;
    int rc;
    if ((rc = cz_g1_from_compressed(&p->a, in, chk)))
        return located(rc, "A", 0, 0);
    if (cz_g1_affine_is_infinity(&p->a))
        return located(0, "A", 0, 1);
    if ((rc = cz_g2_from_compressed(&p->b, in + 48, chk)))
        return located(rc, "B", 48, 0);
    if (cz_g2_affine_is_infinity(&p->b))
        return located(0, "B", 48, 1);
    if ((rc = cz_g1_from_compressed(&p->c, in + 144, chk)))
        return located(rc, "C", 144, 0);
    if (cz_g1_affine_is_infinity(&p->c))
        return located(0, "C", 144, 1);
    return 0;
}

int cz_groth16_proofs_decode(cz_groth16_proof *out, size_t max, size_t *count, const uint8_t *buf, size_t len,
                             const char *name) {
    if (!name)
        name = "proof bytes";
    *count = 0;
    if (len == 0 || len % CZ_GROTH16_PROOF_BYTES)
        return cz_error(CZ_EFORMAT, "%s: truncated or padded: %zu bytes is not a whole number of %d-byte proofs", name,
                        len, CZ_GROTH16_PROOF_BYTES);
    size_t n = len / CZ_GROTH16_PROOF_BYTES;
    if (n > max)
        return cz_error(CZ_ERANGE, "%s: %zu proofs, room for %zu", name, n, max);
    for (size_t i = 0; i < n; i++) {
        int rc = cz_groth16_proof_decode(&out[i], buf + i * CZ_GROTH16_PROOF_BYTES);
        if (rc) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", cz_error_message());
            return cz_error(rc, "%s: partition %zu at byte offset %zu: %s", name, i, i * CZ_GROTH16_PROOF_BYTES, inner);
        }
    }
    *count = n;
    return 0;
}
