/* Independent checks on OpenMP threads with the serial loop's error: the lowest failing index wins, whatever
 * the threads' order, so a request rejected in parallel names what the one-by-one loop would have named. */
#ifndef CZ_UTIL_PAR_H
#define CZ_UTIL_PAR_H

/* Runs fn(ctx, i) for i = 0..n-1 on OpenMP threads (nthreads <= 0: OpenMP's default). Returns 0 when every call
 * returned 0; otherwise the return code of the lowest failing i, *bad = i (when bad is not NULL) and that call's
 * cz_error message as the caller's (cz_error's buffer is per thread). Every call runs, also after a failure. */
int cz_par_check(unsigned n, int nthreads, int (*fn)(void *ctx, unsigned i), void *ctx, unsigned *bad);

#endif
