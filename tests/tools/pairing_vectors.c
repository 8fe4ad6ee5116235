/* C side of the pairing interop check (tests/interop/test_pairing_noble.sh). Reads lines
 *   <n> <g1 hex> <g2 hex> ... (n pairs; ZCash uncompressed encodings, 96 and 192 bytes)
 * from stdin and prints, per line, the 576-byte Fp12 encoding (hex) of prod e(g1_i, g2_i).
 * For n = 1 it uses cz_pairing, otherwise cz_multi_pairing; it also checks that the prepared-G2
 * path gives the same value and exits 1 if not. Points are decoded with the G1/G2 decoders (curve and
 * subgroup checked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_error.h"
#include "ec/pairing.h"
#include "testutil.h"

#define MAX_PAIRS 16

static int parse_g1(cz_g1_affine *p, const char *hex) {
    uint8_t b[96];
    if (strlen(hex) != 192 || cz_hex_decode(b, 96, hex)) return -1;
    return cz_g1_from_uncompressed(p, b, CZ_DECODE_CHECK_SUBGROUP);
}

static int parse_g2(cz_g2_affine *p, const char *hex) {
    uint8_t b[192];
    if (strlen(hex) != 384 || cz_hex_decode(b, 192, hex)) return -1;
    return cz_g2_from_uncompressed(p, b, CZ_DECODE_CHECK_SUBGROUP);
}

int main(void) {
    static char line[MAX_PAIRS * 600 + 64];
    static cz_g2_prepared prep[MAX_PAIRS];
    cz_g1_affine p[MAX_PAIRS];
    cz_g2_affine q[MAX_PAIRS];
    const cz_g2_prepared *pp[MAX_PAIRS];
    int lineno = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        char *save = NULL, *tok = strtok_r(line, " \n", &save);
        if (!tok) continue;
        int n = atoi(tok);
        if (n < 0 || n > MAX_PAIRS) {
            fprintf(stderr, "line %d: bad pair count\n", lineno);
            return 2;
        }
        for (int i = 0; i < n; i++) {
            char *h1 = strtok_r(NULL, " \n", &save), *h2 = strtok_r(NULL, " \n", &save);
            if (!h1 || !h2 || parse_g1(&p[i], h1) || parse_g2(&q[i], h2)) {
                fprintf(stderr, "line %d: pair %d: %s\n", lineno, i, cz_error_message());
                return 2;
            }
            cz_g2_prepare(&prep[i], &q[i]);
            pp[i] = &prep[i];
        }
        cz_fp12 e, e2;
        if (n == 1) cz_pairing(&e, p, q);
        else cz_multi_pairing(&e, p, q, (size_t)n);
        cz_multi_pairing_prepared(&e2, p, pp, (size_t)n);
        if (!cz_fp12_equal(&e, &e2)) {
            fprintf(stderr, "line %d: prepared and plain pairings differ\n", lineno);
            return 1;
        }
        uint8_t out[CZ_FP12_BYTES];
        char hex[2 * CZ_FP12_BYTES + 1];
        cz_fp12_to_bytes(out, &e);
        cz_hex_encode(hex, out, sizeof out);
        printf("%s\n", hex);
    }
    return 0;
}
