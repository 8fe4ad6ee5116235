/* ZCash point encodings shared by g1.c and g2.c. Included after ec_ops_impl.h with
 *   EC_NB                 bytes of one field element (48 for Fp, 96 for Fp2)
 *   EC_F_TO_BYTES(o, a)   big-endian field encoding; EC_F_FROM_BYTES(r, i) its inverse, CZ_ERANGE if >= p
 *   EC_NAME               "G1" / "G2" (error messages)
 * Byte 0 carries the flags: 0x80 compressed, 0x40 infinity, 0x20 y is the lexicographically larger root. */
#define EC_FLAG_C 0x80u
#define EC_FLAG_I 0x40u
#define EC_FLAG_S 0x20u

void EC_P(to_compressed)(uint8_t out[EC_NB], const EC_AFF *p) {
    if (EC_P(affine_is_infinity)(p)) {
        memset(out, 0, EC_NB);
        out[0] = EC_FLAG_C | EC_FLAG_I;
        return;
    }
    EC_F_TO_BYTES(out, &p->x);
    out[0] |= EC_FLAG_C;
    if (EC_FF(is_lexicographically_largest)(&p->y)) out[0] |= EC_FLAG_S;
}

void EC_P(to_uncompressed)(uint8_t out[2 * EC_NB], const EC_AFF *p) {
    if (EC_P(affine_is_infinity)(p)) {
        memset(out, 0, 2 * EC_NB);
        out[0] = EC_FLAG_I;
        return;
    }
    EC_F_TO_BYTES(out, &p->x);
    EC_F_TO_BYTES(out + EC_NB, &p->y);
}

/* Shared flag checks. Returns 1 for a valid infinity, 0 for a finite point, or an error. */
static int EC_P(decode_flags_)(const uint8_t *in, size_t len, bool compressed) {
    unsigned f = in[0] & 0xe0u;
    if (!(f & EC_FLAG_C) != !compressed)
        return cz_error(CZ_EINVAL, EC_NAME " %s encoding (%zu bytes) has the compression flag %s", compressed ? "compressed" : "uncompressed",
                        len, compressed ? "clear" : "set");
    if (f & EC_FLAG_I) {
        if (f & EC_FLAG_S) return cz_error(CZ_EINVAL, EC_NAME " infinity encoding has the sort flag set");
        if (in[0] & 0x1fu) return cz_error(CZ_EINVAL, EC_NAME " infinity encoding has nonzero bits in byte 0");
        for (size_t i = 1; i < len; i++)
            if (in[i]) return cz_error(CZ_EINVAL, EC_NAME " infinity encoding has a nonzero byte at offset %zu", i);
        return 1;
    }
    if (!compressed && (f & EC_FLAG_S)) return cz_error(CZ_EINVAL, EC_NAME " uncompressed encoding has the sort flag set");
    return 0;
}

static int EC_P(decode_finish_)(EC_AFF *r, const EC_AFF *p, unsigned flags) {
    /* (0,0) is our in-memory infinity and affine_is_on_curve accepts it; in an encoding it must carry the flag. */
    if (EC_P(affine_is_infinity)(p)) return cz_error(CZ_ECURVE, EC_NAME " point (0, 0) without the infinity flag is not on the curve");
    if (!EC_P(affine_is_on_curve)(p)) return cz_error(CZ_ECURVE, EC_NAME " point is not on the curve");
    if ((flags & CZ_DECODE_CHECK_SUBGROUP) && !EC_P(affine_is_in_subgroup)(p))
        return cz_error(CZ_ESUBGROUP, EC_NAME " point is on the curve but not in the prime-order subgroup");
    *r = *p;
    return 0;
}

int EC_P(from_compressed)(EC_AFF *r, const uint8_t in[EC_NB], unsigned flags) {
    int rc = EC_P(decode_flags_)(in, EC_NB, true);
    if (rc < 0) return rc;
    if (rc == 1) {
        memset(r, 0, sizeof *r);
        return 0;
    }
    uint8_t buf[EC_NB];
    memcpy(buf, in, EC_NB);
    buf[0] &= 0x1fu;
    EC_AFF p;
    if (EC_F_FROM_BYTES(&p.x, buf)) return cz_error(CZ_ERANGE, EC_NAME " compressed x coordinate is not below p");
    EC_F rhs;
    EC_FF(sqr)(&rhs, &p.x);
    EC_FF(mul)(&rhs, &rhs, &p.x);
    EC_FF(add)(&rhs, &rhs, EC_B);
    if (EC_FF(sqrt)(&p.y, &rhs)) return cz_error(CZ_ECURVE, EC_NAME " compressed x is not the x of a curve point (x^3 + b is not a square)");
    if (EC_FF(is_lexicographically_largest)(&p.y) != !!(in[0] & EC_FLAG_S)) EC_FF(neg)(&p.y, &p.y);
    return EC_P(decode_finish_)(r, &p, flags);
}

int EC_P(from_uncompressed)(EC_AFF *r, const uint8_t in[2 * EC_NB], unsigned flags) {
    int rc = EC_P(decode_flags_)(in, 2 * EC_NB, false);
    if (rc < 0) return rc;
    if (rc == 1) {
        memset(r, 0, sizeof *r);
        return 0;
    }
    uint8_t buf[EC_NB];
    memcpy(buf, in, EC_NB);
    buf[0] &= 0x1fu;
    EC_AFF p;
    if (EC_F_FROM_BYTES(&p.x, buf)) return cz_error(CZ_ERANGE, EC_NAME " uncompressed x coordinate is not below p");
    if (EC_F_FROM_BYTES(&p.y, in + EC_NB)) return cz_error(CZ_ERANGE, EC_NAME " uncompressed y coordinate is not below p");
    return EC_P(decode_finish_)(r, &p, flags);
}
