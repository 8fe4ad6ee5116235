/* See par.h. */
#include "util/par.h"

#include <omp.h>
#include <stdio.h>

#include "cz_error.h"

int cz_par_check(unsigned n, int nthreads, int (*fn)(void *ctx, unsigned i), void *ctx, unsigned *bad) {
    unsigned first = n;
    int first_rc = 0;
    char msg[512] = "";
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    for (unsigned i = 0; i < n; i++) {
        int rc = fn(ctx, i);
        if (rc) {
#pragma omp critical(cz_par_check)
            if (i < first) {
                first = i, first_rc = rc;
                snprintf(msg, sizeof msg, "%s", cz_error_message());
            }
        }
    }
    if (first == n) return 0;
    if (bad) *bad = first;
    return cz_error(first_rc, "%s", msg);
}
