#include "groth16/proof.h"

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
