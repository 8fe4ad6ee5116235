/* Evaluation domains as bellperson builds them: size 2^k, omega = 7^((r-1)/2^k), coset generator 7. */
#include "cz_error.h"
#include "poly/ntt.h"

int cz_domain_init(cz_domain *d, unsigned log_n) {
    if (log_n > CZ_NTT_MAX_LOG)
        return cz_error(CZ_ERANGE, "NTT domain 2^%u is larger than the supported 2^%u", log_n, CZ_NTT_MAX_LOG);
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    int rc = cz_fr_root_of_unity(&d->omega, log_n);
    if (rc) return rc;
    /* omega, n and 7 are all nonzero, so none of these inversions can fail. */
    cz_fr_inv(&d->omega_inv, &d->omega);
    cz_fr_set_u64(&d->n_inv, (uint64_t)d->n);
    cz_fr_inv(&d->n_inv, &d->n_inv);
    cz_fr_set_u64(&d->g, 7);
    cz_fr_inv(&d->g_inv, &d->g);
    return 0;
}

int cz_domain_for_size(cz_domain *d, size_t m) {
    unsigned k = 0;
    while (k <= CZ_NTT_MAX_LOG && ((size_t)1 << k) < m) k++;
    if (k > CZ_NTT_MAX_LOG)
        return cz_error(CZ_ERANGE, "no NTT domain holds %zu elements (max 2^%u)", m, CZ_NTT_MAX_LOG);
    return cz_domain_init(d, k);
}
