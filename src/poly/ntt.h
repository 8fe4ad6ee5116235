/* Radix-2 NTT over Fr on the size-2^k domain of bellperson (omega = 7^((r-1)/2^k)), in place,
 * natural order in and out, multi-threaded (OpenMP, omp_get_max_threads()), 2^0..2^28 elements.
 * Coset transforms use the multiplicative generator g = 7 as bellperson's EvaluationDomain.
 * The transforms allocate a small per-call workspace (twiddles, per-thread tiles: a few MiB at
 * most), so they return 0 or CZ_ENOMEM; the data is untouched when they fail. They keep no state
 * between calls: several threads may transform different arrays at once. */
#ifndef CZ_POLY_NTT_H
#define CZ_POLY_NTT_H

#include <stddef.h>

#include "ff/fr.h"

#define CZ_NTT_MAX_LOG 28

typedef struct {
    unsigned log_n;  /* n = 2^log_n */
    size_t n;
    cz_fr omega;     /* primitive n-th root of unity */
    cz_fr omega_inv;
    cz_fr n_inv;     /* 1/n */
    cz_fr g;         /* coset generator (7) */
    cz_fr g_inv;
} cz_domain;

/* Fails with CZ_ERANGE for log_n > CZ_NTT_MAX_LOG. */
int cz_domain_init(cz_domain *d, unsigned log_n);
/* Smallest domain with at least m elements (bellperson: m = constraints + inputs; m <= 1 gives n = 1).
 * Fails with CZ_ERANGE when m > 2^CZ_NTT_MAX_LOG. */
int cz_domain_for_size(cz_domain *d, size_t m);

/* coefficients -> evaluations at omega^i */
int cz_ntt_forward(const cz_domain *d, cz_fr *a);
/* evaluations -> coefficients (includes the 1/n scaling) */
int cz_ntt_inverse(const cz_domain *d, cz_fr *a);
/* coefficients -> evaluations at g*omega^i (scale a_i by g^i, then forward) */
int cz_ntt_coset_forward(const cz_domain *d, cz_fr *a);
/* evaluations at g*omega^i -> coefficients (inverse, then scale a_i by g^-i) */
int cz_ntt_coset_inverse(const cz_domain *d, cz_fr *a);
/* *zinv = 1 / Z(g*omega^i) = 1 / (g^n - 1), the same for every i (CZ_EINVAL if g^n = 1). */
int cz_ntt_z_coset_inv(const cz_domain *d, cz_fr *zinv);
/* Divide coset evaluations by Z(g*omega^i) = g^n - 1 (the same for every i). */
int cz_ntt_divide_by_z_on_coset(const cz_domain *d, cz_fr *a);

#endif
