/* The tiling must not change results: src/poly/ntt.c compiled here with tiny tiles (3 stages per
 * pass, 2-element rows: up to six passes, so middle passes with both outer and inner index bits)
 * and with the portable multiply must agree bit for bit with the library build, which
 * test_ntt.c checks against the naive definitions. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_BITS 3
#define CHUNK 2
#define CZ_NO_ASM
#define cz_ntt_forward small_ntt_forward
#define cz_ntt_inverse small_ntt_inverse
#define cz_ntt_coset_forward small_ntt_coset_forward
#define cz_ntt_coset_inverse small_ntt_coset_inverse
#define cz_ntt_divide_by_z_on_coset small_ntt_divide_by_z_on_coset
#define cz_ntt_z_coset_inv small_ntt_z_coset_inv
#include "poly/ntt.c"
#undef cz_ntt_forward
#undef cz_ntt_inverse
#undef cz_ntt_coset_forward
#undef cz_ntt_coset_inverse
#undef cz_ntt_divide_by_z_on_coset
#undef cz_ntt_z_coset_inv

#include "testutil.h"

int cz_ntt_forward(const cz_domain *d, cz_fr *a);
int cz_ntt_inverse(const cz_domain *d, cz_fr *a);
int cz_ntt_coset_forward(const cz_domain *d, cz_fr *a);
int cz_ntt_coset_inverse(const cz_domain *d, cz_fr *a);

int main(void) {
    cz_rng rng;
    cz_test_rng(&rng);
    int (*lib[4])(const cz_domain *, cz_fr *) = {cz_ntt_forward, cz_ntt_inverse, cz_ntt_coset_forward,
                                                  cz_ntt_coset_inverse};
    int (*small[4])(const cz_domain *, cz_fr *) = {small_ntt_forward, small_ntt_inverse,
                                                    small_ntt_coset_forward, small_ntt_coset_inverse};
    const unsigned max_log = 16;
    cz_fr *a = malloc(((size_t)1 << max_log) * sizeof(cz_fr)), *b = malloc(((size_t)1 << max_log) * sizeof(cz_fr));
    for (unsigned k = 0; k <= max_log; k++) {
        cz_domain d;
        CHECK(cz_domain_init(&d, k) == 0);
        for (int f = 0; f < 4; f++) {
            for (size_t i = 0; i < d.n; i++) cz_fr_random(&a[i], &rng);
            memcpy(b, a, d.n * sizeof(cz_fr));
            CHECK(lib[f](&d, a) == 0);
            CHECK(small[f](&d, b) == 0);
            int same = 1;
            for (size_t i = 0; i < d.n; i++) same &= cz_fr_equal(&a[i], &b[i]);
            CHECK_MSG(same, "transform %d at 2^%u differs with 3-stage tiles", f, k);
        }
    }
    free(a);
    free(b);
    return cz_test_finish();
}
